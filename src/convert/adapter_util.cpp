// Helpers the adapter families share: constants in, constants out, input slots, inserted nodes.
#include <string>
#include <vector>

#include "convert/adapter.h"
#include "ir/attributes.h"
#include "ir/graph_ops.h"
#include "passes/util.h"

namespace ofg::convert {

int AdaptCtx::rank(const Value* v) const {
  if (!v) return -1;
  if (v->type && v->type->shape_known()) return v->type->rank();
  if (types)
    if (const exec::IType* t = types->type_of(v)) return t->rank();
  return -1;
}

int32_t AdaptCtx::elem(const Value* v) const {
  if (!v) return 0;
  if (v->type && v->type->is_tensor() && v->type->has_elem_type) return v->type->elem_type;
  if (types)
    if (const exec::IType* t = types->type_of(v)) return t->elem;
  return 0;
}

bool const_ints(const Model& m, const Value* v, std::vector<int64_t>& out) {
  const Tensor* t = v ? passes::const_tensor(m, v) : nullptr;
  return t && passes::read_ints(t, out);
}

bool const_doubles(const Model& m, const Value* v, std::vector<double>& out) {
  const Tensor* t = v ? passes::const_tensor(m, v) : nullptr;
  return t && passes::read_doubles(t, out);
}

Value* int_const(Model& m, Node* n, const char* base, const std::vector<int64_t>& v, bool scalar) {
  std::vector<int64_t> dims;
  if (!scalar) dims.push_back(static_cast<int64_t>(v.size()));
  return passes::add_initializer(n->graph, base, passes::tensor_from_ints(m, dims, v));
}

Value* float_const(Model& m, Node* n, const char* base, int32_t dtype, const std::vector<double>& v, bool scalar) {
  std::vector<int64_t> dims;
  if (!scalar) dims.push_back(static_cast<int64_t>(v.size()));
  return passes::add_initializer(n->graph, base, passes::tensor_from_doubles(m, dtype, dims, v));
}

bool has_input(const Node* n, uint32_t index) { return index < n->inputs.size && n->inputs[index] != nullptr; }

void put_input(Node* n, uint32_t index, Value* v) {
  if (n->inputs.size <= index) resize_inputs(n, index + 1);
  set_input(n, index, v);
}

void truncate_inputs(Node* n, uint32_t index) {
  uint32_t keep = index < n->inputs.size ? index : n->inputs.size;
  while (keep > 0 && n->inputs[keep - 1] == nullptr) --keep;
  for (uint32_t i = keep; i < n->inputs.size; ++i) set_input(n, i, nullptr);
  resize_inputs(n, keep);
}


Node* insert_after(AdaptCtx& c, const char* op, uint32_t inputs, const char* mid, const char* base) {
  Value* y = c.n->outputs[0];
  Value* v = new_value(c.n->graph, unique_name(c.m, mid));
  set_output(c.n, 0, v);
  Node* k = new_node(c.n->graph, c.m.intern(op), kNoStr, inputs, 1);
  set_input(k, 0, v);
  set_output(k, 0, y);
  k->name = unique_name(c.m, base);
  if (c.n->next) insert_before(c.n->next, k); else append_node(c.n->graph, k);
  return k;
}

const char* replace_by(AdaptCtx& c, Node* last, const char* what) {
  Value* y = c.n->outputs[0];
  Node* n = c.n;
  remove_node(n);
  set_output(n, 0, nullptr);
  set_output(last, 0, y);
  c.what = what;
  return nullptr;
}

const char* rename_op(AdaptCtx& c, const char* op, const char* what) {
  c.n->op_type = c.m.intern(op);
  c.what = what;
  return nullptr;
}

const char* trailing_axes(AdaptCtx& c, bool minus_one_ok, std::vector<int64_t>& axes) {
  int64_t axis = attr_int(c.m, c.n, "axis", -1);
  if (axis == -1 && minus_one_ok) {
    axes = {-1};
    return nullptr;
  }
  int r = c.rank(c.n->inputs[0]);
  if (r < 0) return "an axis other than -1 needs a known input rank";
  for (int64_t a = axis < 0 ? axis + r : axis; a < r; ++a) axes.push_back(a);
  return nullptr;
}

std::string node_label(const Model& m, const Node* n) {
  std::string name(m.str(n->name));
  return name.empty() ? "#" + std::string(m.str(n->op_type)) : name;
}

}  // namespace ofg::convert
