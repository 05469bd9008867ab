#include "exec/infer_types.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "exec/infer_rules.h"
#include "exec/interp.h"
#include "ir/graph_ops.h"

namespace ofg::exec {

namespace {
IType from_type(const Type* t) {
  IType r;
  if (!t || t->kind != Type::kTensor) return r;
  r.elem = t->has_elem_type ? t->elem_type : 0;
  r.ranked = t->has_shape;
  r.dims.reserve(t->dims.size);
  for (const Dim& d : t->dims) {
    IDim x;
    if (d.has_value) x.value = d.value;
    else x.sym = d.param;
    r.dims.push_back(x);
  }
  return r;
}

IType from_tensor(const Tensor* t) {
  IType r;
  r.elem = t->data_type;
  r.ranked = true;
  r.dims.reserve(t->dims.size);
  for (int64_t d : t->dims) r.dims.push_back(IDim{d, kNoStr});
  return r;
}

// Integer contents of a small constant tensor.
bool tensor_contents(const Tensor* t, std::vector<SymVal>& out) {
  if (!t || t->dims.size > 1 || t->storage == Tensor::kExternal) return false;
  int64_t n = t->numel();
  if (n < 0 || n > TypeInference::kMaxContents) return false;
  size_t es = dtype_size(t->data_type);
  if ((t->data_type != kInt64 && t->data_type != kInt32) || t->data.size != static_cast<size_t>(n) * es)
    return false;
  out.assign(static_cast<size_t>(n), SymVal{});
  const uint8_t* p = t->bytes().data;
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = 0;
    if (es == 8) std::memcpy(&v, p + 8 * i, 8);
    else { int32_t w; std::memcpy(&w, p + 4 * i, 4); v = w; }
    out[i].kind = SymVal::kConst;
    out[i].value = v;
  }
  return true;
}

// The merged declaration to store: inferred dims where known, the old declaration's elsewhere.
Type* merged_type(Model& m, const IType& inf, const Type* old) {
  IType o = from_type(old);
  IType r = inf;
  if (r.elem == 0) r.elem = o.elem;
  if (!r.ranked && o.ranked) r = IType{r.elem, true, o.dims};
  else if (r.ranked && o.ranked && o.dims.size() == r.dims.size()) {
    for (size_t i = 0; i < r.dims.size(); ++i)
      if (!r.dims[i].is_static() && !r.dims[i].is_symbolic()) r.dims[i] = o.dims[i];
  }
  if (r.elem == 0 && !r.ranked) return nullptr;
  Type* t = m.arena.make<Type>();
  t->kind = Type::kTensor;
  t->elem_type = r.elem;
  t->has_elem_type = r.elem != 0;
  t->has_shape = r.ranked;
  if (r.ranked) {
    t->dims.data = m.arena.make_array<Dim>(r.dims.size());
    t->dims.size = static_cast<uint32_t>(r.dims.size());
    for (size_t i = 0; i < r.dims.size(); ++i) {
      if (r.dims[i].is_static()) {
        t->dims[i].value = r.dims[i].value;
        t->dims[i].has_value = true;
      } else {
        t->dims[i].param = r.dims[i].sym;
      }
    }
  }
  return t;
}

bool same_type(const Type* a, const IType& b) {
  if (!a || a->kind != Type::kTensor) return false;
  IType x = from_type(a);
  if (x.elem != b.elem || x.ranked != b.ranked || x.dims.size() != b.dims.size()) return false;
  for (size_t i = 0; i < x.dims.size(); ++i)
    if (x.dims[i].value != b.dims[i].value || x.dims[i].sym != b.dims[i].sym) return false;
  return true;
}
}  // namespace

const IType* TypeInference::type_of(const Value* v) const {
  const Slot* s = slot(v);
  return s && s->typed ? &s->type : nullptr;
}

const std::vector<SymVal>* TypeInference::contents(const Value* v) const {
  const Slot* s = slot(v);
  return s && s->has_contents ? &s->contents : nullptr;
}

