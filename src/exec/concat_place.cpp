// Outputs placed in a Concat's output: a Concat of values that nothing else reads (SqueezeNet's
// fire modules join their two expand convolutions' outputs along the channels) copies every
// byte of its inputs once more. When a Concat ran before with inputs of some shapes, and an input
// of the same shape is being made again by a node that asks for its output through
// OpCtx::output_tensor (Conv, alone or heading a fused chain), that node writes straight into its
// part of the Concat's next output, allocated at the first such request; the Concat then finds
// those inputs in place and copies only the others. Whatever differs from the last run (shapes,
// element type, an input the producer did not place) falls back to copying: the values are the
// same either way.
#include "exec/interp.h"

#include <algorithm>
#include <cstring>

namespace ofg::exec {

namespace {
bool is_concat(const Model& m, const Node* n) {
  return m.str(n->domain).empty() && m.str(n->op_type) == "Concat";
}
}  // namespace

void Interpreter::plan_placements(const std::vector<Node*>& order, const std::vector<Value*>& captured) {
  for (Node* n : order) {
    if (!is_concat(m_, n) || n->inputs.size < 2) continue;
    for (uint32_t i = 0; i < n->inputs.size; ++i) {
      Value* v = n->inputs[i];
      // Read by this input of the Concat only, made by a node of the same graph.
      if (!v || v->use_count() != 1 || v->is_graph_output() || !v->producer || v->is_graph_input ||
          v->initializer || v->producer->graph != n->graph)
        continue;
      if (std::find(captured.begin(), captured.end(), v) != captured.end()) continue;
      placements_[v] = Placement{n, i};
    }
  }
}

bool Interpreter::placed_output(const Value* v, int32_t dtype, const Shape& shape, RTensor& out) {
  if (!v || placements_.empty()) return false;
  auto it = placements_.find(v);
  if (it == placements_.end()) return false;
  ConcatLayout& c = concat_layouts_[it->second.concat];
  const uint32_t slot = it->second.input;
  if (c.shapes.size() != it->second.concat->inputs.size || c.dtype != dtype || c.shapes[slot] != shape) return false;
  if (!c.pending.hold) c.pending = RTensor::alloc_uninit(dtype, c.total);
  size_t offset = 0;
  for (uint32_t j = 0; j < slot; ++j) offset += static_cast<size_t>(shape_numel(c.shapes[j]));
  out = RTensor::view(dtype, shape, c.pending.ptr + offset * dtype_size(dtype), c.pending.hold);
  ++stats_.placed_outputs;
  return true;
}

bool Interpreter::concat_output(const Node* concat, int32_t dtype, const Shape& total, RTensor& out) {
  auto it = concat_layouts_.find(concat);
  if (it == concat_layouts_.end() || !it->second.pending.hold) return false;
  RTensor pending = std::move(it->second.pending);
  it->second.pending = RTensor{};
  if (pending.dtype != dtype || pending.shape != total) return false;
  out = std::move(pending);
  return true;
}

void Interpreter::remember_concat(const Node* concat, int32_t dtype, int64_t axis, const std::vector<const RTensor*>& xs,
                                  const Shape& total) {
  bool placeable = false;
  for (const Value* v : concat->inputs) placeable = placeable || (v && placements_.count(v));
  if (!placeable) return;
  ConcatLayout& c = concat_layouts_[concat];
  // Only an output whose inputs lie one after another (nothing before the axis but size-1
  // dims) can hold each input as one contiguous part; and every input present, in order.
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= total[static_cast<size_t>(i)];
  c.shapes.clear();
  if (outer != 1 || xs.size() != concat->inputs.size) return;
  for (const RTensor* x : xs) c.shapes.push_back(x->shape);
  c.dtype = dtype;
  c.total = total;
}

RTensor OpCtx::output_tensor(size_t i, int32_t dtype, Shape shape) {
  const Value* v = i == 0 && place_as ? place_as : (i < node.outputs.size ? node.outputs[i] : nullptr);
  RTensor placed;
  if (interp.placed_output(v, dtype, shape, placed)) return placed;
  return RTensor::alloc_uninit(dtype, std::move(shape));
}

}  // namespace ofg::exec
