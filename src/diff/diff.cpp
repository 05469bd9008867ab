// The node matcher of the diff, and the comparison of graph inputs, outputs, initializers, opsets
// and op counts.
#include "diff/diff.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "diff/describe.h"
#include "ir/ir.h"

namespace ofg::diff {
namespace {

constexpr size_t kNone = SIZE_MAX;

// One model's main graph, indexed.
struct Side {
  const Model& m;
  std::vector<const Node*> nodes;  // graph order
  std::unordered_map<std::string, size_t> by_name;  // first node of each name
  std::unordered_map<std::string, const Value*> values;  // inputs, initializers, node outputs
  std::unordered_map<const Node*, size_t> index;

  explicit Side(const Model& model) : m(model) {
    const Graph* g = m.graph;
    if (!g) return;
    for (const ValueInfo& vi : g->inputs) add_value(vi.value);
    for (const Value* v : g->initializers) add_value(v);
    for (const Node* n = g->first; n; n = n->next) {
      if (!n->alive) continue;
      index[n] = nodes.size();
      std::string name(m.str(n->name));
      if (!name.empty()) by_name.emplace(name, nodes.size());
      nodes.push_back(n);
      for (const Value* v : n->outputs) add_value(v);
    }
  }
  void add_value(const Value* v) {
    if (v && v->name != kNoStr) values.emplace(std::string(m.str(v->name)), v);
  }
  std::string name(const Value* v) const { return v ? std::string(m.str(v->name)) : std::string(); }
  // The node a report names: by name, else "#k" for the k-th node when that one has no name.
  size_t find(const std::string& name) const {
    auto it = by_name.find(name);
    if (it != by_name.end()) return it->second;
    if (name.size() < 2 || name[0] != '#' || name.find_first_not_of("0123456789", 1) != std::string::npos || name.size() > 12)
      return kNone;
    size_t k = std::stoull(name.substr(1));
    return k < nodes.size() && nodes[k]->name == kNoStr ? k : kNone;
  }
  NodeRef ref(size_t i) const { return {std::string(m.str(nodes[i]->name)), op_key(m, *nodes[i]), i}; }
};

class Matcher {
 public:
  Matcher(const Model& a, const Model& b, const Provenance* p, const Provenance* f, Result& out)
      : A(a), B(b), prov(p), folded(f), r(out) {
    a_pair.assign(A.nodes.size(), kNone);
    a_listed.assign(A.nodes.size(), 0);
    a_absorbed.assign(A.nodes.size(), false);
    b_pair.assign(B.nodes.size(), kNone);
    b_how.assign(B.nodes.size(), nullptr);
    b_done.assign(B.nodes.size(), false);
    b_new.assign(B.nodes.size(), false);
  }

  void run() {
    r.with_provenance = prov != nullptr;
    r.a_nodes = A.nodes.size();
    r.b_nodes = B.nodes.size();
    // Values under one name in both models are the same value until a match says otherwise.
    for (const auto& [name, bv] : B.values)
      if (auto it = A.values.find(name); it != A.values.end()) b2a[bv] = it->second;
    if (prov) match_provenance();
    match_output_names();
    match_structure();
    infer_fusions();
    for (size_t i = 0; i < B.nodes.size(); ++i)
      if (!b_done[i]) r.added.push_back(B.ref(i));
    for (size_t i = 0; i < A.nodes.size(); ++i)
      if (a_pair[i] == kNone && !a_listed[i] && !a_absorbed[i]) r.removed.push_back(A.ref(i));
    // Pairs are compared last, when every value correspondence is known.
    for (size_t bi = 0; bi < B.nodes.size(); ++bi)
      if (b_pair[bi] != kNone) compare_pair(b_pair[bi], bi);
  }

