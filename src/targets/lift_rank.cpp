// 1-D convolutions and pools as 2-D ones (lift_rank.h).
#include "targets/lift_rank.h"

#include <vector>

#include "ir/attributes.h"
#include "ir/graph_ops.h"
#include "ir/ir.h"
#include "passes/util.h"

namespace ofg::targets {
namespace {

// One more spatial axis of size 1 in front of the others: `lead` before each listed value (the
// pads list [begin..., end...] gets one at each half).
void lift_ints(convert::AdaptCtx& c, const char* name, int64_t lead, bool halves) {
  std::vector<int64_t> v;
  if (!attr_ints(c.m, c.n, name, v)) return;  // absent: the default fits 2-D as well
  std::vector<int64_t> out;
  if (halves && v.size() % 2 == 0) {
    size_t h = v.size() / 2;
    out.push_back(lead);
    out.insert(out.end(), v.begin(), v.begin() + static_cast<std::ptrdiff_t>(h));
    out.push_back(lead);
    out.insert(out.end(), v.begin() + static_cast<std::ptrdiff_t>(h), v.end());
  } else {
    out.push_back(lead);
    out.insert(out.end(), v.begin(), v.end());
  }
  set_attr_ints(c.m, c.n, name, out);
}

// Unsqueeze (or Squeeze) of v on axis 2 before c.n, in the form of the model's opset.
Node* axis2_op(convert::AdaptCtx& c, const char* op, Value* v, const std::string& base) {
  if (c.target >= 13) return insert_op(c.m, c.n, op, {v, convert::int_const(c.m, c.n, "axis2", {2})}, base);
  Node* n = insert_op(c.m, c.n, op, {v}, base);
  set_attr_ints(c.m, n, "axes", {2});
  return n;
}

}  // namespace

const char* lift_1d_to_2d(convert::AdaptCtx& c, const std::string& label) {
  Node* n = c.n;
  if (!n->inputs.size || !n->inputs[0] || !n->outputs.size || !n->outputs[0]) return "no input or output";
  if (c.rank(n->inputs[0]) != 3) return nullptr;  // not a 1-D one (or unknown): nothing to do
  for (uint32_t k = 1; k < n->outputs.size; ++k)
    if (n->outputs[k] && (n->outputs[k]->uses.size || n->outputs[k]->is_graph_output()))
      return "a second output (MaxPool's indices) is read";
  bool conv = c.m.str(n->op_type) == "Conv";
  Value* w = nullptr;
  if (conv) {
    if (n->inputs.size < 2 || !n->inputs[1]) return "Conv without weights";
    const Tensor* t = passes::const_tensor(c.m, n->inputs[1]);
    if (t && t->dims.size == 3) {
      std::vector<double> values;
      if (!passes::is_float_type(t->data_type) || !passes::read_doubles(t, values)) return "the weights are not a float constant";
      Tensor* lifted = passes::tensor_from_doubles(c.m, t->data_type, {t->dims[0], t->dims[1], 1, t->dims[2]}, values);
      w = passes::add_initializer(n->graph, label + "_w2d", lifted);
    } else {
      w = axis2_op(c, "Unsqueeze", n->inputs[1], label + "_w2d")->outputs[0];
    }
  }
  Value* x2 = axis2_op(c, "Unsqueeze", n->inputs[0], label + "_x2d")->outputs[0];
  set_input(n, 0, x2);
  if (w) set_input(n, 1, w);
  lift_ints(c, "kernel_shape", 1, false);
  lift_ints(c, "strides", 1, false);
  lift_ints(c, "dilations", 1, false);
  lift_ints(c, "pads", 0, true);
  Node* sq = convert::insert_after(c, "Squeeze", c.target >= 13 ? 2 : 1, (label + "_2d").c_str(), (label + "_squeeze").c_str());
  if (c.target >= 13) set_input(sq, 1, convert::int_const(c.m, sq, "axis2", {2}));
  else set_attr_ints(c.m, sq, "axes", {2});
  c.what = "1-D op on [N, C, L] as its 2-D form on [N, C, 1, L] (Unsqueeze before, Squeeze after)";
  return nullptr;
}

}  // namespace ofg::targets
