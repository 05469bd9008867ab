// Changes of meaning rather than of form: Softmax's axis (13), attributes removed or added with a
// default that only the old or only the new signature can express (BatchNormalization spatial 9
// and training_mode 14, ArgMax/ArgMin select_last_index 12, TopK largest/sorted 11), renames
// (Scatter -> ScatterElements 11) and negative axes (accepted from 11).
#include <string>
#include <vector>

#include "convert/adapter.h"
#include "ir/attributes.h"
#include "ir/graph_ops.h"

namespace ofg::convert {
namespace {

// Softmax, LogSoftmax, Hardmax: before 13 the input is coerced to 2-D at `axis` (default 1) and
// normalised over everything from `axis` on; from 13 over the one axis (default -1). The two agree
// when the axis is the last one.
const char* softmax_up(AdaptCtx& c) {
  int64_t axis = attr_int(c.m, c.n, "axis", 1);
  int r = c.rank(c.n->inputs[0]);
  if (axis == -1 || (r > 0 && (axis == r - 1 || axis + r == r - 1))) {
    set_attr_int(c.m, c.n, "axis", -1);
    c.what = "axis -> -1 (last axis)";
    return nullptr;
  }
  // Flatten at axis, normalise over the last axis of the 2-D view, reshape back.
  Value* x = c.n->inputs[0];
  Node* flat = insert_op(c.m, c.n, "Flatten", {x}, "softmax_flat");
  set_attr_int(c.m, flat, "axis", axis);
  Node* shape = insert_op(c.m, c.n, "Shape", {x}, "softmax_shape");
  set_input(c.n, 0, flat->outputs[0]);
  set_attr_int(c.m, c.n, "axis", -1);
  Node* back = insert_after(c, "Reshape", 2, "softmax_2d", "softmax_reshape");
  set_input(back, 1, shape->outputs[0]);
  c.what = "coerced axis -> Flatten, axis -1, Reshape";
  return nullptr;
}
const char* softmax_down(AdaptCtx& c) {
  int64_t axis = attr_int(c.m, c.n, "axis", -1);
  int r = c.rank(c.n->inputs[0]);
  if (axis != -1 && !(r > 0 && (axis == r - 1 || axis == -1)))
    return "axis is not the last axis (or the rank is unknown): the older op normalises over all axes from `axis` on";
  if (c.target < 11) {
    if (r < 0) return "negative axis needs a known rank below opset 11";
    set_attr_int(c.m, c.n, "axis", r - 1);
  } else {
    set_attr_int(c.m, c.n, "axis", -1);
  }
  c.what = "axis = last axis";
  return nullptr;
}

// BatchNormalization 9 removed `spatial` (1 was the only value real models use).
const char* bn_up9(AdaptCtx& c) {
  if (attr_int(c.m, c.n, "spatial", 1) != 1) return "spatial=0 has no form from opset 9";
  if (attr(c.m, c.n, "spatial")) {
    remove_attribute(c.n, c.m.intern("spatial"));
    c.what = "spatial=1 removed";
  }
  return nullptr;
}
// BatchNormalization 14 added training_mode; only inference mode exists before.
const char* bn_down14(AdaptCtx& c) {
  if (attr_int(c.m, c.n, "training_mode", 0) != 0) return "training_mode=1 has no form before opset 14";
  if (c.n->outputs.size > 1)
    for (uint32_t i = 1; i < c.n->outputs.size; ++i)
      if (c.n->outputs[i] && c.n->outputs[i]->use_count()) return "training outputs are read";
  remove_attribute(c.n, c.m.intern("training_mode"));
  return nullptr;
}

const char* argmax_down12(AdaptCtx& c) {
  if (attr_int(c.m, c.n, "select_last_index", 0) != 0) return "select_last_index=1 has no form before opset 12";
  remove_attribute(c.n, c.m.intern("select_last_index"));
  return nullptr;
}

const char* topk_down11(AdaptCtx& c) {
  if (attr_int(c.m, c.n, "largest", 1) != 1) return "largest=0 has no form before opset 11";
  // sorted=0 leaves the order unspecified: the older sorted order is one of them.
  remove_attribute(c.n, c.m.intern("largest"));
  remove_attribute(c.n, c.m.intern("sorted"));
  return nullptr;
}

const char* scatter_up(AdaptCtx& c) { return rename_op(c, "ScatterElements", "Scatter -> ScatterElements"); }
const char* scatter_down(AdaptCtx& c) {
  if (attr(c.m, c.n, "reduction")) {
    if (attr_string(c.m, c.n, "reduction", "none") != "none") return "reduction has no form before opset 16";
    remove_attribute(c.n, c.m.intern("reduction"));
  }
  return c.target < 11 ? rename_op(c, "Scatter", "ScatterElements -> Scatter") : nullptr;
}

// Negative `axis` values are accepted from opset 11: below it they are made non-negative from
// the input's rank.
const char* negative_axis_down(AdaptCtx& c) {
  const Attribute* a = attr(c.m, c.n, "axis");
  if (!a || a->int_or(0) >= 0) return nullptr;
  int r = c.rank(c.n->inputs[0]);
  // Flatten's axis counts up to rank inclusive.
  if (r < 0) return "negative axis needs a known input rank below opset 11";
  set_attr_int(c.m, c.n, "axis", a->int_or(0) + r);
  c.what = "negative axis made non-negative";
  return nullptr;
}

// DFT 20: axis became input 2 (a scalar); the attribute's default was 1.
const char* dft_up(AdaptCtx& c) {
  int64_t axis = attr_int(c.m, c.n, "axis", 1);
  remove_attribute(c.n, c.m.intern("axis"));
  put_input(c.n, 2, int_const(c.m, c.n, "dft_axis", {axis}, true));
  c.what = "axis attribute -> input 2";
  return nullptr;
}
const char* dft_down(AdaptCtx& c) {
  std::vector<int64_t> axis = {-2};  // the input's default
  if (has_input(c.n, 2) && (!const_ints(c.m, c.n->inputs[2], axis) || axis.size() != 1))
    return "axis input is not a constant scalar";
  int r = c.rank(c.n->inputs[0]);
  if (axis[0] < 0 && r < 0) return "a negative axis needs a known input rank before opset 20";
  set_attr_int(c.m, c.n, "axis", axis[0] < 0 ? axis[0] + r : axis[0]);
  truncate_inputs(c.n, 2);
  c.what = "axis input -> attribute";
  return nullptr;
}

}  // namespace

void add_semantic_adapters(std::vector<Adapter>& out) {
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"})
    out.push_back({op, 13, softmax_up, softmax_down, "axis: 2-D coercion -> one axis, default 1 -> -1"});
  out.push_back({"DFT", 20, dft_up, dft_down, "axis attribute became input 2 (default 1 -> -2)"});
  out.push_back({"BatchNormalization", 9, bn_up9, nullptr, "spatial attribute removed"});
  out.push_back({"BatchNormalization", 14, nullptr, bn_down14, "training_mode attribute added"});
  out.push_back({"ArgMax", 12, nullptr, argmax_down12, "select_last_index attribute added"});
  out.push_back({"ArgMin", 12, nullptr, argmax_down12, "select_last_index attribute added"});
  out.push_back({"TopK", 11, nullptr, topk_down11, "largest/sorted attributes added"});
  out.push_back({"Scatter", 11, scatter_up, nullptr, "Scatter deprecated for ScatterElements"});
  out.push_back({"ScatterElements", 11, nullptr, scatter_down, "ScatterElements is Scatter before 11"});
  for (const char* op : {"Concat", "Gather", "Flatten", "Split", "ArgMax", "ArgMin", "Compress", "OneHot", "CumSum"})
    out.push_back({op, 11, nullptr, negative_axis_down, "negative axis accepted"});
}

}  // namespace ofg::convert
