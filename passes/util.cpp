#include "passes/util.h"

#include <cstring>

#include "exec/infer_types.h"
#include "ir/error.h"
#include "ir/provenance.h"
#include "kernels/kernels.h"

namespace ofg::passes {

std::vector<Graph*> all_graphs(Model& m) {
  std::vector<Graph*> out;
  for_each_graph(m.graph, [&](Graph* g) { out.push_back(g); });
  return out;
}

bool is_default(const Model& m, const Node* n) { return is_default_domain(m, n->domain); }

bool is_op(const Model& m, const Node* n, std::string_view op) {
  return n && n->alive && is_default(m, n) && m.str(n->op_type) == op;
}

Node* producer_if(const Model& m, const Value* v, std::string_view op, const Graph* graph) {
  if (!v || !v->producer || v->initializer || v->is_graph_input) return nullptr;
  if (graph && v->producer->graph != graph) return nullptr;
  return is_op(m, v->producer, op) ? v->producer : nullptr;
}

bool single_use(const Value* v) { return v && v->uses.size == 1 && !v->is_graph_output(); }

bool read_by_custom(const Model& m, const Value* v) {
  for (const Use& u : v->uses)
    if (!is_default(m, u.node)) return true;
  return false;
}

Node* only_user(const Value* v) { return single_use(v) && v->uses[0].node->graph == v->graph ? v->uses[0].node : nullptr; }

Value* other_input(const Node* n, const Value* v) { return n->inputs[0] == v ? n->inputs[1] : n->inputs[0]; }

const Tensor* const_tensor(const Model& m, const Value* v) {
  if (!v) return nullptr;
  if (v->initializer) return v->is_graph_input ? nullptr : v->initializer;
  if (v->producer && is_op(m, v->producer, "Constant") && v->producer->outputs.size == 1) {
    if (const Attribute* a = v->producer->attribute(m, "value")) return a->t;
  }
  return nullptr;
}

bool is_float_type(int32_t dtype) {
  return dtype == kFloat || dtype == kDouble || dtype == kFloat16 || dtype == kBfloat16;
}

// External data is resolved to a view at load time, so every storage kind qualifies.
bool dense(const Tensor* t, size_t elem) {
  if (!t || elem == 0) return false;
  int64_t n = t->numel();
  return n >= 0 && t->data.size == static_cast<size_t>(n) * elem;
}

bool read_doubles(const Tensor* t, std::vector<double>& out) {
  if (!t || !dense(t, dtype_size(t->data_type))) return false;
  size_t n = static_cast<size_t>(t->numel());
  out.resize(n);
  const uint8_t* p = t->bytes().data;  // possibly unaligned: memcpy each element
  switch (t->data_type) {
    case kFloat:
      for (size_t i = 0; i < n; ++i) { float f; std::memcpy(&f, p + 4 * i, 4); out[i] = f; }
      return true;
    case kDouble:
      for (size_t i = 0; i < n; ++i) std::memcpy(&out[i], p + 8 * i, 8);
      return true;
    case kFloat16:
    case kBfloat16: {
      std::vector<uint16_t> h(n);
      std::vector<float> f(n);
      if (n) std::memcpy(h.data(), p, 2 * n);
      if (t->data_type == kFloat16) kernels::active_table().f16_to_f32(h.data(), f.data(), n);
      else kernels::active_table().bf16_to_f32(h.data(), f.data(), n);
      for (size_t i = 0; i < n; ++i) out[i] = f[i];
      return true;
    }
    default: {
      std::vector<int64_t> ints;
      if (!read_ints(t, ints)) return false;
      for (size_t i = 0; i < n; ++i) out[i] = static_cast<double>(ints[i]);
      return true;
    }
  }
}

bool read_ints(const Tensor* t, std::vector<int64_t>& out) {
  if (!t || !dense(t, dtype_size(t->data_type))) return false;
  size_t n = static_cast<size_t>(t->numel());
  out.resize(n);
  const uint8_t* p = t->bytes().data;
  switch (t->data_type) {
    case kInt64:
      for (size_t i = 0; i < n; ++i) std::memcpy(&out[i], p + 8 * i, 8);
      return true;
    case kInt32:
      for (size_t i = 0; i < n; ++i) { int32_t v; std::memcpy(&v, p + 4 * i, 4); out[i] = v; }
      return true;
    case kInt8:
      for (size_t i = 0; i < n; ++i) out[i] = static_cast<int8_t>(p[i]);
      return true;
    case kUint8: case kBool:
      for (size_t i = 0; i < n; ++i) out[i] = p[i];
      return true;
    default:
      return false;
  }
}

Tensor* tensor_from_doubles(Model& m, int32_t dtype, const std::vector<int64_t>& dims,
                            const std::vector<double>& values) {
  size_t n = values.size();
  std::vector<uint8_t> bytes(n * dtype_size(dtype));
  switch (dtype) {
    case kFloat:
      for (size_t i = 0; i < n; ++i) { float f = static_cast<float>(values[i]); std::memcpy(&bytes[4 * i], &f, 4); }
      break;
    case kDouble:
      if (n) std::memcpy(bytes.data(), values.data(), 8 * n);
      break;
    case kFloat16:
    case kBfloat16: {
      std::vector<float> f(values.begin(), values.end());
      std::vector<uint16_t> h(n);
      if (dtype == kFloat16) kernels::active_table().f32_to_f16(f.data(), h.data(), n);
      else kernels::active_table().f32_to_bf16(f.data(), h.data(), n);
      if (n) std::memcpy(bytes.data(), h.data(), 2 * n);
      break;
    }
    default:
      fail(Status::kInternal, "tensor_from_doubles: not a float type");
  }
  return make_tensor(m, dtype, dims.data(), dims.size(), bytes.data(), bytes.size());
}

Tensor* tensor_from_ints(Model& m, const std::vector<int64_t>& dims, const std::vector<int64_t>& values) {
  return make_tensor(m, kInt64, dims.data(), dims.size(), values.data(), values.size() * sizeof(int64_t));
}

Value* add_initializer(Graph* g, const std::string& base, Tensor* t) {
  Model& m = *g->model;
  Value* v = new_value(g, unique_name(m, base));
  set_initializer(v, t);
  v->type = make_tensor_type(m, t->data_type, t->dims.data, t->dims.size);
  return v;
}

int64_t opset(const Model& m) { return m.opset_version(""); }

int inferred_rank(PassContext& ctx, const Value* v) {
  if (!v) return -1;
  const exec::IType* t = ctx.inferred_types().type_of(v);
  return t ? t->rank() : -1;
}

void drop(PassContext& ctx, Node* n) {
  if (!n->alive) return;
  remove_node(n);
  ++ctx.removed;
}

void drop_with_subgraphs(PassContext& ctx, Node* n) {
  auto release = [&](Graph* sub) {
    for_each_graph(sub, [&](Graph* s) { s->for_each_node([&](Node* k) { drop(ctx, k); }); });
  };
  for (Attribute& a : n->attributes) {
    if (a.g) release(a.g);
    for (Graph* s : a.graphs) release(s);
  }
  drop(ctx, n);
}

void replace_pattern(PassContext& ctx, const std::vector<Node*>& pattern, Node* last, Node* with) {
  insert_before(last, with);
  ++ctx.added;
  Value* out = last->outputs[0];
  for (Node* n : pattern) add_origins(ctx.m, with, n);  // a fusion stands for every node it replaced
  for (Node* n : pattern) drop(ctx, n);
  last->outputs[0] = nullptr;
  out->producer = nullptr;
  set_output(with, 0, out);
}

Node* fuse_pattern(PassContext& ctx, const std::vector<Node*>& pattern, Node* last, const char* op_type,
                   const Node* name_from, const char* suffix, std::initializer_list<Value*> inputs) {
  uint32_t n_inputs = static_cast<uint32_t>(inputs.size());
  while (n_inputs > 0 && inputs.begin()[n_inputs - 1] == nullptr) --n_inputs;
  Model& m = ctx.m;
  Node* fused = new_node(last->graph, m.intern(op_type), kNoStr, n_inputs, 1);
  fused->name = node_name(m, name_from, suffix);
  for (uint32_t i = 0; i < n_inputs; ++i) set_input(fused, i, inputs.begin()[i]);
  replace_pattern(ctx, pattern, last, fused);
  return fused;
}

void take_output(Node* producer, uint32_t index, Value* out) {
  Node* old_producer = out->producer;
  uint32_t old_index = out->producer_output;
  // The producer now computes what the old one did (ir/provenance.h).
  if (old_producer && old_producer != producer) add_origins(*producer->graph->model, producer, old_producer);
  if (old_producer && old_producer != producer && old_index < old_producer->outputs.size &&
      old_producer->outputs[old_index] == out)
    old_producer->outputs[old_index] = nullptr;
  set_output(producer, index, out);
}

bool keep_names(const PassContext& ctx) {
  if (!ctx.options) return false;
  auto it = ctx.options->find("keep_names");
  return it != ctx.options->end() && it->second == "1";
}

bool bypass(PassContext& ctx, Node* n, Value* in, Value* out) {
  if (!out->is_graph_output()) {
    replace_all_uses(out, in);
    drop(ctx, n);
    return true;
  }
  // `out` keeps its name as a graph output: let the producer of `in` write it directly.
  if (keep_names(ctx)) return false;  // `in` would be renamed
  Node* p = in->producer;
  if (!p || !p->alive || in->initializer || in->is_graph_input || in->is_graph_output()) return false;
  if (in->uses.size != 1 || in->graph != out->graph || p->graph != n->graph) return false;
  if (!is_default(ctx.m, p)) return false;
  uint32_t idx = in->producer_output;
  drop(ctx, n);
  take_output(p, idx, out);
  return true;
}

StrId node_name(Model& m, const Node* from, const char* suffix) {
  std::string base = from && from->name != kNoStr ? std::string(m.str(from->name)) : std::string("node");
  return unique_name(m, base + suffix);
}

}  // namespace ofg::passes

