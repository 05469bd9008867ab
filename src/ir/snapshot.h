// Copies of a model without a save/parse round trip: the structure (graphs, nodes, values,
// attributes, types, tensor headers, names) is copied object by object into a new arena, so the
// copy can be changed or thrown away independently of the original.
#pragma once
#include <memory>

#include "ir/ir.h"

namespace ofg {

// The bytes the structure holds (weights, raw fields, attribute strings) and the recipes of
// computed weights are shared with `m`, never copied: a snapshot costs a walk over the structure.
// It reads memory `m` owns, so it must not outlive `m` unless it is made to own `m` (keep_alive).
// Pass rollback takes one before a pass and keeps it only when the pass is undone.
std::unique_ptr<Model> snapshot_model(const Model& m);

// A copy that depends on nothing `m` owns: bytes in `m`'s arena are copied and computed weights
// are computed into the copy (without materialising them in `m`); bytes in `m`'s backings (the
// mapped file, the caller's buffer) stay shared, the backings being held by both models.
std::unique_ptr<Model> copy_model(const Model& m);

// Makes `owner` keep `m` (its arena and backings) alive for as long as `owner` lives.
void keep_alive(Model& owner, std::unique_ptr<Model> m);

}  // namespace ofg