 private:
  Side A, B;
  const Provenance* prov;
  const Provenance* folded;
  Result& r;
  std::vector<size_t> a_pair, b_pair;  // one-to-one partners
  std::vector<int> a_listed;           // how many B nodes name the A node in the provenance
  std::vector<bool> a_absorbed;        // A nodes in a "folded" group or given to a fused B node by infer_fusions
  std::vector<const char*> b_how;
  std::vector<bool> b_done;            // matched one way or another
  std::vector<bool> b_new;             // listed by the provenance with no origin: added, not matched
  std::unordered_map<const Value*, const Value*> b2a;  // B value -> the A value it stands for

  void pair(size_t ai, size_t bi, const char* how) {
    a_pair[ai] = bi;
    b_pair[bi] = ai;
    b_how[bi] = how;
    b_done[bi] = true;
    const Node* a = A.nodes[ai];
    const Node* b = B.nodes[bi];
    for (uint32_t k = 0; k < a->outputs.size && k < b->outputs.size; ++k)
      if (a->outputs[k] && b->outputs[k]) b2a[b->outputs[k]] = a->outputs[k];
  }

  // The value a fused B node stands for: the one output of its origins that is read outside them
  // (or is a graph output), when there is exactly one.
  const Value* group_exit(const std::vector<size_t>& origins) const {
    std::set<const Node*> inside;
    for (size_t ai : origins) inside.insert(A.nodes[ai]);
    const Value* exit = nullptr;
    for (size_t ai : origins)
      for (const Value* v : A.nodes[ai]->outputs) {
        if (!v) continue;
        bool outside = v->is_graph_output();
        for (const Use& u : v->uses) outside = outside || !inside.count(u.node);
        if (!outside) continue;
        if (exit) return nullptr;
        exit = v;
      }
    return exit;
  }

  void match_provenance() {
    std::set<std::string> unknown_a;
    std::vector<std::vector<size_t>> origins(B.nodes.size());
    std::vector<bool> listed(B.nodes.size(), false);
    for (const auto& [bname, anames] : *prov) {
      size_t bi = B.by_name.count(bname) ? B.by_name.at(bname) : kNone;
      if (bi == kNone) {
        r.unknown_b.push_back(bname);
        continue;
      }
      listed[bi] = true;
      for (const std::string& an : anames) {
        size_t ai = A.find(an);
        if (ai == kNone) {
          unknown_a.insert(an);
          continue;
        }
        if (std::find(origins[bi].begin(), origins[bi].end(), ai) == origins[bi].end()) origins[bi].push_back(ai);
      }
      std::sort(origins[bi].begin(), origins[bi].end());
      for (size_t ai : origins[bi]) ++a_listed[ai];
    }
    // A nodes folded into an initializer that no B node came from: folded, not removed.
    if (folded)
      for (const auto& [init, anames] : *folded) {
        NodeGroup g{{init, "initializer", 0}, {}, "provenance"};
        for (const std::string& an : anames) {
          size_t ai = A.find(an);
          if (ai == kNone) {
            unknown_a.insert(an);
          } else if (!a_listed[ai] && !a_absorbed[ai]) {
            a_absorbed[ai] = true;
            g.many.push_back(A.ref(ai));
          }
        }
        if (!g.many.empty()) r.folded.push_back(std::move(g));
      }
    r.unknown_a.assign(unknown_a.begin(), unknown_a.end());
    // A nodes several B nodes name as their only origin were split (decomposed).
    std::map<size_t, std::vector<size_t>> splits;
    for (size_t bi = 0; bi < B.nodes.size(); ++bi) {
      if (!listed[bi]) continue;  // left to the fallbacks
      if (origins[bi].empty()) {  // made by a pass from nothing in A
        b_new[bi] = true;
        continue;
      }
      b_done[bi] = true;
      ++r.by_provenance;
      const std::vector<size_t>& o = origins[bi];
      if (o.size() == 1 && a_listed[o[0]] == 1) {
        pair(o[0], bi, "provenance");
      } else if (o.size() == 1) {
        splits[o[0]].push_back(bi);
      } else {
        NodeGroup g{B.ref(bi), {}, "provenance"};
        for (size_t ai : o) g.many.push_back(A.ref(ai));
        r.fused.push_back(std::move(g));
        const Node* b = B.nodes[bi];
        if (b->outputs.size == 1 && b->outputs[0])
          if (const Value* exit = group_exit(o)) b2a[b->outputs[0]] = exit;
      }
    }
    for (const auto& [ai, bs] : splits) {
      NodeGroup g{A.ref(ai), {}, "provenance"};
      for (size_t bi : bs) g.many.push_back(B.ref(bi));
      r.split.push_back(std::move(g));
    }
  }

