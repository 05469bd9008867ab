// The pipeline report's "not_applied" (issue 24, "why not"): for each rule group a toy graph made
// to decline, with the pass, the node and the exact reason; whole-pass declines when the model's
// opset is below a fusion's range; one entry per (pass, rule, node, reason) over all rounds; a
// node its pass rewrote later is left out; the JSON carries it; optimize.explain=0 turns it off.
#include <string>
#include <vector>

#include "passes/pipeline.h"
#include "passes_test_util.h"

using namespace ofg::passes;

namespace {

Node* named(Node* n, const char* name) {
  n->name = n->graph->model->intern(name);
  return n;
}

// The report of running only `pass` on m.
PipelineReport run_only(std::unique_ptr<Model>& m, const char* pass) {
  PipelineOptions o;
  o.only = {pass};
  return optimize(m, o);
}

// The reasons the report gives for `node` (all rules of all passes).
std::vector<std::string> reasons(const PipelineReport& r, const std::string& node) {
  std::vector<std::string> out;
  for (const NotApplied& d : r.not_applied)
    if (d.node == node) out.push_back(d.reason);
  return out;
}

// Asserts the report has exactly one entry for (pass, node) and that its reason is `why`.
void expect_decline(const PipelineReport& r, const char* pass, const char* rule, const char* node, const char* op,
                    const char* why) {
  int hits = 0;
  for (const NotApplied& d : r.not_applied) {
    if (d.pass != pass || d.node != node || d.rule != rule) continue;
    ++hits;
    EXPECT_EQ(d.op, op);
    EXPECT_EQ(d.reason, why);
  }
  EXPECT_EQ(hits, 1) << pass << "/" << rule << " on '" << node << "'; the report: " << r.to_json();
}

std::unique_ptr<Model> unary(int64_t opset, const char* op, const char* name, std::vector<DimSpec> dims = {2, 3}) {
  return model_of(opset, [&](GraphBuilder& b) {
    Value* x = b.input("x", kFloat, dims);
    Node* n = named(b.node(op, {x}), name);
    b.output(n->outputs[0]);
  });
}

}  // namespace

TEST(PassNotApplied, InlineConstantIfNeedsAConstantCondition) {
  auto m = model_of(13, [](GraphBuilder& b) {
    Value* c = b.input("c", kBool, {});
    Value* x = b.input("x", kFloat, {2});
    Graph* t = b.subgraph("then");
    GraphBuilder(*b.graph()->model, t).output(GraphBuilder(*b.graph()->model, t).op("Neg", {x}));
    Graph* e = b.subgraph("else");
    GraphBuilder(*b.graph()->model, e).output(GraphBuilder(*b.graph()->model, e).op("Relu", {x}));
    Node* n = named(b.node("If", {c}, 1, {b.g("then_branch", t), b.g("else_branch", e)}), "if0");
    b.output(n->outputs[0]);
  });
  recompute_captures(m->graph);
  expect_decline(run_only(m, "inline_constant_if"), "inline_constant_if", "constant_if", "if0", "If",
                 "the condition is not a constant");
}

TEST(PassNotApplied, IdentityTransposeNeedsTheIdentityPerm) {
  auto m = model_of(13, [](GraphBuilder& b) {
    Value* x = b.input("x", kFloat, {2, 3});
    b.output(named(b.node("Transpose", {x}, 1, {b.ints("perm", {1, 0})}), "t0")->outputs[0]);
  });
  expect_decline(run_only(m, "eliminate_identity_ops"), "eliminate_identity_ops", "identity_transpose", "t0",
                 "Transpose", "perm is not the identity");
}

