// Attributes added to an op at some opset: going below it, the attribute must hold the value that
// reproduces the older behaviour (then it is dropped), else the node has no older form.
// Reshape allowzero (14), Shape start/end (15), Cast saturate (19), MaxPool/AveragePool ceil_mode
// and dilations (10; AveragePool's dilations 19), and GreaterOrEqual/LessOrEqual (12) written as
// Or(Greater|Less, Equal), exact for NaN too.
#include <cstdint>
#include <string>
#include <vector>

#include "convert/adapter.h"
#include "ir/attributes.h"
#include "ir/graph_ops.h"

namespace ofg::convert {
namespace {

void drop(AdaptCtx& c, const char* name) { remove_attribute(c.n, c.m.intern(name)); }

const char* reshape_down14(AdaptCtx& c) {
  if (attr_int(c.m, c.n, "allowzero", 0) != 0) {
    // allowzero only matters when the shape holds a 0.
    std::vector<int64_t> shape;
    if (!const_ints(c.m, c.n->inputs[1], shape)) return "allowzero=1 with a computed shape has no form before opset 14";
    for (int64_t d : shape)
      if (d == 0) return "allowzero=1 with a 0 in the shape has no form before opset 14";
  }
  if (attr(c.m, c.n, "allowzero")) {
    drop(c, "allowzero");
    c.what = "allowzero removed";
  }
  return nullptr;
}

// Shape 15 added start/end: below, Shape then Slice of its result (the form exports used).
const char* shape_down15(AdaptCtx& c) {
  const Attribute* e = attr(c.m, c.n, "end");
  int64_t start = attr_int(c.m, c.n, "start", 0);
  if (start == 0 && !e) {
    drop(c, "start");
    return nullptr;
  }
  int64_t end = e ? e->int_or(0) : INT64_MAX;
  drop(c, "start");
  drop(c, "end");
  // Shape's output is now Slice's input.
  Node* sl = insert_after(c, "Slice", c.target >= 10 ? 4 : 1, "shape_whole", "shape_slice");
  if (c.target >= 10) {
    set_input(sl, 1, int_const(c.m, c.n, "shape_start", {start}));
    set_input(sl, 2, int_const(c.m, c.n, "shape_end", {end}));
    set_input(sl, 3, int_const(c.m, c.n, "shape_axis", {0}));
  } else {
    set_attr_ints(c.m, sl, "starts", {start});
    set_attr_ints(c.m, sl, "ends", {end});
  }
  c.what = "start/end -> Shape then Slice";
  return nullptr;
}

// CastLike (15): a Cast to the element type of its second input, when that type is known.
const char* castlike_down(AdaptCtx& c) {
  int32_t dt = c.elem(c.n->inputs[1]);
  if (!dt) return "the element type of the second input is unknown";
  set_input(c.n, 1, nullptr);
  resize_inputs(c.n, 1);
  c.n->op_type = c.m.intern("Cast");
  set_attr_int(c.m, c.n, "to", dt);
  c.what = "CastLike -> Cast";
  return nullptr;
}

const char* cast_down19(AdaptCtx& c) {
  // saturate only changes float8 results, which have no type before 19 anyway.
  drop(c, "saturate");
  return nullptr;
}

const char* pool_down10(AdaptCtx& c) {
  if (attr_int(c.m, c.n, "ceil_mode", 0) != 0) return "ceil_mode=1 has no form before opset 10";
  std::vector<int64_t> d;
  if (attr_ints(c.m, c.n, "dilations", d))
    for (int64_t x : d)
      if (x != 1) return "dilations other than 1 have no form before opset 10";
  drop(c, "ceil_mode");
  if (c.m.str(c.n->op_type) == "MaxPool") drop(c, "dilations");
  return nullptr;
}

const char* avgpool_down19(AdaptCtx& c) {
  std::vector<int64_t> d;
  if (attr_ints(c.m, c.n, "dilations", d))
    for (int64_t x : d)
      if (x != 1) return "dilations other than 1 have no form before opset 19";
  drop(c, "dilations");
  return nullptr;
}

const char* or_equal_down(AdaptCtx& c) {
  bool ge = c.m.str(c.n->op_type) == "GreaterOrEqual";
  Value* a = c.n->inputs[0];
  Value* b = c.n->inputs[1];
  int32_t dt = c.elem(a);
  if (c.target < 11 && dt != kBool && dt != kInt32 && dt != kInt64) return "Equal takes float inputs from opset 11";
  Node* strict = insert_op(c.m, c.n, ge ? "Greater" : "Less", {a, b}, ge ? "ge_greater" : "le_less");
  Node* eq = insert_op(c.m, c.n, "Equal", {a, b}, ge ? "ge_equal" : "le_equal");
  Node* either = insert_op(c.m, c.n, "Or", {strict->outputs[0], eq->outputs[0]}, ge ? "ge_or" : "le_or");
  return replace_by(c, either, ge ? "GreaterOrEqual -> Or(Greater, Equal)" : "LessOrEqual -> Or(Less, Equal)");
}

// GRU/LSTM/RNN 14 added layout (1: batch first).
const char* rnn_down14(AdaptCtx& c) {
  if (attr_int(c.m, c.n, "layout", 0) != 0) return "layout=1 has no form before opset 14";
  drop(c, "layout");
  return nullptr;
}

// LpPool 18 added ceil_mode.
const char* lppool_down18(AdaptCtx& c) {
  if (attr_int(c.m, c.n, "ceil_mode", 0) != 0) return "ceil_mode=1 has no form before opset 18";
  drop(c, "ceil_mode");
  return nullptr;
}

// MaxPool 8 added storage_order (which only orders the Indices output, new in 8 as well).
const char* maxpool_down8(AdaptCtx& c) {
  if (c.n->outputs.size > 1 && c.n->outputs[1] && (c.n->outputs[1]->use_count() || c.n->outputs[1]->is_graph_output()))
    return "the Indices output has no form before opset 8";
  drop(c, "storage_order");
  return nullptr;
}

// RoiAlign 16 added coordinate_transformation_mode, whose default (half_pixel) is not the older
// behaviour (output_half_pixel).
const char* roialign_up16(AdaptCtx& c) {
  if (attr(c.m, c.n, "coordinate_transformation_mode")) return nullptr;
  set_attr_string(c.m, c.n, "coordinate_transformation_mode", "output_half_pixel");
  c.what = "coordinate_transformation_mode=output_half_pixel (the older behaviour)";
  return nullptr;
}
const char* roialign_down16(AdaptCtx& c) {
  if (attr_string(c.m, c.n, "coordinate_transformation_mode", "half_pixel") != "output_half_pixel")
    return "coordinate_transformation_mode other than output_half_pixel has no form before opset 16";
  drop(c, "coordinate_transformation_mode");
  return nullptr;
}

// Equal takes float inputs from 11 only.
const char* equal_down11(AdaptCtx& c) {
  int32_t dt = c.elem(c.n->inputs[0]);
  if (dt != kBool && dt != kInt32 && dt != kInt64)
    return "Equal on inputs other than bool/int32/int64 has no form before opset 11";
  return nullptr;
}

}  // namespace

void add_added_attribute_adapters(std::vector<Adapter>& out) {
  out.push_back({"Reshape", 14, nullptr, reshape_down14, "allowzero attribute added"});
  out.push_back({"Shape", 15, nullptr, shape_down15, "start/end attributes added"});
  out.push_back({"CastLike", 15, nullptr, castlike_down, "introduced; lowered to Cast"});
  out.push_back({"Cast", 19, nullptr, cast_down19, "saturate attribute added (float8)"});
  out.push_back({"MaxPool", 10, nullptr, pool_down10, "ceil_mode and dilations attributes added"});
  out.push_back({"AveragePool", 10, nullptr, pool_down10, "ceil_mode attribute added"});
  out.push_back({"AveragePool", 19, nullptr, avgpool_down19, "dilations attribute added"});
  for (const char* op : {"GRU", "LSTM", "RNN"}) out.push_back({op, 14, nullptr, rnn_down14, "layout attribute added"});
  out.push_back({"LpPool", 18, nullptr, lppool_down18, "ceil_mode attribute added"});
  out.push_back({"MaxPool", 8, nullptr, maxpool_down8, "storage_order attribute and Indices output added"});
  out.push_back({"RoiAlign", 16, roialign_up16, roialign_down16, "coordinate_transformation_mode added (default changed)"});
  out.push_back({"Equal", 11, nullptr, equal_down11, "float inputs accepted"});
  out.push_back({"GreaterOrEqual", 12, nullptr, or_equal_down, "introduced; lowered to Or(Greater, Equal)"});
  out.push_back({"LessOrEqual", 12, nullptr, or_equal_down, "introduced; lowered to Or(Less, Equal)"});
}

}  // namespace ofg::convert