  bool a_free(size_t ai) const { return a_pair[ai] == kNone && !a_listed[ai] && !a_absorbed[ai]; }

  // A B node that writes a value under a name an A node writes too stands for that A node.
  void match_output_names() {
    for (size_t bi = 0; bi < B.nodes.size(); ++bi) {
      if (b_done[bi] || b_new[bi]) continue;
      for (const Value* bv : B.nodes[bi]->outputs) {
        auto it = bv ? A.values.find(B.name(bv)) : A.values.end();
        if (it == A.values.end() || !it->second->producer) continue;
        auto ai = A.index.find(it->second->producer);
        if (ai == A.index.end() || !a_free(ai->second)) continue;
        pair(ai->second, bi, "output_name");
        ++r.by_output_name;
        break;
      }
    }
  }

  // Op and the identity of each input value: equal keys compute the same op on the same values.
  std::string key(const Model& m, const Node* n, const std::vector<const Value*>& inputs) const {
    std::string k = op_key(m, *n);
    for (const Value* v : inputs) k += "|" + (v ? std::to_string(v->id) : std::string("-"));
    return k;
  }

  std::string attributes(const Model& m, const Node* n) const {
    std::map<std::string, std::string> sorted;
    for (const Attribute& a : n->attributes) sorted[std::string(m.str(a.name))] = attribute_text(m, a);
    std::string s;
    for (const auto& [k, v] : sorted) s += k + "=" + v + ";";
    return s;
  }

  // In graph order, a B node whose inputs all stand for A values is matched to a free A node with
  // the same op on those values (one with the same attributes first); its outputs then stand for
  // that node's outputs, which lets the nodes after it match.
  void match_structure() {
    std::unordered_map<std::string, std::vector<size_t>> free_by_key;
    for (size_t ai = 0; ai < A.nodes.size(); ++ai) {
      if (!a_free(ai)) continue;
      const Node* n = A.nodes[ai];
      free_by_key[key(A.m, n, std::vector<const Value*>(n->inputs.begin(), n->inputs.end()))].push_back(ai);
    }
    for (size_t bi = 0; bi < B.nodes.size(); ++bi) {
      if (b_done[bi] || b_new[bi]) continue;
      const Node* b = B.nodes[bi];
      std::vector<const Value*> mapped;
      bool known = true;
      for (const Value* v : b->inputs) {
        if (!v) {
          mapped.push_back(nullptr);
          continue;
        }
        auto it = b2a.find(v);
        if (it == b2a.end()) {
          known = false;
          break;
        }
        mapped.push_back(it->second);
      }
      if (!known) continue;
      auto it = free_by_key.find(key(B.m, b, mapped));
      if (it == free_by_key.end()) continue;
      std::vector<size_t>& cands = it->second;
      size_t pick = 0;
      std::string battrs = attributes(B.m, b);
      for (size_t k = 0; k < cands.size(); ++k)
        if (attributes(A.m, A.nodes[cands[k]]) == battrs) {
          pick = k;
          break;
        }
      size_t ai = cands[pick];
      cands.erase(cands.begin() + static_cast<std::ptrdiff_t>(pick));
      if (cands.empty()) free_by_key.erase(it);
      pair(ai, bi, "structure");
      ++r.by_structure;
    }
  }