TEST(PassNotApplied, RedundantTransposesNeedATransposeOrConstantInput) {
  auto m = model_of(13, [](GraphBuilder& b) {
    Value* x = b.input("x", kFloat, {2, 3});
    b.output(named(b.node("Transpose", {x}, 1, {b.ints("perm", {1, 0})}), "t0")->outputs[0]);
  });
  PipelineReport r = run_only(m, "eliminate_redundant_transposes");
  expect_decline(r, "eliminate_redundant_transposes", "transpose_pair", "t0", "Transpose", "the input is not a Transpose");
  expect_decline(r, "eliminate_redundant_transposes", "transpose_of_constant", "t0", "Transpose",
                 "the input is not a constant read only here");
}

TEST(PassNotApplied, ReshapeChainNeedsAConstantShape) {
  auto m = model_of(13, [](GraphBuilder& b) {
    Value* x = b.input("x", kFloat, {2, 3});
    Value* s = b.input("s", kInt64, {2});
    b.output(named(b.node("Reshape", {x, s}), "r0")->outputs[0]);
  });
  expect_decline(run_only(m, "collapse_reshape_chains"), "collapse_reshape_chains", "collapse_reshape_chain", "r0",
                 "Reshape", "the shape is not constant");
}

TEST(PassNotApplied, ReciprocalMulNeedsAOneDividend) {
  auto m = model_of(13, [](GraphBuilder& b) {
    Value* x = b.input("x", kFloat, {2, 3});
    Value* y = b.input("y", kFloat, {2, 3});
    b.output(named(b.node("Div", {x, y}), "d0")->outputs[0]);
  });
  expect_decline(run_only(m, "fold_reciprocal_mul"), "fold_reciprocal_mul", "reciprocal_mul", "d0", "Div",
                 "the dividend is not a constant 1");
}

TEST(PassNotApplied, WeightTransposesNeedATranspose) {
  auto m = model_of(13, [](GraphBuilder& b) {
    Value* a = b.input("a", kFloat, {2, 3});
    Value* w = b.initializer("w", {3, 4}, std::vector<float>(12, 1.0f));
    b.output(named(b.node("Gemm", {a, w}), "g0")->outputs[0]);
  });
  expect_decline(run_only(m, "fold_weight_transposes"), "fold_weight_transposes", "transpose_into_gemm", "g0", "Gemm",
                 "no single-use 2-D Transpose feeds A or B");
}

TEST(PassNotApplied, PadIntoConvNeedsAPad) {
  auto m = model_of(13, [](GraphBuilder& b) {
    Value* x = b.input("x", kFloat, {1, 1, 4, 4});
    Value* w = b.initializer("w", {1, 1, 3, 3}, std::vector<float>(9, 1.0f));
    b.output(named(b.node("Conv", {x, w}), "c0")->outputs[0]);
  });
  expect_decline(run_only(m, "fuse_pad_into_conv"), "fuse_pad_into_conv", "pad11_into_conv", "c0", "Conv",
                 "the data input is not a Pad read only by this Conv");
}

// The issue's own example: the Conv output has a second reader.
TEST(PassNotApplied, ConvBatchNormSaysTheConvHasASecondConsumer) {
  auto m = model_of(13, [](GraphBuilder& b) {
    Value* x = b.input("x", kFloat, {1, 2, 4, 4});
    Value* w = b.initializer("w", {2, 2, 1, 1}, std::vector<float>(4, 1.0f));
    Value* y = b.op("Conv", {x, w});
    std::vector<Value*> in = {y};
    for (const char* p : {"scale", "bias", "mean", "var"}) in.push_back(b.initializer(p, {2}, {1, 1}));
    b.output(named(b.node("BatchNormalization", in), "bn0")->outputs[0]);
    b.output(b.op("Relu", {y}));
  });
  expect_decline(run_only(m, "fuse_conv_batchnorm"), "fuse_conv_batchnorm", "conv_batchnorm", "bn0", "BatchNormalization",
                 "the Conv output has a second consumer besides BatchNormalization (folding would change it for that reader)");
  EXPECT_EQ(count_op(m->graph, "BatchNormalization"), 1);
}

