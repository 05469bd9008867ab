// The rule driver: indexes the model's nodes by (domain, op type) in one walk and runs a rule
// group over the nodes of its op types, in the order a walk of the graphs would meet them (the
// order the pattern passes used when each walked the graph itself, so outputs stay the same).
#include <algorithm>
#include <atomic>

#include "ir/graph_ops.h"
#include "ir/provenance.h"
#include "passes/rule.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {
std::atomic<int64_t> g_index_builds{0};

// Default-domain ops are keyed with kNoStr as their domain ("" and "ai.onnx" alike).
uint64_t key_of(StrId domain, StrId op) { return (static_cast<uint64_t>(domain) << 32) | op; }

StrId domain_key(const Model& m, StrId domain) { return is_default_domain(m, domain) ? kNoStr : domain; }
}  // namespace

int RuleCtx::rank(const Value* v) const { return inferred_rank(ctx_, v); }

int64_t RuleIndex::builds() { return g_index_builds.load(); }

void RuleIndex::invalidate() {
  valid_ = false;
  by_key_.clear();
}

void RuleIndex::build(const Model& m) {
  by_key_.clear();
  ++g_index_builds;
  ++own_builds_;
  uint32_t seq = 0;
  // One walk of every graph, parents first; key lookups go through a small linear table (a graph
  // has a few dozen distinct op types).
  for_each_graph(const_cast<Model&>(m).graph, [&](Graph* g) {
    for (Node* n = g->first; n != nullptr; n = n->next) {
      if (!n->alive) continue;
      uint64_t k = key_of(domain_key(m, n->domain), n->op_type);
      auto it = std::find_if(by_key_.begin(), by_key_.end(), [&](const auto& e) { return e.first == k; });
      if (it == by_key_.end()) {
        by_key_.emplace_back(k, std::vector<Entry>{});
        it = by_key_.end() - 1;
      }
      it->second.push_back({seq++, n});
    }
  });
  valid_ = true;
}

void RuleIndex::nodes_of(const Model& m, const char* domain, const std::vector<const char*>& ops,
                         std::vector<Node*>& out) const {
  out.clear();
  StrId d = (!domain || !*domain) ? kNoStr : m.strings.find(domain);
  std::vector<const std::vector<Entry>*> lists;
  for (const char* name : ops) {
    StrId op = m.strings.find(name);
    if (op == kNoStr || (domain && *domain && d == kNoStr)) continue;  // the model never names it
    uint64_t k = key_of(d, op);
    for (const auto& e : by_key_)
      if (e.first == k) lists.push_back(&e.second);
  }
  if (lists.size() == 1) {
    for (const Entry& e : *lists[0]) out.push_back(e.node);
    return;
  }
  std::vector<Entry> merged;
  for (const auto* l : lists) merged.insert(merged.end(), l->begin(), l->end());
  std::sort(merged.begin(), merged.end(), [](const Entry& a, const Entry& b) { return a.seq < b.seq; });
  for (const Entry& e : merged) out.push_back(e.node);
}

namespace {
bool in_range(const Model& m, const Rule& r) {
  int64_t v = m.opset_version(r.domain ? r.domain : "");
  return v >= r.since && v <= r.until;
}

bool targets(const Model& m, const Rule& r, const Node* n) {
  if (!n->alive) return false;
  bool want_default = !r.domain || !*r.domain;
  if (want_default ? !is_default_domain(m, n->domain) : m.str(n->domain) != r.domain) return false;
  std::string_view op = m.str(n->op_type);
  for (int i = 0; i < kMaxRuleOps && r.op_types[i]; ++i)
    if (op == r.op_types[i]) return true;
  return false;
}

std::string node_label(const Model& m, const Node* n, size_t pos) {
  if (n->name != kNoStr && !m.str(n->name).empty()) return std::string(m.str(n->name));
  return "#" + std::to_string(pos);
}

// Whether any live node of the model is one of the rule's start ops (the index when it is valid,
// else one walk that stops at the first hit).
bool has_start_op(const Model& m, const RuleIndex& index, const Rule& r) {
  std::vector<const char*> ops;
  for (int i = 0; i < kMaxRuleOps && r.op_types[i]; ++i) ops.push_back(r.op_types[i]);
  if (index.valid()) {
    std::vector<Node*> nodes;
    index.nodes_of(m, r.domain, ops, nodes);
    return !nodes.empty();
  }
  bool found = false;
  for_each_graph(const_cast<Model&>(m).graph, [&](Graph* g) {
    for (Node* n = g->first; n != nullptr && !found; n = n->next) found = targets(m, r, n);
  });
  return found;
}

// Rules that wait for a newer opset (Rule::needs_op) and whose start op is in the model: one
// whole-pass decline each, naming the opset that would let them run.
void decline_opset(PassContext& ctx, const RuleGroup& group, const RuleIndex& index) {
  const Model& m = ctx.m;
  for (size_t i = 0; i < group.count; ++i) {
    const Rule& r = group.rules[i];
    int64_t v = m.opset_version(r.domain ? r.domain : "");
    if (!r.needs_op || v >= r.since || !has_start_op(m, index, r)) continue;
    ctx.decline(r.name, nullptr,
                "opset " + std::to_string(v) + " has no " + r.needs_op + ": use --target-opset " + std::to_string(r.since),
                r.op_types[0]);
  }
}
}  // namespace