  // Without provenance, a fusion looks like a pair (the B node took the last A node's output name)
  // plus A nodes matched to nothing. The unmatched A nodes upstream of the partner whose outputs
  // only the group reads are taken as fused into the B node, unless the B node reads an unmatched
  // B node.
  void infer_fusions() {
    for (size_t bi = 0; bi < B.nodes.size(); ++bi) {
      size_t partner = b_pair[bi];
      if (partner == kNone || std::string(b_how[bi]) == "provenance") continue;
      // A B node that reads an unmatched B node has work of its own upstream: the unmatched A
      // nodes there are as likely that node's as this one's, so nothing is inferred.
      bool reads_unmatched = false;
      for (const Value* in : B.nodes[bi]->inputs)
        if (in && in->producer && B.index.count(in->producer) && !b_done[B.index.at(in->producer)]) reads_unmatched = true;
      if (reads_unmatched) continue;
      std::set<const Node*> group{A.nodes[partner]};
      std::vector<size_t> members{partner};
      for (bool grew = true; grew;) {
        grew = false;
        for (size_t k = 0; k < members.size(); ++k)
          for (const Value* in : A.nodes[members[k]]->inputs) {
            const Node* p = in ? in->producer : nullptr;
            if (!p || group.count(p)) continue;
            auto it = A.index.find(p);
            if (it == A.index.end() || !a_free(it->second) || a_absorbed[it->second]) continue;
            bool only_group = true;
            for (const Value* v : p->outputs)
              if (v) {
                only_group = only_group && !v->is_graph_output();
                for (const Use& u : v->uses) only_group = only_group && group.count(u.node);
              }
            if (!only_group) continue;
            group.insert(p);
            members.push_back(it->second);
            grew = true;
          }
      }
      if (members.size() == 1) continue;
      std::sort(members.begin(), members.end());
      NodeGroup g{B.ref(bi), {}, "inferred"};
      for (size_t ai : members) {
        g.many.push_back(A.ref(ai));
        if (ai != partner) a_absorbed[ai] = true;
      }
      r.fused.push_back(std::move(g));
      b_pair[bi] = kNone;  // reported as fused, not compared as a pair
    }
  }

  void compare_pair(size_t ai, size_t bi) {
    const Node* a = A.nodes[ai];
    const Node* b = B.nodes[bi];
    std::vector<std::string> ch;
    std::string aop = op_key(A.m, *a), bop = op_key(B.m, *b);
    if (aop != bop) ch.push_back("op " + aop + " -> " + bop);
    std::map<std::string, std::string> aa, ba;
    for (const Attribute& x : a->attributes) aa[std::string(A.m.str(x.name))] = attribute_text(A.m, x);
    for (const Attribute& x : b->attributes) ba[std::string(B.m.str(x.name))] = attribute_text(B.m, x);
    for (const auto& [k, v] : aa) {
      auto it = ba.find(k);
      if (it == ba.end()) ch.push_back("attribute " + k + " removed (was " + shorten(v) + ")");
      else if (it->second != v) ch.push_back("attribute " + k + ": " + shorten(v) + " -> " + shorten(it->second));
    }
    for (const auto& [k, v] : ba)
      if (!aa.count(k)) ch.push_back("attribute " + k + " added: " + shorten(v));
    if (a->inputs.size != b->inputs.size)
      ch.push_back("inputs " + std::to_string(a->inputs.size) + " -> " + std::to_string(b->inputs.size));
    for (uint32_t k = 0; k < a->inputs.size && k < b->inputs.size; ++k) {
      const Value* av = a->inputs[k];
      const Value* bv = b->inputs[k];
      auto it = bv ? b2a.find(bv) : b2a.end();
      const Value* stands_for = it == b2a.end() ? nullptr : it->second;
      if (av == stands_for && (av || !bv)) continue;
      std::string an = av ? A.name(av) : "(none)", bn = bv ? B.name(bv) : "(none)";
      ch.push_back("input " + std::to_string(k) + ": " + an + " -> " + bn + (an == bn ? " (another value)" : ""));
    }
    if (a->outputs.size != b->outputs.size)
      ch.push_back("outputs " + std::to_string(a->outputs.size) + " -> " + std::to_string(b->outputs.size));
    for (uint32_t k = 0; k < a->outputs.size && k < b->outputs.size; ++k) {
      std::string an = A.name(a->outputs[k]), bn = B.name(b->outputs[k]);
      if (an != bn) ch.push_back("output " + std::to_string(k) + ": " + (an.empty() ? "(none)" : an) + " -> " + (bn.empty() ? "(none)" : bn));
    }
    if (ch.empty()) {
      ++r.same;
      return;
    }
    r.changed.push_back({A.ref(ai), B.ref(bi), b_how[bi], std::move(ch)});
  }