TEST(PassNotApplied, ConvAddMulNeedsAConv) {
  auto m = model_of(13, [](GraphBuilder& b) {
    Value* x = b.input("x", kFloat, {2, 3});
    Value* c = b.initializer("c", {3}, {1, 2, 3});
    b.output(named(b.node("Add", {x, c}), "a0")->outputs[0]);
  });
  expect_decline(run_only(m, "fuse_conv_add_mul"), "fuse_conv_add_mul", "conv_add_mul", "a0", "Add",
                 "no operand is made by a Conv of this graph");
}

// Per node in range; below the rule's opset one entry for the whole pass that names the opset.
TEST(PassNotApplied, MatMulAddNodeReasonAndOpsetReason) {
  auto build = [](int64_t opset, std::vector<DimSpec> a_dims) {
    return model_of(opset, [&](GraphBuilder& b) {
      Value* a = b.input("a", kFloat, a_dims);
      Value* w = b.initializer("w", {3, 4}, std::vector<float>(12, 1.0f));
      Value* c = b.initializer("c", {4}, {1, 2, 3, 4});
      b.output(named(b.node("Add", {b.op("MatMul", {a, w}), c}), "the_add")->outputs[0]);
    });
  };
  auto m = build(13, {2, 5, 3});
  expect_decline(run_only(m, "fuse_matmul_add"), "fuse_matmul_add", "matmul_add_to_gemm", "the_add", "Add",
                 "the MatMul is not 2-D by 2-D");
  auto old = build(6, {5, 3});
  PipelineReport r = run_only(old, "fuse_matmul_add");
  expect_decline(r, "fuse_matmul_add", "matmul_add_to_gemm", "", "Add",
                 "opset 6 has no Gemm with a broadcast bias: use --target-opset 7");
  EXPECT_EQ(r.not_applied.size(), 1u);
}

TEST(PassNotApplied, RotaryNeedsASliceAndOpset23) {
  auto m = unary(23, "Neg", "neg0", {1, 2, 3, 4});
  expect_decline(run_only(m, "fuse_rotary_embedding"), "fuse_rotary_embedding", "rotary_embedding", "neg0", "Neg",
                 "Neg does not read a Slice of its own");
  auto old = unary(13, "Neg", "neg0", {1, 2, 3, 4});
  PipelineReport r = run_only(old, "fuse_rotary_embedding");
  expect_decline(r, "fuse_rotary_embedding", "rotary_embedding", "", "Neg",
                 "opset 13 has no RotaryEmbedding: use --target-opset 23");
  // Below 23 the Gather form of the rotation is tried instead, and says why it did not apply.
  expect_decline(r, "fuse_rotary_embedding", "rotate_as_gather", "neg0", "Neg", "Neg does not read a Slice of its own");
}

// The example "opset 13 has no LayerNormalization: use --target-opset 17".
TEST(PassNotApplied, LayerNormSaysWhichOpsetAndWhyNot) {
  auto build = [](int64_t opset) {
    return model_of(opset, [&](GraphBuilder& b) {
      Value* x = b.input("x", kFloat, {2, 4});
      b.output(named(b.node("ReduceMean", {x}, 1, {b.ints("axes", {-1}), b.i("keepdims", 1)}), "mean0")->outputs[0]);
    });
  };
  auto m13 = build(13);
  PipelineReport r13 = run_only(m13, "fuse_layer_norm");
  expect_decline(r13, "fuse_layer_norm", "decomposed_layer_norm", "", "ReduceMean",
                 "opset 13 has no LayerNormalization: use --target-opset 17");
  expect_decline(r13, "fuse_layer_norm", "decomposed_rms_norm", "", "ReduceMean",
                 "opset 13 has no RMSNormalization: use --target-opset 23");
  auto m17 = build(17);
  PipelineReport r17 = run_only(m17, "fuse_layer_norm");
  expect_decline(r17, "fuse_layer_norm", "decomposed_layer_norm", "mean0", "ReduceMean", "the mean is not subtracted from x");
  expect_decline(r17, "fuse_layer_norm", "decomposed_rms_norm", "", "ReduceMean",
                 "opset 17 has no RMSNormalization: use --target-opset 23");
}

