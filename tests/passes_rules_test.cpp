// The rule driver (passes/rule.h): the node index by op type, opset-range gating from the table,
// decline reasons kept, the shape of every registered rule group, and the pipeline-wide rewrite
// budget (optimize.max_rewrites).
#include <string>
#include <vector>

#include "passes/pipeline.h"
#include "passes/rule.h"
#include "passes_test_util.h"

using namespace ofg::passes;
using PassRules = ModelTest;

namespace {

// Rules that only record which nodes they were handed.
std::vector<std::string> g_seen;

RuleMatch note_and_decline(const RuleCtx& rc, Graph*, Node* n) {
  g_seen.push_back(std::string(rc.m.str(n->op_type)) + ":" + std::string(rc.m.str(n->name)));
  return RuleMatch::decline("only watching");
}
RuleMatch old_range(const RuleCtx& rc, Graph*, Node* n) {
  g_seen.push_back("old:" + std::string(rc.m.str(n->name)));
  return RuleMatch::decline("old");
}
RuleMatch new_range(const RuleCtx& rc, Graph*, Node* n) {
  g_seen.push_back("new:" + std::string(rc.m.str(n->name)));
  return RuleMatch::decline("new: declined on purpose");
}
// Rewrites a Neg into an Identity (one change, seen by the budget).
RuleMatch neg_to_identity(const RuleCtx&, Graph*, Node* n) {
  return RuleMatch::rewrite("Neg -> Identity", [n](PassContext& ctx) -> int64_t {
    n->op_type = ctx.m.intern("Identity");
    return 1;
  });
}

const Rule kWatch[] = {{"watch", {"Relu", "Sigmoid"}, "", 1, kNoOpsetLimit, note_and_decline}};
const Rule kRanges[] = {
  {"old_range", {"Relu"}, "", 1, 12, old_range},
  {"new_range", {"Relu"}, "", 13, kNoOpsetLimit, new_range},
};
const Rule kNeg[] = {{"neg_to_identity", {"Neg"}, "", 1, kNoOpsetLimit, neg_to_identity}};

Node* named(GraphBuilder& b, const char* op, Value* x, const char* name) {
  Node* n = b.node(op, {x});
  n->name = b.model().intern(name);
  return n;
}

}  // namespace

// The index hands a rule every node of its op types, subgraphs included, in walk order (graphs
// parents first, nodes in order) with two op types merged, and nothing else.
TEST_F(PassRules, IndexHandsOnlyTheRuleOpsInWalkOrder) {
  Value* x = b.input("x", kFloat, {2});
  Node* r1 = named(b, "Relu", x, "r1");
  Node* n1 = named(b, "Neg", r1->outputs[0], "n1");
  Node* s1 = named(b, "Sigmoid", n1->outputs[0], "s1");
  Graph* then_g = b.subgraph("then");
  {
    GraphBuilder tb(*m, then_g);
    tb.output(named(tb, "Relu", s1->outputs[0], "r_then")->outputs[0]);
  }
  Graph* else_g = b.subgraph("else");
  {
    GraphBuilder eb(*m, else_g);
    eb.output(named(eb, "Sigmoid", s1->outputs[0], "s_else")->outputs[0]);
  }
  Node* iff = if_true(b, then_g, else_g);
  Node* r2 = named(b, "Relu", iff->outputs[0], "r2");
  b.output(r2->outputs[0]);
  recompute_captures(m->graph);
  g_seen.clear();
  PassContext ctx(*m);
  std::vector<Decline> declines;
  ctx.declines = &declines;
  run_rules(ctx, RuleGroup{kWatch, std::size(kWatch)});
  EXPECT_EQ(g_seen, (std::vector<std::string>{"Relu:r1", "Sigmoid:s1", "Relu:r2", "Relu:r_then", "Sigmoid:s_else"}));
  // Every decline is kept with its rule, node and reason.
  ASSERT_EQ(declines.size(), 5u);
  EXPECT_STREQ(declines[0].rule, "watch");
  EXPECT_EQ(m->str(declines[0].node_name), "r1");
  EXPECT_EQ(declines[0].reason, "only watching");
  EXPECT_EQ(ctx.changes, 0);
}

// A rule whose opset range misses the model's opset never sees a node.
TEST_F(PassRules, OpsetRangeGatesRules) {
  Value* x = b.input("x", kFloat, {2});
  b.output(named(b, "Relu", x, "r")->outputs[0]);
  for (int64_t opset : {11, 13}) {
    m->opsets[0].version = opset;
    g_seen.clear();
    std::vector<Decline> declines;
    PassContext ctx(*m);
    ctx.declines = &declines;
    run_rules(ctx, RuleGroup{kRanges, std::size(kRanges)});
    if (opset == 11) {
      EXPECT_EQ(g_seen, std::vector<std::string>{"old:r"});
    } else {
      EXPECT_EQ(g_seen, std::vector<std::string>{"new:r"});
      ASSERT_EQ(declines.size(), 1u);
      EXPECT_EQ(declines[0].reason, "new: declined on purpose");
    }
  }
}

