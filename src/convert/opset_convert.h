// Opset conversion of the default ONNX domain, up or down, by the adapter table (adapter.h).
// The conversion works on the model given; callers that must keep the original on failure convert
// a copy (the C ABI does, and verifies the copy against the original by execution).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace ofg::convert {

// Opsets of the default domain a conversion accepts as source and target: 7 (the oldest real
// exports use) to the newest the op registry knows an op of.
constexpr int64_t kOldestOpset = 7;
int64_t newest_opset();

struct AdaptedNode {
  std::string node, op;
  int64_t from = 0, to = 0;  // the boundary crossed: from -> to
  std::string what;
};

struct OpsetReport {
  int64_t from = 0, to = 0;
  int64_t nodes_before = 0, nodes_after = 0;
  std::vector<AdaptedNode> adapted;
  // Domains other than the default one that the conversion left alone (named when imported).
  std::vector<std::string> other_domains;
};

// Converts every graph of m (subgraphs included; functions are left alone) to `target` and sets
// the default domain's opset import. Throws Error(kUnsupported) naming every node that cannot be
// expressed at `target` (node, op, versions) when any cannot; m may then be partly converted.
// Throws Error(kInvalidArgument) for a target outside [kOldestOpset, newest_opset()] or a model
// whose own opset is outside it.
OpsetReport convert_opset(Model& m, int64_t target);

}  // namespace ofg::convert