TEST(PassNotApplied, GeluNeedsItsScaleAndOpset20) {
  auto m = unary(20, "Erf", "erf0");
  expect_decline(run_only(m, "fuse_gelu"), "fuse_gelu", "erf_gelu", "erf0", "Erf",
                 "the input is not a node of this graph read only here");
  auto old = unary(13, "Erf", "erf0");
  expect_decline(run_only(old, "fuse_gelu"), "fuse_gelu", "erf_gelu", "", "Erf", "opset 13 has no Gelu: use --target-opset 20");
}

TEST(PassNotApplied, SwishNeedsTheProduct) {
  auto m = unary(24, "Sigmoid", "sig0");
  expect_decline(run_only(m, "fuse_swish"), "fuse_swish", "silu", "sig0", "Sigmoid",
                 "the Sigmoid is not multiplied by its own input");
  auto old = unary(13, "Sigmoid", "sig0");
  expect_decline(run_only(old, "fuse_swish"), "fuse_swish", "silu", "", "Sigmoid", "opset 13 has no Swish: use --target-opset 24");
}

TEST(PassNotApplied, CleanupAttentionNeedsTheSameShape) {
  auto m = model_of(13, [](GraphBuilder& b) {
    Value* x = b.input("x", kFloat, {2, 3});
    Value* s = b.initializer_i64("s", {2}, {3, 2});
    b.output(named(b.node("Reshape", {x, s}), "r0")->outputs[0]);
  });
  expect_decline(run_only(m, "cleanup_attention"), "cleanup_attention", "remove_same_shape_step", "r0", "Reshape",
                 "type inference does not prove the output shape equals the input shape");
}

TEST(PassNotApplied, AttentionNeedsRank4ScoresAndOpset23) {
  auto m = unary(23, "Softmax", "sm0");
  expect_decline(run_only(m, "fuse_attention"), "fuse_attention", "scaled_dot_product", "sm0", "Softmax",
                 "the scores are not a rank-4 (or rank-3) float tensor");
  auto old = unary(13, "Softmax", "sm0");
  expect_decline(run_only(old, "fuse_attention"), "fuse_attention", "scaled_dot_product", "", "Softmax",
                 "opset 13 has no Attention: use --target-opset 23");
}

TEST(PassNotApplied, ConvReluNeedsAConv) {
  auto m = unary(13, "Relu", "relu0");
  expect_decline(run_only(m, "fuse_conv_relu"), "fuse_conv_relu", "conv_relu_to_fused_conv", "relu0", "Relu",
                 "the input is not a Conv read only here");
}

