#include "ir/builder.h"

#include "ir/error.h"

namespace ofg {

std::unique_ptr<Model> new_model(int64_t opset, int64_t ir_version) {
  auto m = std::make_unique<Model>();
  m->ir_version = ir_version;
  m->has_ir_version = true;
  m->producer_name = m->intern("onnxforge");
  m->graph = m->arena.make<Graph>();
  m->graph->model = m.get();
  m->graph->name = m->intern("main");
  OpsetId o;
  o.domain = m->intern("");
  o.version = opset;
  o.has_version = true;
  m->opsets.push(m->arena, o);
  return m;
}

Type* GraphBuilder::make_type(int32_t dtype, const std::vector<DimSpec>& dims) {
  Type* t = m_.arena.make<Type>();
  t->kind = Type::kTensor;
  t->elem_type = dtype;
  t->has_elem_type = true;
  t->has_shape = true;
  t->dims.data = m_.arena.make_array<Dim>(dims.size());
  t->dims.size = static_cast<uint32_t>(dims.size());
  for (size_t k = 0; k < dims.size(); ++k) {
    if (!dims[k].symbol.empty()) t->dims[k].param = m_.intern(dims[k].symbol);
    else if (dims[k].value >= 0) {
      t->dims[k].value = dims[k].value;
      t->dims[k].has_value = true;
    }
  }
  return t;
}

Value* GraphBuilder::input(const std::string& name, int32_t dtype, std::vector<DimSpec> dims) {
  Value* v = new_value(g_, m_.intern(name));
  v->is_graph_input = true;
  v->type = make_type(dtype, dims);
  ValueInfo vi;
  vi.value = v;
  g_->inputs.push(m_.arena, vi);
  return v;
}

Value* GraphBuilder::initializer(const std::string& name, int32_t dtype, std::vector<int64_t> dims, const void* data,
                                 size_t nbytes) {
  Value* v = new_value(g_, m_.intern(name));
  Tensor* t = make_tensor(m_, dtype, dims.data(), dims.size(), data, nbytes);
  t->name = v->name;
  set_initializer(v, t);
  std::vector<DimSpec> ds(dims.begin(), dims.end());
  v->type = make_type(dtype, ds);
  return v;
}

Value* GraphBuilder::initializer(const std::string& name, std::vector<int64_t> dims, const std::vector<float>& values) {
  return initializer(name, kFloat, std::move(dims), values.data(), values.size() * sizeof(float));
}

Value* GraphBuilder::initializer_i64(const std::string& name, std::vector<int64_t> dims, const std::vector<int64_t>& values) {
  return initializer(name, kInt64, std::move(dims), values.data(), values.size() * sizeof(int64_t));
}

Value* GraphBuilder::constant(const std::string& name, std::vector<int64_t> dims, const std::vector<float>& values) {
  Tensor* t = make_tensor(m_, kFloat, dims.data(), dims.size(), values.data(), values.size() * sizeof(float));
  return op("Constant", {}, {this->t("value", t)}, name);
}

Value* GraphBuilder::constant_i64(const std::string& name, std::vector<int64_t> dims, const std::vector<int64_t>& values) {
  Tensor* t = make_tensor(m_, kInt64, dims.data(), dims.size(), values.data(), values.size() * sizeof(int64_t));
  return op("Constant", {}, {this->t("value", t)}, name);
}

// An attribute with its name and type set; each helper below fills in its value.
Attribute GraphBuilder::attribute(const char* name, int32_t kind) {
  Attribute a;
  a.name = m_.intern(name);
  a.type = kind;
  a.has_type = true;
  return a;
}

Attribute GraphBuilder::ints(const char* name, std::vector<int64_t> v) {
  Attribute a = attribute(name, Attribute::kInts);
  a.ints.data = m_.arena.copy_array(v.data(), v.size());
  a.ints.size = static_cast<uint32_t>(v.size());
  return a;
}

Attribute GraphBuilder::i(const char* name, int64_t v) {
  Attribute a = attribute(name, Attribute::kInt);
  a.i = v;
  a.present = Attribute::kI;
  return a;
}

Attribute GraphBuilder::f(const char* name, float v) {
  Attribute a = attribute(name, Attribute::kFloat);
  a.f = v;
  a.present = Attribute::kF;
  return a;
}

Attribute GraphBuilder::floats(const char* name, std::vector<float> v) {
  Attribute a = attribute(name, Attribute::kFloats);
  a.floats.data = m_.arena.copy_array(v.data(), v.size());
  a.floats.size = static_cast<uint32_t>(v.size());
  return a;
}

Attribute GraphBuilder::s(const char* name, const std::string& v) {
  Attribute a = attribute(name, Attribute::kString);
  std::string_view stored = m_.str(m_.intern(v));
  a.s = Bytes{reinterpret_cast<const uint8_t*>(stored.data()), stored.size()};
  a.present = Attribute::kS;
  return a;
}

Attribute GraphBuilder::strings(const char* name, const std::vector<std::string>& v) {
  Attribute a = attribute(name, Attribute::kStrings);
  std::vector<Bytes> items;
  for (const std::string& x : v) {
    std::string_view stored = m_.str(m_.intern(x));
    items.push_back(Bytes{reinterpret_cast<const uint8_t*>(stored.data()), stored.size()});
  }
  a.strings.data = m_.arena.copy_array(items.data(), items.size());
  a.strings.size = static_cast<uint32_t>(items.size());
  return a;
}

Attribute GraphBuilder::t(const char* name, Tensor* v) {
  Attribute a = attribute(name, Attribute::kTensor);
  a.t = v;
  a.present = Attribute::kT;
  return a;
}

Attribute GraphBuilder::g(const char* name, Graph* v) {
  Attribute a = attribute(name, Attribute::kGraph);
  a.g = v;
  a.present = Attribute::kG;
  return a;
}

Node* GraphBuilder::node(const std::string& op_type, std::vector<Value*> inputs, uint32_t n_outputs,
                         std::vector<Attribute> attrs, std::vector<std::string> output_names, const std::string& domain) {
  Node* n = new_node(g_, m_.intern(op_type), domain.empty() ? kNoStr : m_.intern(domain),
                     static_cast<uint32_t>(inputs.size()), n_outputs);
  n->name = unique_name(m_, op_type + "_" + std::to_string(g_->node_count));
  append_node(g_, n);
  for (uint32_t k = 0; k < inputs.size(); ++k) set_input(n, k, inputs[k]);
  for (uint32_t k = 0; k < n_outputs; ++k) {
    std::string base = k < output_names.size() && !output_names[k].empty()
                           ? output_names[k]
                           : std::string(m_.str(n->name)) + "_out" + std::to_string(k);
    StrId name = k < output_names.size() && !output_names[k].empty() ? m_.intern(base) : unique_name(m_, base);
    set_output(n, k, new_value(g_, name));
  }
  for (Attribute& a : attrs) {
    if (a.g) {
      a.g->owner = n;
      recompute_captures(a.g);
    }
    n->attributes.push(m_.arena, a);
  }
  return n;
}

Value* GraphBuilder::op(const std::string& op_type, std::vector<Value*> inputs, std::vector<Attribute> attrs,
                        const std::string& output_name) {
  std::vector<std::string> names;
  if (!output_name.empty()) names.push_back(output_name);
  return node(op_type, std::move(inputs), 1, std::move(attrs), names)->outputs[0];
}

void GraphBuilder::output(Value* v) {
  ValueInfo vi;
  vi.value = v;
  vi.has_type = v->type != nullptr;
  ++v->graph_output_count;
  g_->outputs.push(m_.arena, vi);
}

void GraphBuilder::set_type(Value* v, int32_t dtype, std::vector<DimSpec> dims) {
  v->type = make_type(dtype, dims);
  for (ValueInfo& vi : g_->outputs)
    if (vi.value == v) vi.has_type = true;
}

Graph* GraphBuilder::subgraph(const std::string& name) {
  Graph* sub = m_.arena.make<Graph>();
  sub->model = &m_;
  sub->parent = g_;
  sub->name = m_.intern(name);
  return sub;
}

}  // namespace ofg