namespace ofg::passes {

bool valid_perm(const std::vector<int64_t>& perm, size_t rank) {
  if (perm.size() != rank) return false;
  std::vector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[p]) return false;
    seen[p] = true;
  }
  return true;
}

Tensor* transpose_tensor(Model& m, const Tensor* t, const std::vector<int64_t>& perm) {
  size_t es = dtype_size(t->data_type);
  size_t rank = t->dims.size;
  if (!dense(t, es) || !valid_perm(perm, rank)) return nullptr;
  std::vector<int64_t> in_dims(t->dims.begin(), t->dims.end()), out_dims(rank), in_strides(rank, 1);
  for (size_t i = 0; i < rank; ++i) out_dims[i] = in_dims[perm[i]];
  size_t n = static_cast<size_t>(t->numel());
  // An empty tensor's other dims may be anything: their products (the strides) could overflow.
  if (n == 0) return make_tensor(m, t->data_type, out_dims.data(), rank, nullptr, 0);
  for (size_t i = rank; i-- > 1;) in_strides[i - 1] = in_strides[i] * in_dims[i];
  std::vector<uint8_t> out(n * es);
  std::vector<int64_t> idx(rank, 0);  // index in the output, odometer style
  const uint8_t* in = t->bytes().data;
  for (size_t o = 0; o < n; ++o) {
    int64_t src = 0;
    for (size_t i = 0; i < rank; ++i) src += idx[i] * in_strides[perm[i]];
    std::memcpy(&out[o * es], in + src * es, es);
    for (size_t i = rank; i-- > 0;) {
      if (++idx[i] < out_dims[i]) break;
      idx[i] = 0;
    }
  }
  return make_tensor(m, t->data_type, out_dims.data(), rank, out.data(), out.size());
}

}  // namespace ofg::passes