void TypeInference::set_type(const Value* v, IType t) {
  if (Slot* s = slot(v)) {
    s->type = std::move(t);
    s->typed = true;
  }
}

void TypeInference::set_contents(const Value* v, std::vector<SymVal> c) {
  if (Slot* s = slot(v)) {
    s->contents = std::move(c);
    s->has_contents = true;
  }
}

void TypeInference::run(bool write) {
  slots_.clear();
  slots_.resize(m_.value_count);
  infer_graph(m_.graph);
  if (write) for_each_graph(m_.graph, [&](Graph* g) { write_types(g); });
}

void TypeInference::infer_graph(Graph* g) {
  for (const ValueInfo& vi : g->inputs) {
    IType t = from_type(vi.type ? vi.type : vi.value->type);
    if (vi.value->initializer && t.elem == 0) t = from_tensor(vi.value->initializer);
    set_type(vi.value, std::move(t));
  }
  for (Value* v : g->initializers) {
    if (v->is_graph_input) continue;
    set_type(v, from_tensor(v->initializer));
    std::vector<SymVal> c;
    if (tensor_contents(v->initializer, c)) set_contents(v, std::move(c));
  }
  for (Node* n = g->first; n; n = n->next) {
    infer_node(n);
    for (Attribute& a : n->attributes) {
      if (a.g) infer_graph(a.g);
      for (Graph* s : a.graphs) infer_graph(s);
    }
  }
}

void TypeInference::infer_node(Node* n) {
  InferCtx c{m_, *n, std::move(in_), std::move(in_contents_), std::move(in_values_), std::move(out_),
             std::move(out_contents_)};
  c.in.clear();
  c.in_contents.clear();
  c.in_values.clear();
  for (Value* v : n->inputs) {
    const IType* t = v ? type_of(v) : nullptr;
    if (v && !t && v->type) {
      // outer-scope value or a value declared but not inferred: use its declaration
      set_type(v, from_type(v->type));
      t = type_of(v);
    }
    c.in.push_back(t);
    c.in_contents.push_back(v ? contents(v) : nullptr);
    c.in_values.push_back(v);
  }
  c.out.assign(n->outputs.size, IType{});
  c.out_contents.assign(n->outputs.size, {});
  InferFn rule = c.out.empty() ? nullptr : Registry::instance().rule(m_.str(n->domain), c.op());
  bool known = rule && rule(c);
  for (uint32_t i = 0; i < n->outputs.size; ++i) {
    Value* v = n->outputs[i];
    if (!v) continue;
    IType t = known ? std::move(c.out[i]) : IType{};
    // Nothing inferred: keep what the model declares for it.
    if (t.elem == 0 && !t.ranked && v->type) t = from_type(v->type);
    else if (v->type && v->type->kind == Type::kTensor) {
      IType d = from_type(v->type);
      if (t.elem == 0) t.elem = d.elem;
      if (!t.ranked && d.ranked) { t.ranked = true; t.dims = d.dims; }
    }
    set_type(v, std::move(t));
    if (known && !c.out_contents[i].empty()) set_contents(v, std::move(c.out_contents[i]));
  }
  in_ = std::move(c.in);
  in_contents_ = std::move(c.in_contents);
  in_values_ = std::move(c.in_values);
  out_ = std::move(c.out);
  out_contents_ = std::move(c.out_contents);
}

void TypeInference::write_types(Graph* g) {
  for (Node* n = g->first; n; n = n->next) {
    for (Value* v : n->outputs) {
      if (!v || v->is_graph_input || v->initializer) continue;
      const IType* t = type_of(v);
      if (!t || (t->elem == 0 && !t->ranked)) continue;
      if (v->is_graph_output() && v->type) continue;  // declared outputs keep their types
      if (same_type(v->type, *t)) continue;
      if (Type* nt = merged_type(m_, *t, v->type)) v->type = nt;
    }
  }
}

void infer_types(Model& m) { TypeInference(m).run(true); }

}  // namespace ofg::exec
