// Rewrites as rules: a rule names the op types it starts from and the opset range it is valid in
// (in its table entry, not inside its body), a read-only `match` that says what it would change
// or why it declines, and an `apply` step (returned by match) that edits the graph.
// A pattern pass is a named group of rules (a RuleGroup); the pipeline runs it like any pass (same
// name, position, accuracy class, per-pass verification and rollback) and the rule driver
// (rule_driver.cpp) hands each rule the nodes of its op types from an index of the model's nodes
// built by one walk and kept while no pass changes the graph.
#pragma once
#include <iterator>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "passes/pass.h"

namespace ofg::exec {
class TypeInference;
}

namespace ofg::passes {

// What a rule's match sees: the model read-only, plus the type inference the pass context keeps.
class RuleCtx {
 public:
  explicit RuleCtx(PassContext& ctx) : m(ctx.m), ctx_(ctx) {}
  const Model& m;
  // Inference of the model (computed on first use, as PassContext::inferred_types).
  const exec::TypeInference& types() const { return ctx_.inferred_types(); }
  // Rank of v as inference finds it; -1 when unknown (inferred_rank in util.h).
  int rank(const Value* v) const;
  int64_t opset() const { return m.opset_version(""); }

 private:
  PassContext& ctx_;
};

// The outcome of a match: either `declined` (a static text saying why) or a description of the
// change and the edit that makes it.
struct RuleMatch {
  const char* declined = nullptr;
  std::string what;
  // Makes the change; returns the number of changes made (0: it found the edit impossible after
  // all and changed nothing, e.g. bypass refusing to rename a graph output).
  std::function<int64_t(PassContext&)> apply;

  static RuleMatch decline(const char* why) {
    RuleMatch r;
    r.declined = why;
    return r;
  }
  static RuleMatch rewrite(std::string what, std::function<int64_t(PassContext&)> apply) {
    RuleMatch r;
    r.what = std::move(what);
    r.apply = std::move(apply);
    return r;
  }
};

using MatchFn = RuleMatch (*)(const RuleCtx&, Graph* g, Node* n);

constexpr int kMaxRuleOps = 4;
constexpr int64_t kNoOpsetLimit = INT64_MAX;

struct Rule {
  const char* name;
  const char* op_types[kMaxRuleOps];  // the ops a match starts from (unused entries null)
  const char* domain;                 // "" = the default ONNX domain (of the ops and of the range)
  int64_t since;                      // the model's opset of `domain` must be in [since, until]
  int64_t until;
  MatchFn match;
  // The op the rewrite produces when that op is what `since` waits for (LayerNormalization from
  // 17): below the range the driver records "opset N has no X: use --target-opset M" once per
  // pass. Null: the range only picks the rule's form (a legacy form beside a current one).
  const char* needs_op = nullptr;
};

// A pattern pass: its rules, tried in table order on each node (the first that rewrites the node
// wins; the driver then moves on to the next node).
struct RuleGroup {
  const Rule* rules;
  size_t count;
};

// Defines the rule group `group` (declared by passes/registry.cpp) from its rules in table order:
//   OFG_RULE_GROUP(fuse_gelu_rules, {"erf_gelu", {"Erf"}, "", 20, kNoOpsetLimit, match_gelu});
#define OFG_RULE_GROUP(group, ...)                    \
  static const Rule group##_table[] = {__VA_ARGS__}; \
  extern const RuleGroup group;                      \
  const RuleGroup group = {group##_table, std::size(group##_table)}

// Why a rule left a node alone (the report's "not_applied"). `node` is the node's label as
// RewriteRecord::node spells it ("" for a decline of the whole pass, e.g. the model's opset is
// below the rule's range); `op` the op the rule starts from.
struct Decline {
  const char* rule;
  StrId node_name;
  std::string reason;
  const char* pass = "";
  std::string node;
  std::string op;
};

// One rewrite made by the pipeline, in order (the budget counts these).
struct RewriteRecord {
  std::string pass;
  std::string rule;  // "" for a whole-graph pass, which counts as one rewrite when it changes anything
  std::string node;  // the node the rule started from (its name, or "#k" for an unnamed node)
  std::string op;
  std::string what;
};

// The pipeline-wide rewrite budget (optimize.max_rewrites) and the list of rewrites made.
struct RewriteBudget {
  int64_t limit = -1;  // < 0: unlimited
  int64_t used = 0;
  bool log = false;    // keep `records`
  std::vector<RewriteRecord> records;
  bool spent() const { return limit >= 0 && used >= limit; }
};

// Nodes of the model by (domain, op type), in walk order (graphs parents first, each graph in node
// order): built by one walk, valid until the graph changes.
class RuleIndex {
 public:
  void build(const Model& m);
  bool valid() const { return valid_; }
  void invalidate();
  // The nodes of any of the op types (default or given domain), merged into walk order.
  void nodes_of(const Model& m, const char* domain, const std::vector<const char*>& ops,
                std::vector<Node*>& out) const;
  static int64_t builds();  // index walks made by this process (for tests and the walk count)
  int64_t own_builds() const { return own_builds_; }  // walks made by this index

 private:
  struct Entry {
    uint32_t seq;
    Node* node;
  };
  bool valid_ = false;
  int64_t own_builds_ = 0;
  std::vector<std::pair<uint64_t, std::vector<Entry>>> by_key_;  // (domain << 32 | op) -> nodes
};

// Runs the group's rules on ctx.m (index from ctx.index when given and valid, else built).
void run_rules(PassContext& ctx, const RuleGroup& group);

}  // namespace ofg::passes
