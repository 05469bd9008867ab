#include "ir/graph_ops.h"

#include "ir/provenance.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ofg {

Value* new_value(Graph* g, StrId name) {
  Value* v = g->model->arena.make<Value>();
  v->name = name;
  v->graph = g;
  v->id = g->model->value_count++;
  return v;
}

StrId unique_name(Model& m, std::string_view base) {
  // A string never interned cannot name anything in the model, in any scope.
  if (!base.empty() && m.strings.find(base) == kNoStr) return m.intern(base);
  std::string candidate;
  for (uint64_t k = 1;; ++k) {
    candidate.assign(base);
    candidate += "__";
    candidate += std::to_string(k);
    if (m.strings.find(candidate) == kNoStr) return m.intern(candidate);
  }
}

Node* new_node(Graph* g, StrId op_type, StrId domain, uint32_t n_inputs, uint32_t n_outputs) {
  Arena& a = g->model->arena;
  Node* n = a.make<Node>();
  n->op_type = op_type;
  n->domain = domain;
  n->graph = g;
  n->inputs.data = a.make_array<Value*>(n_inputs);
  n->inputs.size = n_inputs;
  n->outputs.data = a.make_array<Value*>(n_outputs);
  n->outputs.size = n_outputs;
  note_created(*g->model, n);
  return n;
}

void append_node(Graph* g, Node* n) {
  n->graph = g;
  n->prev = g->last;
  n->next = nullptr;
  if (g->last) g->last->next = n; else g->first = n;
  g->last = n;
  n->alive = true;
  ++g->node_count;
}

void insert_before(Node* position, Node* n) {
  Graph* g = position->graph;
  n->graph = g;
  n->next = position;
  n->prev = position->prev;
  if (position->prev) position->prev->next = n; else g->first = n;
  position->prev = n;
  n->alive = true;
  ++g->node_count;
}

Node* insert_op(Model& m, Node* before, const char* op, const std::vector<Value*>& inputs, const std::string& base) {
  Graph* g = before->graph;
  Node* k = new_node(g, m.intern(op), kNoStr, static_cast<uint32_t>(inputs.size()), 1);
  for (uint32_t i = 0; i < inputs.size(); ++i) set_input(k, i, inputs[i]);
  set_output(k, 0, new_value(g, unique_name(m, base)));
  k->name = unique_name(m, base);
  add_origins(m, k, before);  // a step of the node it is put before (a decomposition of it)
  insert_before(before, k);
  return k;
}

void remove_node(Node* n) {
  if (!n->alive) return;
  note_removed(*n->graph->model, n);
  for (uint32_t i = 0; i < n->inputs.size; ++i)
    if (n->inputs[i]) remove_use(n->inputs[i], n, i);
  Graph* g = n->graph;
  if (n->prev) n->prev->next = n->next; else g->first = n->next;
  if (n->next) n->next->prev = n->prev; else g->last = n->prev;
  // Keep n->next so that a loop holding n can still advance.
  n->alive = false;
  --g->node_count;
}

void add_use(Value* v, Node* n, uint32_t index) { v->uses.push(n->graph->model->arena, Use{n, index}); }

void remove_use(Value* v, Node* n, uint32_t index) {
  for (uint32_t k = 0; k < v->uses.size; ++k) {
    if (v->uses[k].node == n && v->uses[k].index == index) {
      v->uses.erase_at(k);
      if (v->uses.size == 0) note_unused(*n->graph->model, v);
      return;
    }
  }
}

void set_input(Node* n, uint32_t index, Value* v) {
  Value* old = n->inputs[index];
  if (old == v) return;
  if (old && n->alive) remove_use(old, n, index);
  n->inputs[index] = v;
  if (v && n->alive) add_use(v, n, index);
}

void set_output(Node* n, uint32_t index, Value* v) {
  n->outputs[index] = v;
  if (v) {
    v->producer = n;
    v->producer_output = index;
  }
}

