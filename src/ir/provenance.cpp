#include "ir/provenance.h"

#include <algorithm>
#include <unordered_set>

#include "ir/graph_ops.h"

namespace ofg {

void seed_provenance(Model& m) {
  if (m.provenance_seeded || !m.graph) return;
  m.provenance_seeded = true;
  uint32_t total = 0;
  for_each_graph(m.graph, [&](Graph* g) { total += g->node_count; });
  // One array for all ids: a node's own origin is a one-element view into it.
  uint32_t* ids = m.arena.make_array<uint32_t>(total);
  m.origin_names.grow(m.arena, total ? total : 1);
  uint32_t k = 0;
  for_each_graph(m.graph, [&](Graph* g) {
    for (Node* n = g->first; n; n = n->next) {
      ids[k] = k;
      n->origins.data = ids + k;
      n->origins.size = 1;
      m.origin_names.push(m.arena, n->name != kNoStr && !m.str(n->name).empty() ? n->name : kNoStr);
      ++k;
    }
  });
}

std::string origin_name(const Model& m, uint32_t id) {
  if (id < m.origin_names.size && m.origin_names[id] != kNoStr) return std::string(m.str(m.origin_names[id]));
  return "#" + std::to_string(id);
}

void add_origins(Model& m, Node* dst, const uint32_t* ids, size_t count) {
  if (!dst || count == 0) return;
  const uint32_t* a = dst->origins.data;
  size_t na = dst->origins.size;
  // Nothing to add when every id is there already (the common case once a node absorbed them).
  bool all_in = true;
  for (size_t i = 0; i < count && all_in; ++i) all_in = std::binary_search(a, a + na, ids[i]);
  if (all_in) return;
  std::vector<uint32_t> b(ids, ids + count);
  std::sort(b.begin(), b.end());
  std::vector<uint32_t> merged;
  merged.reserve(na + b.size());
  std::set_union(a, a + na, b.begin(), b.end(), std::back_inserter(merged));
  merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
  // The old array is left in the arena (it may be shared: seed_provenance's one array).
  dst->origins.data = m.arena.copy_array(merged.data(), merged.size());
  dst->origins.size = static_cast<uint32_t>(merged.size());
}

namespace {
void add_folded(Model& m, const Value* v, const uint32_t* ids, size_t count) {
  if (!v || count == 0 || v->name == kNoStr) return;
  std::vector<uint32_t>& f = m.folded_origins[v->name];
  f.insert(f.end(), ids, ids + count);
  std::sort(f.begin(), f.end());
  f.erase(std::unique(f.begin(), f.end()), f.end());
}

const std::vector<uint32_t>* folded_of(const Model& m, const Value* v) {
  if (!v || m.folded_origins.empty()) return nullptr;
  auto it = m.folded_origins.find(v->name);
  return it == m.folded_origins.end() ? nullptr : &it->second;
}
}  // namespace

void record_folded(Model& m, const Value* v, const Node* from) {
  if (!from) return;
  add_folded(m, v, from->origins.data, from->origins.size);
  for (const Value* in : from->inputs)
    if (const std::vector<uint32_t>* f = folded_of(m, in)) {
      std::vector<uint32_t> copy = *f;  // add_folded may rehash the map entry f points into
      add_folded(m, v, copy.data(), copy.size());
    }
}

void hand_over_origins(Model& m, const Value* from, const Value* to) {
  if (!from || !to || from == to) return;
  std::vector<uint32_t> ids;
  if (from->producer && from->producer != to->producer)
    ids.assign(from->producer->origins.begin(), from->producer->origins.end());
  if (const std::vector<uint32_t>* f = folded_of(m, from)) ids.insert(ids.end(), f->begin(), f->end());
  if (ids.empty()) return;
  if (to->producer && !to->initializer) {
    add_origins(m, to->producer, ids.data(), ids.size());
    if (m.provenance_scope) m.provenance_scope->receivers.push_back(to->producer);
  }
  else if (to->initializer) add_folded(m, to, ids.data(), ids.size());
}

ProvenanceScope::ProvenanceScope(Model& model, Node* a) : m(model), anchor(a), outer(model.provenance_scope) {
  m.provenance_scope = this;
}

namespace {
// The nodes a rewrite left dead: alive, every output unread (but by other such nodes) and no graph
// output; found from the producers of values that lost their last reader, walking up.
std::vector<Node*> left_dead(const std::vector<Node*>& orphaned) {
  std::vector<Node*> dead, work(orphaned.rbegin(), orphaned.rend());
  std::unordered_set<const Node*> is_dead;
  while (!work.empty()) {
    Node* d = work.back();
    work.pop_back();
    if (!d->alive || is_dead.count(d)) continue;
    bool unread = true;
    for (const Value* o : d->outputs) {
      if (!o) continue;
      if (o->is_graph_output()) unread = false;
      for (const Use& u : o->uses) unread = unread && is_dead.count(u.node);
    }
    if (!unread) continue;
    is_dead.insert(d);
    dead.push_back(d);
    for (const Value* v : d->inputs)
      if (v && v->producer && v->producer->graph == d->graph) work.push_back(v->producer);
  }
  return dead;
}
}  // namespace

ProvenanceScope::~ProvenanceScope() {
  m.provenance_scope = outer;
  for (Node* d : left_dead(orphaned)) removed.insert(removed.end(), d->origins.begin(), d->origins.end());
  std::vector<uint32_t> all = removed;
  if (anchor) all.insert(all.end(), anchor->origins.begin(), anchor->origins.end());
  for (Node* n : created) add_origins(m, n, all.data(), all.size());
  if (anchor && anchor->alive) add_origins(m, anchor, removed.data(), removed.size());
  for (Node* r : receivers)
    if (r->alive) add_origins(m, r, removed.data(), removed.size());
  // What the enclosing scope's rewrite made or removed includes what this one did.
  if (outer) {
    outer->created.insert(outer->created.end(), created.begin(), created.end());
    outer->removed.insert(outer->removed.end(), removed.begin(), removed.end());
    outer->orphaned.insert(outer->orphaned.end(), orphaned.begin(), orphaned.end());
    outer->receivers.insert(outer->receivers.end(), receivers.begin(), receivers.end());
  }
}

void note_created(Model& m, Node* n) {
  if (m.provenance_scope) m.provenance_scope->created.push_back(n);
}

void note_unused(Model& m, const Value* v) {
  if (ProvenanceScope* s = m.provenance_scope)
    if (v->producer && v->producer->alive && !v->is_graph_output()) s->orphaned.push_back(v->producer);
}

void note_removed(Model& m, const Node* n) {
  if (ProvenanceScope* s = m.provenance_scope) s->removed.insert(s->removed.end(), n->origins.begin(), n->origins.end());
}

}  // namespace ofg