void PassContext::decline(const char* rule, const Node* n, std::string reason, const char* op) {
  if (!declines) return;
  Decline d{rule, n ? n->name : kNoStr, std::move(reason), pass_name, "", op ? op : ""};
  if (n) {
    // Unnamed: the label names its first output (the driver's own declines say "#k" as rewrites do).
    d.node = n->name != kNoStr && !m.str(n->name).empty() ? std::string(m.str(n->name))
             : n->outputs.size && n->outputs[0] ? "->" + std::string(m.str(n->outputs[0]->name))
                                                : std::string("#?");
    d.op = std::string(m.str(n->op_type));
  }
  declines->push_back(std::move(d));
}

void run_rules(PassContext& ctx, const RuleGroup& group) {
  Model& m = ctx.m;
  // The rules whose opset range holds the model's opset: the others never see a node.
  std::vector<const Rule*> live;
  for (size_t i = 0; i < group.count; ++i)
    if (in_range(m, group.rules[i])) live.push_back(&group.rules[i]);
  if (ctx.declines) decline_opset(ctx, group, ctx.index ? *ctx.index : RuleIndex());
  if (live.empty()) return;
  if (ctx.budget && ctx.budget->spent()) return;
  RuleIndex own;
  RuleIndex& index = ctx.index ? *ctx.index : own;
  if (!index.valid()) index.build(m);
  // Every op type of the live rules, once (a group's rules may share one).
  // A group's rules share one domain (checked by the driver test of every registered group).
  std::vector<const char*> ops;
  const char* domain = live[0]->domain;
  for (const Rule* r : live)
    for (int i = 0; i < kMaxRuleOps && r->op_types[i]; ++i) {
      bool seen = false;
      for (const char* o : ops) seen |= std::string_view(o) == r->op_types[i];
      if (!seen) ops.push_back(r->op_types[i]);
    }
  std::vector<Node*> nodes;
  index.nodes_of(m, domain, ops, nodes);
  RuleCtx rc(ctx);
  size_t pos = 0;
  for (Node* n : nodes) {
    ++pos;
    // The index is from before this group's edits: a node a rule removed or retyped is skipped
    // (the walk each pass made read the op at the time it reached the node).
    for (const Rule* r : live) {
      if (!targets(m, *r, n)) continue;
      RuleMatch mt = r->match(rc, n->graph, n);
      if (mt.declined) {
        if (ctx.declines)
          ctx.declines->push_back({r->name, n->name, mt.declined, ctx.pass_name, node_label(m, n, pos), std::string(m.str(n->op_type))});
        continue;
      }
      if (ctx.budget && ctx.budget->spent()) return;
      RewriteRecord rec;
      if (ctx.budget && ctx.budget->log) {
        rec.pass = ctx.pass_name;
        rec.rule = r->name;
        rec.node = node_label(m, n, pos);
        rec.op = std::string(m.str(n->op_type));
        rec.what = std::move(mt.what);
      }
      int64_t made;
      {
        // Nodes the edit makes stand for n and for the nodes it removes (ir/provenance.h).
        ProvenanceScope scope(m, n);
        made = mt.apply(ctx);
      }
      if (made == 0) {
        if (ctx.declines)
          ctx.declines->push_back({r->name, n->name, "the pattern matched but the edit was refused (e.g. removing it would rename a graph output whose producer has other readers)",
                                   ctx.pass_name, node_label(m, n, pos), std::string(m.str(n->op_type))});
        continue;
      }
      ctx.changes += made;
      if (ctx.budget) {
        ++ctx.budget->used;
        if (ctx.budget->log) ctx.budget->records.push_back(std::move(rec));
      }
      break;  // one rewrite per node per run
    }
  }
}

}  // namespace ofg::passes