// Rounds repeat declines: each is listed once. A node a rule rewrote in a later round is not
// listed (whatever pass declined it before): t2 reads t1 through an Identity in round 1 (transpose_pair declines), then
// eliminate_identity_ops removes the Identity and round 2 cancels the pair.
TEST(PassNotApplied, OncePerRoundsAndNotForRewrittenNodes) {
  auto m = model_of(13, [](GraphBuilder& b) {
    Value* x = b.input("x", kFloat, {2, 3});
    Value* d = b.input("d", kFloat, {2, 3});
    b.output(named(b.node("Div", {x, d}), "d0")->outputs[0]);
    Value* t1 = named(b.node("Transpose", {x}, 1, {b.ints("perm", {1, 0})}), "t1")->outputs[0];
    Value* t2 = named(b.node("Transpose", {b.op("Identity", {t1})}, 1, {b.ints("perm", {1, 0})}), "t2")->outputs[0];
    b.output(b.op("Relu", {t2}));
  });
  PipelineOptions o;
  o.only = {"fold_reciprocal_mul", "eliminate_redundant_transposes", "eliminate_identity_ops"};
  o.max_iterations = 4;
  o.list_rewrites = true;
  PipelineReport r = optimize(m, o);
  EXPECT_GE(r.iterations, 2);
  bool t2_rewritten = false;
  for (const RewriteRecord& w : r.rewrites) t2_rewritten |= w.node == "t2" && w.rule == "transpose_pair";
  EXPECT_TRUE(t2_rewritten) << r.to_json();
  // d0 declines in every round, for two passes: listed once each.
  EXPECT_EQ(reasons(r, "d0"),
            (std::vector<std::string>{"the dividend is not a constant 1", "no operand is a constant 1 (x * 1, x / 1)"}));
  EXPECT_TRUE(reasons(r, "t2").empty()) << r.to_json();  // rewritten by transpose_pair
  // t1 went with the pair (the rewrite names t2): its declines stay, marked as not in the output.
  bool t1_listed = false;
  for (const NotApplied& d : r.not_applied)
    if (d.node == "t1") {
      t1_listed = true;
      EXPECT_FALSE(d.in_output);
    } else {
      EXPECT_TRUE(d.in_output) << d.node;
    }
  EXPECT_TRUE(t1_listed);
  EXPECT_NE(r.to_json().find("\"node\":\"t1\",\"op\":\"Transpose\",\"reason\":\"the input is not a Transpose\",\"in_output\":false}"),
            std::string::npos);
  // The JSON carries the list.
  std::string j = r.to_json();
  EXPECT_NE(j.find("\"not_applied\":[{\"pass\":\"fold_reciprocal_mul\",\"rule\":\"reciprocal_mul\",\"node\":\"d0\","
                   "\"op\":\"Div\",\"reason\":\"the dividend is not a constant 1\"}"),
            std::string::npos)
      << j;
  // Off: nothing collected, nothing in the JSON.
  auto m2 = unary(13, "Div", "d0");
  o.not_applied = false;
  PipelineReport off = optimize(m2, o);
  EXPECT_TRUE(off.not_applied.empty());
  EXPECT_EQ(off.to_json().find("not_applied"), std::string::npos);
}

// A whole-graph pass records its declines through PassContext::decline: fold_constants names the
// bytes a fold would add and the budget (here an Expand of a constant to 2048 floats).
TEST(PassNotApplied, FoldConstantsNamesTheBudget) {
  auto m = model_of(13, [](GraphBuilder& b) {
    Value* one = b.initializer("one", {1}, {1.0f});
    Value* shape = b.initializer_i64("shape", {1}, {2048});
    b.output(b.op("Relu", {named(b.node("Expand", {one, shape}), "big")->outputs[0]}));
  });
  PipelineReport r = run_only(m, "fold_constants");
  ASSERT_EQ(reasons(r, "big").size(), 1u) << r.to_json();
  EXPECT_EQ(r.not_applied[0].pass, "fold_constants");
  EXPECT_EQ(r.not_applied[0].rule, "size_budget");
  EXPECT_EQ(r.not_applied[0].op, "Expand");
  EXPECT_EQ(reasons(r, "big")[0],
            "folding would add 8180 bytes to the model, above the budget of 4096 per fold (--fold-budget raises it)");
  EXPECT_EQ(count_op(m->graph, "Expand"), 1);
}

// An unnamed node is labelled by its first output.
TEST(PassNotApplied, DeclineHelperLabelsUnnamedNodesByOutput) {
  auto m = unary(13, "Relu", "");
  std::vector<Decline> ds;
  PassContext ctx(*m);
  ctx.declines = &ds;
  ctx.pass_name = "some_pass";
  Node* relu = m->graph->first;
  ctx.decline("r", relu, "why");
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].node, "->" + std::string(m->str(relu->outputs[0]->name)));
  EXPECT_EQ(ds[0].op, "Relu");
  EXPECT_STREQ(ds[0].pass, "some_pass");
}
