// The pipeline and its C ABI on the built-in demo model.
#include <string>

#include "exec/infer_types.h"
#include "ir/demo_model.h"
#include "onnxforge.h"
#include "passes/pipeline.h"
#include "passes_test_util.h"
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
