// Converting a model's float32 computation to float16 or bfloat16 (one pass over the main graph,
// given which nodes stay float32). The search for which nodes must stay float32 so that the
// result verifies is mixed_precision.h's.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace ofg::convert {

struct KeptNode {
  size_t index = 0;    // position among the main graph's nodes (of the model before conversion)
  std::string name;    // node name ("" when unnamed), op type in `op`
  std::string op;
  std::string reason;  // "blocked by user: ...", "spec: ...", "interpreter: ...", "error attribution: ..."
};

struct Clamped {
  std::string name;    // initializer, or "node 'N' attribute 'value'"
  size_t count = 0;    // elements outside the target's finite range, set to its largest finite value
  double largest = 0;  // largest magnitude found
};

struct PrecisionPlan {
  int32_t target = kFloat16;  // kFloat16 or kBfloat16
  bool keep_io_types = true;  // graph inputs/outputs stay float32, one Cast at each boundary
  // keep[i]: main-graph node i (in order) stays float32. Sized to the node count.
  std::vector<bool> keep;
};

struct PrecisionResult {
  std::vector<Clamped> clamped;
  size_t casts_added = 0, casts_removed = 0;
  size_t nodes_converted = 0;
  // Nodes the conversion itself kept float32 (reason "type: ..."): a node that reads a value whose
  // element type is not known, which no Cast could be placed for.
  std::vector<KeptNode> kept;
};

// The main graph's nodes in order (the indices PrecisionPlan::keep and KeptNode::index use).
std::vector<Node*> main_nodes(Model& m);

// Converts `m` in place: float32 initializers used by converted nodes, Constant values, Cast
// targets and dtype attributes, declared types of values computed in the target type; inserts a
// Cast wherever a value meets a consumer that expects the other precision (at most one Cast per
// value and precision, never a Cast of a Cast's output: such a Cast reads the first Cast's input),
// and removes converted Casts that became no-ops (a Cast(to=float) of float32 data is now a Cast
// of target data to the target). Subgraphs are left as they are: the nodes holding them stay
// float32 (keep_rules.h) and values they read from outside (by a node or as a body output) are
// given float32. A node that reads or writes a value whose element type cannot be told stays
// float32 (PrecisionResult::kept): never float16 and float32 mixed on one node.
PrecisionResult convert_precision(Model& m, const PrecisionPlan& plan);

// A Cast of `in` to element type `to` writing `out`, new in g but not yet placed in its node list
// (unnamed): the conversion's Casts and mixed precision's probes.
Node* new_cast(Model& m, Graph* g, Value* in, Value* out, int32_t to);

// Largest finite magnitude of float16 (65504) or bfloat16 (~3.39e38).
double largest_finite(int32_t target);

}  // namespace ofg::convert