void resize_inputs(Node* n, uint32_t count) {
  for (uint32_t i = count; i < n->inputs.size; ++i) set_input(n, i, nullptr);
  if (count > n->inputs.size) {
    Value** fresh = n->graph->model->arena.make_array<Value*>(count);
    for (uint32_t i = 0; i < n->inputs.size; ++i) fresh[i] = n->inputs[i];
    n->inputs.data = fresh;
  }
  n->inputs.size = count;
}

void replace_all_uses(Value* from, Value* to) {
  if (from == to) return;
  // The node that wrote `from` is now stood for by the one writing `to` (ir/provenance.h).
  if (from->graph) hand_over_origins(*from->graph->model, from, to);
  // Copy first: set_input edits from->uses.
  std::vector<Use> uses(from->uses.begin(), from->uses.end());
  for (const Use& u : uses) set_input(u.node, u.index, to);
}

Attribute* add_attribute(Node* n, StrId name, int32_t kind) {
  Attribute a;
  a.name = name;
  a.type = kind;
  a.has_type = true;
  n->attributes.push(n->graph->model->arena, a);
  return &n->attributes[n->attributes.size - 1];
}

void remove_attribute(Node* n, StrId name) {
  for (uint32_t k = 0; k < n->attributes.size; ++k)
    if (n->attributes[k].name == name) {
      n->attributes.erase_at(k);
      return;
    }
}

void set_initializer(Value* v, Tensor* t) {
  if (!v->initializer) v->graph->initializers.push(v->graph->model->arena, v);
  v->initializer = t;
  if (t->name != v->name) {
    // The tensor carries the value's name when saved; a loaded tensor keeps its bytes verbatim
    // only while that name is unchanged (see Tensor::source).
    Tensor* copy = v->graph->model->arena.make<Tensor>(*t);
    copy->name = v->name;
    copy->source = Bytes{};
    v->initializer = copy;
  }
}

void remove_initializer(Value* v) {
  Graph* g = v->graph;
  for (uint32_t k = 0; k < g->initializers.size; ++k)
    if (g->initializers[k] == v) {
      g->initializers.erase_at(k);
      break;
    }
  v->initializer = nullptr;
}

bool topological_sort(Graph* g) {
  // Kahn's algorithm over node order, picking the earliest ready node so a valid order is kept.
  std::vector<Node*> nodes;
  for (Node* n = g->first; n; n = n->next) nodes.push_back(n);
  std::unordered_map<Node*, size_t> index;
  for (size_t i = 0; i < nodes.size(); ++i) index[nodes[i]] = i;
  std::vector<uint32_t> pending(nodes.size(), 0);
  std::vector<std::vector<size_t>> consumers(nodes.size());
  // A node depends on producers in this graph of its inputs and of values its subgraphs capture.
  bool reads_own_output = false;  // a one-node cycle: no order computes such an input first
  auto depend = [&](size_t i, Value* v) {
    if (!v || !v->producer) return;
    auto it = index.find(v->producer);
    if (it == index.end()) return;
    if (it->second == i) {
      reads_own_output = true;
      return;
    }
    consumers[it->second].push_back(i);
    ++pending[i];
  };
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (Value* v : nodes[i]->inputs) depend(i, v);
    for (Attribute& a : nodes[i]->attributes) {
      auto add_captures = [&](Graph* sub) {
        for_each_graph(sub, [&](Graph* s) { for (Value* v : s->captures) depend(i, v); });
      };
      if (a.g) add_captures(a.g);
      for (Graph* s : a.graphs) add_captures(s);
    }
  }
  std::vector<size_t> ready_heap;  // min-heap on original position
  auto cmp = [](size_t a, size_t b) { return a > b; };
  for (size_t i = 0; i < nodes.size(); ++i)
    if (pending[i] == 0) ready_heap.push_back(i);
  std::make_heap(ready_heap.begin(), ready_heap.end(), cmp);
  std::vector<Node*> order;
  order.reserve(nodes.size());
  while (!ready_heap.empty()) {
    std::pop_heap(ready_heap.begin(), ready_heap.end(), cmp);
    size_t i = ready_heap.back();
    ready_heap.pop_back();
    order.push_back(nodes[i]);
    for (size_t c : consumers[i])
      if (--pending[c] == 0) {
        ready_heap.push_back(c);
        std::push_heap(ready_heap.begin(), ready_heap.end(), cmp);
      }
  }
  if (reads_own_output || order.size() != nodes.size()) return false;
  Node* prev = nullptr;
  for (Node* n : order) {
    n->prev = prev;
    if (prev) prev->next = n; else g->first = n;
    prev = n;
  }
  if (prev) prev->next = nullptr;
  g->last = prev;
  return true;
}