// A shared index is built once and reused while valid; the driver rebuilds it once invalidated.
TEST_F(PassRules, SharedIndexIsOneWalk) {
  Value* x = b.input("x", kFloat, {2});
  b.output(named(b, "Relu", x, "r")->outputs[0]);
  RuleIndex index;
  int64_t before = RuleIndex::builds();
  for (int i = 0; i < 3; ++i) {
    PassContext ctx(*m);
    ctx.index = &index;
    run_rules(ctx, RuleGroup{kWatch, std::size(kWatch)});
  }
  EXPECT_EQ(RuleIndex::builds() - before, 1);
  index.invalidate();
  PassContext ctx(*m);
  ctx.index = &index;
  run_rules(ctx, RuleGroup{kWatch, std::size(kWatch)});
  EXPECT_EQ(RuleIndex::builds() - before, 2);
}

// The budget stops a group after exactly N rewrites and lists them in order.
TEST_F(PassRules, BudgetStopsInsideAGroup) {
  Value* v = b.input("x", kFloat, {2});
  for (const char* name : {"a", "b", "c", "d"}) v = named(b, "Neg", v, name)->outputs[0];
  b.output(v);
  RewriteBudget budget;
  budget.limit = 3;
  budget.log = true;
  PassContext ctx(*m);
  ctx.budget = &budget;
  ctx.pass_name = "test";
  run_rules(ctx, RuleGroup{kNeg, std::size(kNeg)});
  EXPECT_EQ(ctx.changes, 3);
  EXPECT_EQ(budget.used, 3);
  EXPECT_EQ(count_op(m->graph, "Neg"), 1);
  ASSERT_EQ(budget.records.size(), 3u);
  EXPECT_EQ(budget.records[2].node, "c");
  EXPECT_EQ(budget.records[2].rule, "neg_to_identity");
  EXPECT_EQ(budget.records[2].pass, "test");
}

// Every registered rule group: named rules with at least one op type, a non-empty opset range,
// one domain per group (the driver indexes the group under one domain).
TEST(PassRuleTables, EveryGroupIsWellFormed) {
  int groups = 0;
  for (const PassInfo& p : registry()) {
    EXPECT_TRUE((p.run != nullptr) != (p.rules != nullptr)) << p.name;
    if (!p.rules) continue;
    ++groups;
    ASSERT_GT(p.rules->count, 0u) << p.name;
    for (size_t i = 0; i < p.rules->count; ++i) {
      const Rule& r = p.rules->rules[i];
      EXPECT_NE(r.name, nullptr);
      EXPECT_NE(r.op_types[0], nullptr) << r.name;
      EXPECT_LE(r.since, r.until) << r.name;
      EXPECT_STREQ(r.domain, p.rules->rules[0].domain) << r.name;
      EXPECT_NE(r.match, nullptr) << r.name;
    }
  }
  EXPECT_EQ(groups, 19);  // the 19 pattern passes
}

namespace {
// x -> Identity -> Transpose -> Transpose -> Identity -> Identity -> Neg, opset 13: three
// Identity removed by eliminate_identity_ops, then the inverse Transpose pair by
// eliminate_redundant_transposes: four rule rewrites over two passes.
std::unique_ptr<Model> chain_model() {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 3});
  Value* v = b.op("Identity", {x});
  v = b.op("Transpose", {v}, {b.ints("perm", {1, 0})});
  v = b.op("Transpose", {v}, {b.ints("perm", {1, 0})});
  v = b.op("Identity", {v});
  v = b.op("Identity", {v});
  b.output(b.op("Neg", {v}));
  return m;
}
}  // namespace

