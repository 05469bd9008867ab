// The pipeline and its C ABI on the built-in demo model.
#include <string>

#include "exec/infer_types.h"
#include "ir/demo_model.h"
#include "onnxforge.h"
#include "passes/pipeline.h"
#include "api/handles.h"
#include "passes_test_util.h"
#include "passes_verify_util.h"
#include "support/c_api_support.h"

TEST(PassPipeline, DemoReachesAFixedPoint) {
  auto m = make_demo_model();
  passes::PipelineOptions o;
  o.check_each_pass = true;
  passes::PipelineReport r = passes::optimize(m, o);
  EXPECT_EQ(check_consistency(*m), "");
  for (const char* op : {"BatchNormalization", "Identity", "Dropout", "Transpose", "Constant", "MatMul"})
    EXPECT_EQ(count_op(m->graph, op), 0) << op;
  EXPECT_EQ(count_op(m->graph, "Gemm"), 2);
  EXPECT_LT(r.nodes_after, r.nodes_before);
  EXPECT_LE(r.iterations, o.max_iterations);
  EXPECT_EQ(m->str(m->graph->outputs[0].value->name), "logits");
  // A second run finds nothing.
  passes::PipelineReport again = passes::optimize(m, o);
  EXPECT_EQ(again.iterations, 1);
  EXPECT_EQ(again.nodes_after, again.nodes_before);
}

TEST(PassPipeline, CAbiListsRunsAndReports) {
  ASSERT_GT(ofg_pass_count(), 10u);
  EXPECT_EQ(ofg_pass_name(ofg_pass_count()), nullptr);
  EXPECT_EQ(ofg_pass_class(ofg_pass_count()), -1);
  ofg_model* m = test::demo_model();
  ASSERT_NE(m, nullptr);
  ofg_pass_report* rep = nullptr;
  EXPECT_EQ(ofg_run_pass(m, "no_such_pass", nullptr, &rep), OFG_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(rep, nullptr);
  ofg_options* o = nullptr;
  ASSERT_EQ(ofg_options_create(&o), OFG_OK);
  // Pass names are checked when the option is set.
  test::expect_option_refused(o, "optimize.skip", "fuse_conv_batchnorm,nope", "nope");
  ASSERT_EQ(ofg_options_set(o, "optimize.skip", "fuse_conv_batchnorm"), OFG_OK);
  ASSERT_EQ(ofg_options_set(o, "optimize.input_shapes", "image=1,3,16,16"), OFG_OK);
  ASSERT_EQ(ofg_optimize(m, o, &rep), OFG_OK);
  size_t count = 0;
  ASSERT_EQ(ofg_pass_report_count(rep, &count), OFG_OK);
  EXPECT_GT(count, 0u);
  for (size_t i = 0; i < count; ++i) {
    ofg_pass_entry e{};
    e.struct_size = sizeof e;
    ASSERT_EQ(ofg_pass_report_entry(rep, i, &e), OFG_OK);
    EXPECT_STRNE(e.name, "fuse_conv_batchnorm");
    EXPECT_EQ(e.rolled_back, 0);
  }
  int64_t before = 0, after = 0;
  ASSERT_EQ(ofg_pass_report_totals(rep, &before, &after, nullptr, nullptr, nullptr, nullptr), OFG_OK);
  EXPECT_LT(after, before);
  std::string json = ofg_pass_report_json(rep);
  EXPECT_NE(json.find("\"passes\":["), std::string::npos);
  ofg_pass_report_free(rep);
  int64_t dim = 0;
  ASSERT_EQ(ofg_model_io_dim(m, OFG_INPUT, 0, 0, &dim, nullptr), OFG_OK);
  EXPECT_EQ(dim, 1);
  size_t bn = 0;
  ofg_model_op_histogram_count(m, &bn);
  ASSERT_EQ(ofg_options_set(o, "optimize.input_shapes", "image=1,3"), OFG_OK);
  EXPECT_EQ(ofg_optimize(m, o, nullptr), OFG_ERR_INVALID_ARGUMENT);  // rank mismatch
  ofg_options_free(o);
  ofg_model_free(m);
}

// Inference shared through run_pass is kept across a pass that changes nothing and made again
// after one that changes the graph, whether it counts the change or not (a kept result would not
// know the values the pass added).
Value* added_relu;
void add_relu(passes::PassContext& ctx) {
  GraphBuilder b(ctx.m);
  added_relu = b.op("Relu", {ctx.m.graph->outputs[0].value});
}
void add_relu_counted(passes::PassContext& ctx) {
  add_relu(ctx);
  ++ctx.changes;
}
void change_nothing(passes::PassContext& ctx) { ctx.inferred_types(); }

TEST(PassPipeline, TypeCacheIsKeptOnlyWhileNothingChanges) {
  auto m = make_demo_model();
  passes::TypeCache types;
  const exec::TypeInference* first = &types.get(*m);
  EXPECT_EQ(&types.get(*m), first);
  const passes::PassInfo nothing{"nothing", "", 0, false, change_nothing};
  EXPECT_EQ(passes::run_pass(*m, nothing, nullptr, &types).changes, 0);
  EXPECT_EQ(&types.get(*m), first);
  for (passes::PassFn fn : {add_relu_counted, add_relu}) {
    const passes::PassInfo adds{"adds", "", 0, false, fn};
    passes::run_pass(*m, adds, nullptr, &types);
    EXPECT_NE(types.get(*m).type_of(added_relu), nullptr);
  }
}

// optimize.fold_budget reaches constant folding: a weight read as it is by Gather and transposed
// by MatMul (a tied embedding) keeps its Transpose under the default budget (folding would add
// the 16 KiB transposed copy) and loses it when the budget allows the copy.
TEST(PassPipeline, FoldBudgetOptionFoldsATiedWeightsTranspose) {
  auto build = [] {
    auto m = new_model(17);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, {1, 64});
    Value* ids = b.input("ids", kInt64, {1});
    std::vector<float> w(64 * 64);
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 7) - 3.0f;
    Value* wv = b.initializer("w", {64, 64}, w);
    b.output(b.op("Gather", {wv, ids}, {}, "emb"));
    b.output(b.op("MatMul", {x, b.op("Transpose", {wv}, {b.ints("perm", {1, 0})})}, {}, "logits"));
    return m;
  };
  for (const char* budget : {static_cast<const char*>(nullptr), "100000"}) {
    SCOPED_TRACE(budget ? budget : "default");
    auto* h = new ofg_model;  // the handle ofg_load would make, around the model built here
    h->model = build();
    ofg_options* o = nullptr;
    ASSERT_EQ(ofg_options_create(&o), OFG_OK);
    if (budget) ASSERT_EQ(ofg_options_set(o, "optimize.fold_budget", budget), OFG_OK);
    ASSERT_EQ(ofg_optimize(h, o, nullptr), OFG_OK);
    EXPECT_EQ(count_op(h->model->graph, "Transpose"), budget ? 0 : 1);
    EXPECT_EQ(count_op(h->model->graph, "MatMul"), 1);
    if (budget) {
      auto reference = build();
      expect_same_outputs(*reference, *h->model);
    }
    EXPECT_EQ(ofg_options_set(o, "optimize.fold_budget", "-1"), OFG_ERR_INVALID_ARGUMENT);
    ofg_options_free(o);
    ofg_model_free(h);
  }
}