namespace {

struct Checker {
  Model& m;
  std::string error;

  bool fail(const std::string& msg) {
    if (error.empty()) error = msg;
    return false;
  }
  std::string name(Value* v) { return std::string(m.str(v->name)); }
  std::string node_desc(Node* n) {
    return "node '" + std::string(m.str(n->name)) + "' (" + std::string(m.str(n->op_type)) + ")";
  }

  // `visible`: values defined so far in this graph and its enclosing scopes.
  bool check_graph(Graph* g, std::unordered_set<Value*>& visible) {
    std::vector<Value*> added;
    auto define = [&](Value* v) -> bool {
      if (!visible.insert(v).second) return fail("value '" + name(v) + "' is defined twice");
      added.push_back(v);
      return true;
    };
    for (ValueInfo& vi : g->inputs)
      if (!define(vi.value)) return false;
    for (Value* v : g->initializers)
      if (!v->is_graph_input && !define(v)) return false;
    uint32_t count = 0;
    for (Node* n = g->first; n; n = n->next) {
      ++count;
      if (!n->alive) return fail(node_desc(n) + " is linked but marked removed");
      if (n->graph != g) return fail(node_desc(n) + " has the wrong owning graph");
      for (uint32_t i = 0; i < n->inputs.size; ++i) {
        Value* v = n->inputs[i];
        if (!v) continue;
        if (!visible.count(v))
          return fail(node_desc(n) + " reads '" + name(v) + "' before it is defined");
        bool found = false;
        for (const Use& u : v->uses) found |= (u.node == n && u.index == i);
        if (!found) return fail("use list of '" + name(v) + "' misses " + node_desc(n));
      }
      for (Attribute& a : n->attributes) {
        if (a.g && !check_graph(a.g, visible)) return false;
        for (Graph* s : a.graphs)
          if (!check_graph(s, visible)) return false;
      }
      for (uint32_t i = 0; i < n->outputs.size; ++i) {
        Value* v = n->outputs[i];
        if (!v) continue;
        if (v->producer != n || v->producer_output != i)
          return fail("output '" + name(v) + "' of " + node_desc(n) + " names another producer");
        if (!define(v)) return false;
      }
    }
    if (count != g->node_count) return fail("graph node count is stale");
    for (Value* v : added)
      for (const Use& u : v->uses)
        if (!u.node->alive || u.index >= u.node->inputs.size || u.node->inputs[u.index] != v)
          return fail("use list of '" + name(v) + "' names a node that does not read it");
    for (ValueInfo& vi : g->outputs)
      if (!visible.count(vi.value)) return fail("graph output '" + name(vi.value) + "' is not defined");
    for (Value* v : added) visible.erase(v);
    return true;
  }
};

}  // namespace

std::string check_consistency(Model& m) {
  Checker c{m, {}};
  std::unordered_set<Value*> visible;
  c.check_graph(m.graph, visible);
  for (Function* f : m.functions) {
    std::unordered_set<Value*> fv;
    if (!c.check_graph(f->body, fv)) break;
  }
  return c.error;
}