// Across the pipeline: a budget of N makes exactly N rewrites (for every N up to the total), the
// report lists them, and N = 0 leaves the graph as it was.
TEST(PassRewriteBudget, ExactlyNRewritesAcrossPasses) {
  PipelineOptions all;
  all.list_rewrites = true;
  auto full = chain_model();
  PipelineReport rep_all = optimize(full, all);
  int64_t total = rep_all.rewrites_made;
  ASSERT_EQ(static_cast<int64_t>(rep_all.rewrites.size()), total);
  ASSERT_GE(total, 4);
  // The rewrites come from more than one pass.
  bool two_passes = false;
  for (const RewriteRecord& w : rep_all.rewrites) two_passes |= w.pass != rep_all.rewrites[0].pass;
  EXPECT_TRUE(two_passes);
  EXPECT_EQ(count_op(full->graph, "Identity") + count_op(full->graph, "Transpose"), 0);
  // The last round changes nothing: its 11 rule groups share one index walk, or none when the
  // index built in the round before is still valid (nothing changed after it was built).
  ASSERT_EQ(rep_all.index_walks.size(), static_cast<size_t>(rep_all.iterations));
  EXPECT_LE(rep_all.index_walks.back(), 1);
  int64_t walks = 0;
  for (int64_t w : rep_all.index_walks) walks += w;
  EXPECT_LE(walks, 2 * rep_all.iterations);
  EXPECT_NE(rep_all.to_json().find("\"index_walks_per_round\":["), std::string::npos);
  for (int64_t n = 0; n <= total; ++n) {
    auto m = chain_model();
    int64_t nodes = count_nodes(*m);
    PipelineOptions o;
    o.max_rewrites = n;
    PipelineReport rep = optimize(m, o);
    EXPECT_EQ(rep.rewrites_made, n) << n;
    ASSERT_EQ(static_cast<int64_t>(rep.rewrites.size()), n);
    for (int64_t k = 0; k < n; ++k) {  // the same first n rewrites as the unlimited run
      EXPECT_EQ(rep.rewrites[k].rule, rep_all.rewrites[k].rule) << n << " " << k;
      EXPECT_EQ(rep.rewrites[k].node, rep_all.rewrites[k].node) << n << " " << k;
    }
    if (n == 0) EXPECT_EQ(count_nodes(*m), nodes);
    EXPECT_EQ(check_consistency(*m), "");
    EXPECT_NE(rep.to_json().find("\"rewrites_made\":" + std::to_string(n)), std::string::npos);
  }
}

namespace {
// Add(MatMul(a, b), c) with a of rank `rank_a`, at `opset`.
std::unique_ptr<Model> matmul_add_model(int64_t opset, std::vector<DimSpec> a_dims) {
  auto m = new_model(opset);
  GraphBuilder b(*m);
  Value* a = b.input("a", kFloat, a_dims);
  Value* w = b.initializer("w", {3, 4}, std::vector<float>(12, 1.0f));
  Value* c = b.initializer("c", {4}, {1, 2, 3, 4});
  Value* y = b.op("MatMul", {a, w});
  Node* add = b.node("Add", {y, c});
  add->name = m->intern("the_add");
  b.output(add->outputs[0]);
  return m;
}
}  // namespace

// A real rule: its decline reason is kept; below its opset range it never sees the node.
TEST(PassRuleDeclines, MatMulAddSaysWhyAndIsGatedByOpset) {
  std::vector<Decline> declines;
  PipelineOptions o;
  o.only = {"fuse_matmul_add"};
  o.declines = &declines;
  auto m = matmul_add_model(13, {2, 5, 3});  // 3-D MatMul: Gemm is 2-D only
  EXPECT_EQ(optimize(m, o).rewrites_made, 0);
  ASSERT_FALSE(declines.empty());
  EXPECT_STREQ(declines[0].rule, "matmul_add_to_gemm");
  EXPECT_EQ(m->str(declines[0].node_name), "the_add");
  EXPECT_EQ(declines[0].reason, "the MatMul is not 2-D by 2-D");
  declines.clear();
  auto old = matmul_add_model(6, {5, 3});  // Gemm-7's broadcast is missing: out of the rule's range
  optimize(old, o);
  // Below the range no node is matched: one decline for the whole pass names the opset it needs.
  ASSERT_EQ(declines.size(), 1u);
  EXPECT_EQ(declines[0].node, "");
  EXPECT_EQ(declines[0].reason, "opset 6 has no Gemm with a broadcast bias: use --target-opset 7");
  EXPECT_EQ(count_op(old->graph, "Gemm"), 0);
  auto ok = matmul_add_model(13, {5, 3});
  optimize(ok, o);
  EXPECT_EQ(count_op(ok->graph, "Gemm"), 1);
}

// Rewrites of a pass that verification rolls back are given back to the budget and leave the list.
TEST(PassRewriteBudget, RolledBackRewritesDoNotCount) {
  PipelineOptions o;
  o.list_rewrites = true;
  o.only = {"fuse_matmul_add", "eliminate_identity_ops"};
  // Class 1 fuse_matmul_add always "drifts"; class 0 eliminate_identity_ops is not verified.
  o.verify = [](const Model&, const Model&, std::string& detail) {
    detail = "drift";
    return false;
  };
  auto m = matmul_add_model(13, {5, 3});
  GraphBuilder b(*m);
  Value* extra = b.op("Identity", {m->graph->inputs[0].value});
  b.output(b.op("Neg", {extra}));
  PipelineReport rep = optimize(m, o);
  EXPECT_EQ(count_op(m->graph, "Gemm"), 0);
  ASSERT_EQ(rep.rewrites.size(), 1u);
  EXPECT_EQ(rep.rewrites[0].rule, "identity");
  EXPECT_EQ(rep.rewrites_made, 1);
  bool rolled_back = false;
  for (const PassRecord& r : rep.records) rolled_back |= r.rolled_back && r.name == "fuse_matmul_add";
  EXPECT_TRUE(rolled_back);
}