// tf2onnx writes Resize(x, roi, scales, Concat(Slice(Shape(x)), Slice(Shape(x)) * 2)): once one
// chain folds, the Resize's output shape must be known for the next chain to fold in the same
// optimize run (Resize's type rule reads the constant sizes).
TEST(PassPipeline, ChainedResizeSizesAllFold) {
  auto build = [] {
    auto m = new_model(11);
    GraphBuilder b(*m);
    Value* cur = b.input("x", kFloat, {1, 2, 3, 3});
    Value* s0 = b.initializer_i64("s0", {1}, {0});
    Value* s2 = b.initializer_i64("s2", {1}, {2});
    Value* s4 = b.initializer_i64("s4", {1}, {4});
    Value* two = b.initializer_i64("two", {2}, {2, 2});
    Value* roi = b.initializer("roi", {0}, {});
    Value* scales = b.initializer("scales", {0}, {});
    for (int i = 0; i < 3; ++i) {
      Value* sh = b.op("Shape", {cur});
      Value* nc = b.op("Slice", {sh, s0, s2});
      Value* hw = b.op("Mul", {b.op("Slice", {sh, s2, s4}), two});
      Value* sizes = b.op("Concat", {nc, hw}, {b.i("axis", 0)});
      cur = b.op("Relu", {b.op("Resize", {cur, roi, scales, sizes}, {b.s("mode", "nearest")})});
    }
    b.output(cur);
    return m;
  };
  auto m = build();
  passes::PipelineOptions o;
  o.check_each_pass = true;
  passes::optimize(m, o);
  for (const char* op : {"Shape", "Slice", "Concat", "Mul"}) EXPECT_EQ(count_op(m->graph, op), 0) << op;
  EXPECT_EQ(count_op(m->graph, "Resize"), 3);
  auto reference = build();
  expect_same_outputs(*reference, *m);
}