 public:
  const std::unordered_map<const Value*, const Value*>& correspondence() const { return b2a; }
};

void diff_io(const Model& am, const Model& bm, const ArenaVec<ValueInfo>& ai, const ArenaVec<ValueInfo>& bi,
             const std::unordered_map<const Value*, const Value*>* b2a, Section& out) {
  auto type_of = [](const ValueInfo& vi) { return vi.type ? vi.type : vi.value ? vi.value->type : nullptr; };
  std::map<std::string, const ValueInfo*> amap, bmap;
  for (const ValueInfo& vi : ai) if (vi.value) amap.emplace(std::string(am.str(vi.value->name)), &vi);
  for (const ValueInfo& vi : bi) if (vi.value) bmap.emplace(std::string(bm.str(vi.value->name)), &vi);
  std::vector<std::pair<std::string, const ValueInfo*>> removed, added;
  for (const auto& [name, a] : amap) {
    auto it = bmap.find(name);
    std::string at = type_text(am, type_of(*a));
    if (it == bmap.end()) {
      removed.emplace_back(name, a);
      continue;
    }
    std::string bt = type_text(bm, type_of(*it->second));
    if (at != bt) out.changed.push_back({name, at, bt, ""});
  }
  for (const auto& [name, b] : bmap)
    if (!amap.count(name)) added.emplace_back(name, b);
  // An output under a new name that is the same value as a removed one was renamed.
  std::set<std::string> renamed_a, renamed_b;
  if (b2a)
    for (const auto& [bn, b] : added) {
      auto it = b2a->find(b->value);
      if (it == b2a->end()) continue;
      for (const auto& [an, a] : removed)
        if (a->value == it->second && !renamed_a.count(an)) {
          out.renamed.push_back({an, bn});
          renamed_a.insert(an);
          renamed_b.insert(bn);
          break;
        }
    }
  for (const auto& [name, a] : removed)
    if (!renamed_a.count(name)) out.removed.push_back({name, type_text(am, type_of(*a)), "", ""});
  for (const auto& [name, b] : added)
    if (!renamed_b.count(name)) out.added.push_back({name, "", type_text(bm, type_of(*b)), ""});
}

// Same element type and shape, and the same elements.
std::string tensor_changes(const Tensor& a, const Tensor& b) {
  std::string ch;
  if (a.data_type != b.data_type) ch += std::string("dtype ") + dtype_name(a.data_type) + " -> " + dtype_name(b.data_type);
  bool same_dims = a.dims.size == b.dims.size && std::equal(a.dims.begin(), a.dims.end(), b.dims.begin());
  if (!same_dims) ch += std::string(ch.empty() ? "" : "; ") + "shape";
  if (ch.empty() && tensor_hash(a) != tensor_hash(b)) ch = "bytes";
  return ch;
}

void diff_initializers(const Model& am, const Model& bm, Section& out) {
  std::map<std::string, const Tensor*> amap, bmap;
  if (am.graph)
    for (const Value* v : am.graph->initializers) amap.emplace(std::string(am.str(v->name)), v->initializer);
  if (bm.graph)
    for (const Value* v : bm.graph->initializers) bmap.emplace(std::string(bm.str(v->name)), v->initializer);
  std::vector<std::pair<std::string, const Tensor*>> removed, added;
  for (const auto& [name, a] : amap) {
    auto it = bmap.find(name);
    if (it == bmap.end()) {
      removed.emplace_back(name, a);
      continue;
    }
    std::string ch = tensor_changes(*a, *it->second);
    if (!ch.empty()) out.changed.push_back({name, tensor_head(*a), tensor_head(*it->second), ch});
  }
  for (const auto& [name, b] : bmap)
    if (!amap.count(name)) added.emplace_back(name, b);
  // Same type, shape and elements under another name: renamed. Hashes only of the tensors left.
  std::multimap<std::string, size_t> by_content;
  for (size_t k = 0; k < removed.size(); ++k)
    by_content.emplace(tensor_head(*removed[k].second) + "#" + std::to_string(tensor_hash(*removed[k].second)), k);
  std::vector<bool> gone(removed.size(), false);
  for (const auto& [name, b] : added) {
    auto it = by_content.find(tensor_head(*b) + "#" + std::to_string(tensor_hash(*b)));
    if (it != by_content.end()) {
      out.renamed.push_back({removed[it->second].first, name});
      gone[it->second] = true;
      by_content.erase(it);
    } else {
      out.added.push_back({name, "", tensor_head(*b), ""});
    }
  }
  for (size_t k = 0; k < removed.size(); ++k)
    if (!gone[k]) out.removed.push_back({removed[k].first, tensor_head(*removed[k].second), "", ""});
}

void diff_opsets(const Model& am, const Model& bm, std::vector<OpsetDiff>& out) {
  std::map<std::string, std::pair<int64_t, int64_t>> v;
  auto domain = [](std::string d) { return d == "ai.onnx" ? std::string() : d; };
  for (const OpsetId& o : am.opsets) v[domain(std::string(am.str(o.domain)))].first = o.version;
  for (const OpsetId& o : bm.opsets) v[domain(std::string(bm.str(o.domain)))].second = o.version;
  for (const auto& [d, ab] : v)
    if (ab.first != ab.second) out.push_back({d, ab.first, ab.second});
}

void diff_op_counts(const Model& am, const Model& bm, std::vector<OpCount>& out) {
  std::map<std::string, std::pair<size_t, size_t>> c;
  for (const Node* n = am.graph ? am.graph->first : nullptr; n; n = n->next)
    if (n->alive) ++c[op_key(am, *n)].first;
  for (const Node* n = bm.graph ? bm.graph->first : nullptr; n; n = n->next)
    if (n->alive) ++c[op_key(bm, *n)].second;
  for (const auto& [op, ab] : c)
    if (ab.first != ab.second) out.push_back({op, ab.first, ab.second});
}

}  // namespace

bool Result::identical() const {
  return changed.empty() && fused.empty() && split.empty() && folded.empty() && added.empty() && removed.empty() && inputs.empty() &&
         outputs.empty() && initializers.empty() && opsets.empty() && op_counts.empty();
}

Result diff_models(const Model& a, const Model& b, const Provenance* provenance, const Provenance* folded) {
  Result r;
  Matcher m(a, b, provenance, folded, r);
  m.run();
  if (a.graph && b.graph) {
    diff_io(a, b, a.graph->inputs, b.graph->inputs, nullptr, r.inputs);
    diff_io(a, b, a.graph->outputs, b.graph->outputs, &m.correspondence(), r.outputs);
  }
  diff_initializers(a, b, r.initializers);
  diff_opsets(a, b, r.opsets);
  diff_op_counts(a, b, r.op_counts);
  return r;
}

}  // namespace ofg::diff
