// Attributes added to an op at some opset: going below it, the attribute must hold the value that
// reproduces the older behaviour (then it is dropped), else the node has no older form.
// Reshape allowzero (14), Shape start/end (15), Cast saturate (19), MaxPool/AveragePool ceil_mode
// and dilations (10; AveragePool's dilations 19), and GreaterOrEqual/LessOrEqual (12) written as
// Or(Greater|Less, Equal), exact for NaN too.
#include <string>
#include <vector>

#include "convert/adapter.h"
#include "ir/attributes.h"
#include "ir/graph_ops.h"

namespace ofg::convert {
namespace {

void drop(AdaptCtx& c, const char* name) { remove_attribute(c.n, c.m.intern(name)); }

std::string reshape_down14(AdaptCtx& c) {
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
  return "";
}

std::string shape_down15(AdaptCtx& c) {
  if (attr_int(c.m, c.n, "start", 0) != 0 || attr(c.m, c.n, "end")) return "start/end have no form before opset 15";
  drop(c, "start");
  return "";
}

std::string cast_down19(AdaptCtx& c) {
  // saturate only changes float8 results, which have no type before 19 anyway.
  drop(c, "saturate");
  return "";
}

std::string pool_down10(AdaptCtx& c) {
  if (attr_int(c.m, c.n, "ceil_mode", 0) != 0) return "ceil_mode=1 has no form before opset 10";
  std::vector<int64_t> d;
  if (attr_ints(c.m, c.n, "dilations", d))
    for (int64_t x : d)
      if (x != 1) return "dilations other than 1 have no form before opset 10";
  drop(c, "ceil_mode");
  if (c.m.str(c.n->op_type) == "MaxPool") drop(c, "dilations");
  return "";
}

std::string avgpool_down19(AdaptCtx& c) {
  std::vector<int64_t> d;
  if (attr_ints(c.m, c.n, "dilations", d))
    for (int64_t x : d)
      if (x != 1) return "dilations other than 1 have no form before opset 19";
  drop(c, "dilations");
  return "";
}

std::string or_equal_down(AdaptCtx& c) {
  bool ge = c.m.str(c.n->op_type) == "GreaterOrEqual";
  Value* a = c.n->inputs[0];
  Value* b = c.n->inputs[1];
  int32_t dt = c.elem(a);
  if (c.target < 11 && dt != kBool && dt != kInt32 && dt != kInt64) return "Equal takes float inputs from opset 11";
  Node* strict = insert_op(c.m, c.n, ge ? "Greater" : "Less", {a, b}, ge ? "ge_greater" : "le_less");
  Node* eq = insert_op(c.m, c.n, "Equal", {a, b}, ge ? "ge_equal" : "le_equal");
  Node* either = insert_op(c.m, c.n, "Or", {strict->outputs[0], eq->outputs[0]}, ge ? "ge_or" : "le_or");
  Value* y = c.n->outputs[0];
  Node* n = c.n;
  remove_node(n);
  set_output(n, 0, nullptr);
  set_output(either, 0, y);
  c.what = ge ? "GreaterOrEqual -> Or(Greater, Equal)" : "LessOrEqual -> Or(Less, Equal)";
  return "";
}

}  // namespace

void add_added_attribute_adapters(std::vector<Adapter>& out) {
  out.push_back({"Reshape", 14, nullptr, reshape_down14, "allowzero attribute added"});
  out.push_back({"Shape", 15, nullptr, shape_down15, "start/end attributes added"});
  out.push_back({"Cast", 19, nullptr, cast_down19, "saturate attribute added (float8)"});
  out.push_back({"MaxPool", 10, nullptr, pool_down10, "ceil_mode and dilations attributes added"});
  out.push_back({"AveragePool", 10, nullptr, pool_down10, "ceil_mode attribute added"});
  out.push_back({"AveragePool", 19, nullptr, avgpool_down19, "dilations attribute added"});
  out.push_back({"GreaterOrEqual", 12, nullptr, or_equal_down, "introduced; lowered to Or(Greater, Equal)"});
  out.push_back({"LessOrEqual", 12, nullptr, or_equal_down, "introduced; lowered to Or(Less, Equal)"});
}

}  // namespace ofg::convert