namespace {
// Returns the values g (and its subgraphs) read that g does not define.
void collect_captures(Graph* g, std::unordered_set<Value*>& outer_reads) {
  std::unordered_set<Value*> defined, reads;
  for (ValueInfo& vi : g->inputs) defined.insert(vi.value);
  for (Value* v : g->initializers) defined.insert(v);
  for (Node* n = g->first; n; n = n->next) {
    for (Value* v : n->outputs) if (v) defined.insert(v);
    for (Value* v : n->inputs) if (v) reads.insert(v);
    for (Attribute& a : n->attributes) {
      if (a.g) collect_captures(a.g, reads);
      for (Graph* s : a.graphs) collect_captures(s, reads);
    }
  }
  for (ValueInfo& vi : g->outputs) reads.insert(vi.value);
  g->captures.clear();
  std::vector<Value*> ordered;
  for (Value* v : reads) if (!defined.count(v)) ordered.push_back(v);
  // Deterministic order: by name.
  std::sort(ordered.begin(), ordered.end(), [&](Value* a, Value* b) { return g->model->str(a->name) < g->model->str(b->name); });
  for (Value* v : ordered) {
    g->captures.push(g->model->arena, v);
    outer_reads.insert(v);
  }
}
}  // namespace

void append_subgraph_captures(Node* n, std::vector<Value*>& out) {
  for (Attribute& a : n->attributes) {
    auto add = [&](Graph* sub) {
      for_each_graph(sub, [&](Graph* s) { out.insert(out.end(), s->captures.begin(), s->captures.end()); });
    };
    if (a.g) add(a.g);
    for (Graph* s : a.graphs) add(s);
  }
}

void recompute_captures(Graph* g) {
  std::unordered_set<Value*> outer;
  if (g->parent) return collect_captures(g, outer);
  // A top-level graph (the main graph, a function body) has no enclosing scope to read from:
  // every value it reads is defined in it, so only its subgraphs need their captures found.
  g->captures.clear();
  for (Node* n = g->first; n; n = n->next)
    for (Attribute& a : n->attributes) {
      if (a.g) collect_captures(a.g, outer);
      for (Graph* s : a.graphs) collect_captures(s, outer);
    }
}

Tensor* make_tensor(Model& m, int32_t dtype, const int64_t* dims, size_t rank, const void* data,
                    size_t nbytes) {
  uint8_t* bytes = static_cast<uint8_t*>(m.arena.allocate(nbytes ? nbytes : 1, 64));
  if (nbytes) std::memcpy(bytes, data, nbytes);
  return make_tensor_view(m, dtype, dims, rank, Bytes{bytes, nbytes});
}

Tensor* make_tensor_view(Model& m, int32_t dtype, const int64_t* dims, size_t rank, Bytes data) {
  Tensor* t = m.arena.make<Tensor>();
  t->data_type = dtype;
  t->has_data_type = true;
  t->storage = Tensor::kRaw;
  t->dims.data = m.arena.copy_array(dims, rank);
  t->dims.size = static_cast<uint32_t>(rank);
  t->data = data;
  return t;
}

Tensor* make_computed_tensor(Model& m, int32_t dtype, const int64_t* dims, size_t rank, size_t nbytes,
                             const TensorRecipe* recipe) {
  Tensor* t = make_tensor_view(m, dtype, dims, rank, Bytes{nullptr, nbytes});
  t->recipe = recipe;
  return t;
}

Type* make_tensor_type(Model& m, int32_t elem_type, const int64_t* dims, size_t rank) {
  Type* t = m.arena.make<Type>();
  t->kind = Type::kTensor;
  t->elem_type = elem_type;
  t->has_elem_type = true;
  if (dims) {
    t->has_shape = true;
    t->dims.data = m.arena.make_array<Dim>(rank);
    t->dims.size = static_cast<uint32_t>(rank);
    for (size_t i = 0; i < rank; ++i) {
      if (dims[i] >= 0) {
        t->dims[i].value = dims[i];
        t->dims[i].has_value = true;
      }
    }
  }
  return t;
}

}  // namespace ofg
