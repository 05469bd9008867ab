// Which nodes and inputs must stay float32 when a model is converted to float16 or bfloat16, and
// why. One place for what the spec's type constraints and our interpreter allow, so the converter
// itself only applies the decisions.
#pragma once
#include <cstdint>
#include <string>

#include "ir/ir.h"

namespace ofg::convert {

// Why node `n` of the main graph cannot run in `target` precision ("" when it can): the node
// holds subgraphs (not converted), the interpreter has no kernel for it or cannot run it in half
// precision (no promote_half and not one of the ops that move half data natively), or the spec's
// type constraints do not admit the target type at the model's opset (bfloat16 came late to most
// ops; our table below, since the op registry does not record the spec's type constraints).
std::string keep_reason(const Model& m, const Node& n, int32_t target);

// True when input `index` of `n` is float32 whatever the rest of the node computes in: the spec
// types it tensor(float) only (Resize's scales, Upsample's scales). Such inputs keep float32
// values; the node itself may be converted.
bool float32_only_input(const Model& m, const Node& n, uint32_t index);

}  // namespace ofg::convert
