// Interpreter tests for the ops of the newest opsets and the rare ones the backend suite covers
// with a single example: SwiGLU, TensorScatter, CausalConvWithState, LinearAttention,
// MelWeightMatrix, TfIdfVectorizer, DeformConv, FlexAttention with its subgraphs, the ai.onnx.ml
// TreeEnsemble, Binarizer and ArrayFeatureExtractor, and ImageDecoder's refusal. Values are
// worked out by hand; the error cases check that bad attributes and shapes are reported, not run.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "exec/infer_types.h"
#include "exec/interp.h"
#include "ir/builder.h"
#include "ir/error.h"
#include "support/exec_expect.h"
#include "support/exec_support.h"

using namespace ofg;
using namespace ofg::exec;

namespace {

using ofg::test::expect_near;
using ofg::test::i64_tensor;
using ofg::test::tensor_f;
using ofg::test::values;

// Runs the model and returns the status of the Error it throws (kOk when none); the message
// goes to `message`.
Status run_status(Model& m, const std::vector<std::pair<std::string, RValue>>& inputs, std::string* message = nullptr) {
  try {
    Interpreter in(m);
    in.run(inputs);
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.status();
  }
  return Status::kOk;
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

std::string dims_of(Model& m, const IType* t) {
  if (!t || !t->ranked) return "?";
  std::string s;
  for (const IDim& d : t->dims) {
    s += s.empty() ? "" : ",";
    s += d.is_static() ? std::to_string(d.value) : (d.is_symbolic() ? std::string(m.str(d.sym)) : "?");
  }
  return "[" + s + "]";
}

}  // namespace

TEST(ExecOpsNew, SwiGLUGatesWithScaledSigmoidAndRefusesBroadcast) {
  auto m = new_model(28);
  GraphBuilder b(*m);
  Value* a = b.input("a", kFloat, {3});
  Value* v = b.input("v", kFloat, {3});
  b.output(b.op("SwiGLU", {a, v}));
  b.output(b.op("SwiGLU", {a, v}, {b.f("alpha", 2.f)}));
  Interpreter in(*m);
  auto out = in.run({{"a", tensor_f({3}, {0, 1, -2})}, {"v", tensor_f({3}, {1, 2, 3})}});
  expect_near(values(out[0]), {0, 1 * sigmoid(1) * 2, -2 * sigmoid(-2) * 3});
  expect_near(values(out[1]), {0, 1 * sigmoid(2) * 2, -2 * sigmoid(-4) * 3});

  auto m2 = new_model(28);
  GraphBuilder b2(*m2);
  b2.output(b2.op("SwiGLU", {b2.input("a", kFloat, {2, 3}), b2.input("v", kFloat, {3})}));
  std::string msg;
  EXPECT_EQ(run_status(*m2, {{"a", tensor_f({2, 3}, {1, 2, 3, 4, 5, 6})}, {"v", tensor_f({3}, {1, 2, 3})}}, &msg),
            Status::kInvalidModel);
  EXPECT_NE(msg.find("SwiGLU"), std::string::npos) << msg;
}

TEST(ExecOpsNew, TensorScatterLinearAndCircularWrites) {
  for (const char* mode : {"linear", "circular"}) {
    auto m = new_model(24);
    GraphBuilder b(*m);
    Value* past = b.input("past", kFloat, {2, 4, 1});
    Value* upd = b.input("upd", kFloat, {2, 2, 1});
    Value* idx = b.input("idx", kInt64, {2});
    b.output(b.op("TensorScatter", {past, upd, idx}, {b.s("mode", mode)}));
    b.output(b.op("TensorScatter", {past, upd}, {b.s("mode", mode), b.i("axis", 1)}));
    Interpreter in(*m);
    bool circular = std::string(mode) == "circular";
    auto out = in.run({{"past", tensor_f({2, 4, 1}, {9, 9, 9, 9, 8, 8, 8, 8})},
                       {"upd", tensor_f({2, 2, 1}, {1, 2, 3, 4})},
                       {"idx", i64_tensor({2}, {circular ? 3 : 0, 2})}});
    EXPECT_EQ(out[0].t.shape, (Shape{2, 4, 1}));
    if (circular) expect_near(values(out[0]), {2, 9, 9, 1, 8, 8, 3, 4});  // 3, 4 -> 3, 0
    else expect_near(values(out[0]), {1, 2, 9, 9, 8, 8, 3, 4});
    expect_near(values(out[1]), {1, 2, 9, 9, 3, 4, 8, 8});  // no write_indices: position 0
  }
  // linear: an update running past the end, a negative index, the batch axis
  auto bad = [](int64_t axis, int64_t index) {
    auto m = new_model(24);
    GraphBuilder b(*m);
    b.output(b.op("TensorScatter", {b.input("past", kFloat, {1, 3}), b.input("upd", kFloat, {1, 2}),
                                    b.input("idx", kInt64, {1})},
                  {b.i("axis", axis)}));
    return run_status(*m, {{"past", tensor_f({1, 3}, {0, 0, 0})}, {"upd", tensor_f({1, 2}, {1, 2})},
                           {"idx", i64_tensor({1}, {index})}});
  };
  EXPECT_EQ(bad(1, 1), Status::kOk);
  EXPECT_EQ(bad(1, 2), Status::kInvalidModel);
  EXPECT_EQ(bad(1, -1), Status::kInvalidModel);
  EXPECT_EQ(bad(0, 0), Status::kInvalidModel);
  EXPECT_EQ(bad(-2, 0), Status::kInvalidModel);  // -2 is axis 0 at rank 2
}

TEST(ExecOpsNew, CausalConvWithStateCarriesThePastAndTheLastPositions) {
  auto m = new_model(27);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, 1, 3});
  Value* w = b.input("w", kFloat, {1, 1, 3});
  Value* bias = b.input("bias", kFloat, {1});
  Value* past = b.input("past", kFloat, {1, 1, 2});
  Node* with_past = b.node("CausalConvWithState", {x, w, nullptr, past}, 2);
  Node* silu = b.node("CausalConvWithState", {x, w, bias}, 2, {b.s("activation", "silu")});
  b.output(with_past->outputs[0]);
  b.output(with_past->outputs[1]);
  b.output(silu->outputs[0]);
  b.output(silu->outputs[1]);
  Interpreter in(*m);
  auto out = in.run({{"x", tensor_f({1, 1, 3}, {1, 2, 3})}, {"w", tensor_f({1, 1, 3}, {1, 10, 100})},
                     {"bias", tensor_f({1}, {-20})}, {"past", tensor_f({1, 1, 2}, {5, 6})}});
  // the kernel sees 5 6 1 2 3: 5 + 60 + 100, 6 + 10 + 200, 1 + 20 + 300
  expect_near(values(out[0]), {165, 216, 321});
  expect_near(values(out[1]), {2, 3});
  EXPECT_EQ(out[1].t.shape, (Shape{1, 1, 2}));
  // zeros in front: 0 0 1 2 3, then bias and SiLU
  auto silu_of = [](double v) { return v * sigmoid(v); };
  expect_near(values(out[2]), {silu_of(100 - 20), silu_of(10 + 200 - 20), silu_of(1 + 20 + 300 - 20)}, 1e-4);
  expect_near(values(out[3]), {2, 3});

  // An input shorter than the carry keeps part of the past in the present state.
  auto m2 = new_model(27);
  GraphBuilder b2(*m2);
  Node* n = b2.node("CausalConvWithState",
                    {b2.input("x", kFloat, {1, 1, 1}), b2.input("w", kFloat, {1, 1, 4}), nullptr,
                     b2.input("past", kFloat, {1, 1, 3})},
                    2);
  b2.output(n->outputs[0]);
  b2.output(n->outputs[1]);
  Interpreter in2(*m2);
  auto out2 = in2.run({{"x", tensor_f({1, 1, 1}, {7})}, {"w", tensor_f({1, 1, 4}, {1, 1, 1, 1})},
                       {"past", tensor_f({1, 1, 3}, {1, 2, 3})}});
  expect_near(values(out2[0]), {13});
  expect_near(values(out2[1]), {2, 3, 7});
}

TEST(ExecOpsNew, CausalConvWithStateRejectsBadWeightStateAndActivation) {
  auto run = [](Shape wshape, Shape past_shape, const char* act) {
    auto m = new_model(27);
    GraphBuilder b(*m);
    std::vector<Value*> ins{b.input("x", kFloat, {1, 2, 3}), b.input("w", kFloat, {-1, -1, -1}), nullptr,
                            b.input("past", kFloat, {-1, -1, -1})};
    b.output(b.node("CausalConvWithState", ins, 2, {b.s("activation", act)})->outputs[0]);
    return run_status(*m, {{"x", tensor_f({1, 2, 3}, {1, 2, 3, 4, 5, 6})},
                           {"w", tensor_f(wshape, std::vector<float>(static_cast<size_t>(shape_numel(wshape)), 1.f))},
                           {"past", tensor_f(past_shape, std::vector<float>(static_cast<size_t>(shape_numel(past_shape)), 0.f))}});
  };
  EXPECT_EQ(run({2, 1, 2}, {1, 2, 1}, "none"), Status::kOk);
  EXPECT_EQ(run({2, 1, 2}, {1, 2, 1}, "swish"), Status::kOk);
  EXPECT_EQ(run({2, 1, 2}, {1, 2, 1}, "relu"), Status::kInvalidModel);
  EXPECT_EQ(run({3, 1, 2}, {1, 2, 1}, "none"), Status::kInvalidModel);  // channels
  EXPECT_EQ(run({2, 2, 2}, {1, 2, 1}, "none"), Status::kInvalidModel);  // not depthwise
  EXPECT_EQ(run({2, 1, 0}, {1, 2, 0}, "none"), Status::kInvalidModel);  // empty kernel
  EXPECT_EQ(run({2, 1, 2}, {1, 2, 2}, "none"), Status::kInvalidModel);  // state of k-1 = 1
}

namespace {

// LinearAttention over one sequence of T tokens, d_k = d_v = 1, one KV head shared by
// `q_heads` query heads; scale 1. Returns the output and the present state.
std::vector<RValue> linear_attention(const std::string& rule, int64_t q_heads, std::vector<float> q,
                                     std::vector<float> k, std::vector<float> v, std::vector<float> decay,
                                     std::vector<float> beta, float past) {
  auto m = new_model(27);
  GraphBuilder b(*m);
  int64_t T = static_cast<int64_t>(k.size());
  std::vector<Value*> ins{b.input("q", kFloat, {1, T, q_heads}), b.input("k", kFloat, {1, T, 1}),
                          b.input("v", kFloat, {1, T, 1}), b.input("past", kFloat, {1, 1, 1, 1}), nullptr, nullptr};
  std::vector<std::pair<std::string, RValue>> feeds{{"q", tensor_f({1, T, q_heads}, q)},
                                                    {"k", tensor_f({1, T, 1}, k)},
                                                    {"v", tensor_f({1, T, 1}, v)},
                                                    {"past", tensor_f({1, 1, 1, 1}, {past})}};
  if (!decay.empty()) {
    ins[4] = b.input("decay", kFloat, {1, T, 1});
    feeds.push_back({"decay", tensor_f({1, T, 1}, decay)});
  }
  if (!beta.empty()) {
    ins[5] = b.input("beta", kFloat, {1, T, 1});
    feeds.push_back({"beta", tensor_f({1, T, 1}, beta)});
  }
  Node* n = b.node("LinearAttention", ins, 2,
                   {b.s("update_rule", rule), b.i("q_num_heads", q_heads), b.i("kv_num_heads", 1), b.f("scale", 1.f)});
  b.output(n->outputs[0]);
  b.output(n->outputs[1]);
  Interpreter in(*m);
  return in.run(feeds);
}

}  // namespace

TEST(ExecOpsNew, LinearAttentionUpdateRules) {
  // linear: S = 1 + 1*3 = 4 -> o = 4; S = 4 + 2*4 = 12 -> o = 12
  auto lin = linear_attention("linear", 1, {1, 1}, {1, 2}, {3, 4}, {}, {}, 1);
  expect_near(values(lin[0]), {4, 12});
  expect_near(values(lin[1]), {12});
  // gated, g = ln 0.5: S = 0.5 + 3 = 3.5; S = 1.75 + 8 = 9.75; q = 2 doubles the reads
  float h = std::log(0.5f);
  auto gated = linear_attention("gated", 1, {2, 2}, {1, 2}, {3, 4}, {h, h}, {}, 1);
  expect_near(values(gated[0]), {7, 19.5});
  expect_near(values(gated[1]), {9.75});
  // delta, beta = 1 then 0.5: v' = 1*(3 - 1*1) = 2, S = 1 + 2 = 3; v' = 0.5*(4 - 3*2) = -1, S = 3 - 2 = 1
  auto delta = linear_attention("delta", 1, {1, 1}, {1, 2}, {3, 4}, {}, {1, 0.5f}, 1);
  expect_near(values(delta[0]), {3, 1});
  expect_near(values(delta[1]), {1});
  // gated_delta: the decay applies before the state is read back
  // S = 0.5, v' = 3 - 0.5 = 2.5, S = 3; S = 1.5, v' = 0.5*(4 - 3) = 0.5, S = 1.5 + 1 = 2.5
  auto gd = linear_attention("gated_delta", 1, {1, 1}, {1, 2}, {3, 4}, {h, h}, {1, 0.5f}, 1);
  expect_near(values(gd[0]), {3, 2.5});
  expect_near(values(gd[1]), {2.5});
  // two query heads read the one KV state: (B, T, 2 * d_v)
  auto gqa = linear_attention("linear", 2, {1, -1, 2, 3}, {1, 2}, {3, 4}, {}, {}, 0);
  EXPECT_EQ(gqa[0].t.shape, (Shape{1, 2, 2}));
  expect_near(values(gqa[0]), {3, -3, 22, 33});
  // an empty sequence leaves the state as it was
  auto empty = linear_attention("linear", 1, {}, {}, {}, {}, {}, 5);
  EXPECT_EQ(empty[0].t.shape, (Shape{1, 0, 1}));
  expect_near(values(empty[1]), {5});
}

TEST(ExecOpsNew, LinearAttentionRejectsMismatchedInputsAndAttributes) {
  auto run = [](const std::string& rule, int64_t hq, int64_t hkv, bool with_decay, int64_t key_width) {
    auto m = new_model(27);
    GraphBuilder b(*m);
    std::vector<Value*> ins{b.input("q", kFloat, {1, 1, 4}), b.input("k", kFloat, {1, 1, -1}),
                            b.input("v", kFloat, {1, 1, 2}), nullptr,
                            with_decay ? b.input("decay", kFloat, {1, 1, 1}) : nullptr};
    std::vector<Attribute> attrs{b.s("update_rule", rule), b.i("q_num_heads", hq)};
    if (hkv) attrs.push_back(b.i("kv_num_heads", hkv));
    b.output(b.node("LinearAttention", ins, 1, attrs)->outputs[0]);
    std::vector<std::pair<std::string, RValue>> feeds{
        {"q", tensor_f({1, 1, 4}, {1, 2, 3, 4})},
        {"k", tensor_f({1, 1, key_width}, std::vector<float>(static_cast<size_t>(key_width), 1.f))},
        {"v", tensor_f({1, 1, 2}, {1, 2})}};
    if (with_decay) feeds.push_back({"decay", tensor_f({1, 1, 1}, {0})});
    return run_status(*m, feeds);
  };
  EXPECT_EQ(run("linear", 2, 1, false, 2), Status::kOk);
  EXPECT_EQ(run("gated", 2, 1, true, 2), Status::kOk);
  EXPECT_EQ(run("gated", 2, 1, false, 2), Status::kInvalidModel);   // decay missing
  EXPECT_EQ(run("linear", 2, 1, true, 2), Status::kInvalidModel);   // decay not allowed
  EXPECT_EQ(run("delta", 2, 1, false, 2), Status::kInvalidModel);   // beta missing
  EXPECT_EQ(run("softmax", 2, 1, false, 2), Status::kInvalidModel);
  EXPECT_EQ(run("linear", 2, 0, false, 2), Status::kInvalidModel);  // kv_num_heads required
  EXPECT_EQ(run("linear", 3, 2, false, 2), Status::kInvalidModel);  // 3 is not a multiple of 2
  EXPECT_EQ(run("linear", 2, 1, false, 3), Status::kInvalidModel);  // key width != kv heads * d_k
}

TEST(ExecOpsNew, MelWeightMatrixTriangles) {
  auto m = new_model(17);
  GraphBuilder b(*m);
  auto scalar_i = [&](const char* n, int64_t v) { return b.constant_i64(n, {}, {v}); };
  auto scalar_f = [&](const char* n, float v) { return b.constant(n, {}, {v}); };
  b.output(b.op("MelWeightMatrix", {scalar_i("mels", 2), scalar_i("dft", 16), scalar_i("rate", 8000),
                                    scalar_f("lo", 0), scalar_f("hi", 4000)}));
  b.output(b.op("MelWeightMatrix", {scalar_i("mels2", 2), scalar_i("dft2", 16), scalar_i("rate2", 8000),
                                    scalar_f("lo2", 0), scalar_f("hi2", 4000)},
                {b.i("output_datatype", kDouble)}));
  Interpreter in(*m);
  auto out = in.run({});
  EXPECT_EQ(out[0].t.shape, (Shape{9, 2}));
  EXPECT_EQ(out[0].t.dtype, kFloat);
  EXPECT_EQ(out[1].t.dtype, kDouble);
  // points at bins 0, 0, 2, 4: filter 0 peaks at bin 0, filter 1 rises over 0..2 and falls to 4
  std::vector<double> want(18, 0.0);
  want[0] = 1;
  want[2] = 0.5;
  want[3] = 0.5;
  want[5] = 1;
  want[7] = 0.5;
  expect_near(values(out[0]), want);
  expect_near(values(out[1]), want);

  auto bad = [](int64_t mels, int64_t rate, float hi) {
    auto m = new_model(17);
    GraphBuilder b(*m);
    b.output(b.op("MelWeightMatrix", {b.constant_i64("m", {}, {mels}), b.constant_i64("d", {}, {16}),
                                      b.constant_i64("r", {}, {rate}), b.constant("l", {}, {0.f}),
                                      b.constant("h", {}, {hi})}));
    return run_status(*m, {});
  };
  EXPECT_EQ(bad(2, 8000, 4000), Status::kOk);
  // the last point, 3/4 of the way up the mel range with 2 bins, lands past the 9 bins
  EXPECT_EQ(bad(2, 8000, 20000), Status::kInvalidModel);
  EXPECT_EQ(bad(2, 0, 4000), Status::kInvalidModel);
  EXPECT_EQ(bad(-1, 8000, 4000), Status::kInvalidModel);
  EXPECT_EQ(bad(2, 8000, NAN), Status::kInvalidModel);
}

namespace {

// TfIdfVectorizer with 1-gram [1] and 2-grams [1 2], [1 3], output coordinates 0, 1, 2.
std::unique_ptr<Model> tfidf_model(const std::string& mode, Shape xshape, std::vector<float> weights = {}) {
  auto m = new_model(9);
  GraphBuilder b(*m);
  std::vector<Attribute> attrs{b.i("min_gram_length", 1),       b.i("max_gram_length", 2),
                               b.i("max_skip_count", 1),        b.s("mode", mode),
                               b.ints("ngram_counts", {0, 1}),  b.ints("ngram_indexes", {0, 1, 2}),
                               b.ints("pool_int64s", {1, 1, 2, 1, 3})};
  if (!weights.empty()) attrs.push_back(b.floats("weights", weights));
  std::vector<DimSpec> dims(xshape.begin(), xshape.end());
  b.output(b.op("TfIdfVectorizer", {b.input("x", kInt64, dims)}, attrs));
  return m;
}

}  // namespace

TEST(ExecOpsNew, TfIdfVectorizerCountsSkipGramsAndWeights) {
  // 1 2 3 1 2: [1] twice; [1 2] twice without skip; [1 3] once with one skip
  std::vector<std::pair<std::string, RValue>> feed{{"x", i64_tensor({5}, {1, 2, 3, 1, 2})}};
  auto tf = tfidf_model("TF", {5});
  auto out = Interpreter(*tf).run(feed);
  EXPECT_EQ(out[0].t.shape, (Shape{3}));
  EXPECT_EQ(out[0].t.dtype, kFloat);
  expect_near(values(out[0]), {2, 2, 1});
  auto idf = tfidf_model("IDF", {5}, {0.5f, 2, 3});
  expect_near(values(Interpreter(*idf).run(feed)[0]), {0.5, 2, 3});
  auto tfidf = tfidf_model("TFIDF", {5}, {0.5f, 2, 3});
  expect_near(values(Interpreter(*tfidf).run(feed)[0]), {1, 4, 3});
  // rows are counted separately; an empty batch gives an empty result
  auto rows = tfidf_model("TF", {2, 3});
  auto out2 = Interpreter(*rows).run({{"x", i64_tensor({2, 3}, {1, 2, 9, 3, 1, 3})}});
  EXPECT_EQ(out2[0].t.shape, (Shape{2, 3}));
  expect_near(values(out2[0]), {1, 1, 0, 1, 0, 1});
  auto none = tfidf_model("TF", {0, 3});
  EXPECT_EQ(Interpreter(*none).run({{"x", i64_tensor({0, 3}, {})}})[0].t.shape, (Shape{0, 3}));
}

TEST(ExecOpsNew, TfIdfVectorizerRejectsBadAttributes) {
  // The pool is 1-grams 1, 2, 3 unless ngram_counts splits it; `edit` changes one attribute.
  auto run = [](const char* mode, int64_t min_n, std::vector<int64_t> counts, std::vector<int64_t> indexes) {
    auto m = new_model(9);
    GraphBuilder b(*m);
    b.output(b.op("TfIdfVectorizer", {b.input("x", kInt64, {3})},
                  {b.i("min_gram_length", min_n), b.i("max_gram_length", 2), b.i("max_skip_count", 0),
                   b.s("mode", mode), b.ints("ngram_counts", counts), b.ints("ngram_indexes", indexes),
                   b.ints("pool_int64s", {1, 2, 3})}));
    return run_status(*m, {{"x", i64_tensor({3}, {1, 2, 3})}});
  };
  EXPECT_EQ(run("TF", 1, {0, 1}, {0, 1}), Status::kOk);  // 1-gram 1, 2-gram 2 3
  EXPECT_EQ(run("BM25", 1, {0, 1}, {0, 1}), Status::kInvalidModel);
  EXPECT_EQ(run("TF", 0, {0, 1}, {0, 1}), Status::kInvalidModel);
  EXPECT_EQ(run("TF", 1, {0, 7}, {0, 1}), Status::kInvalidModel);  // past the pool
  EXPECT_EQ(run("TF", 1, {2, 1}, {0, 1}), Status::kInvalidModel);  // decreasing
  EXPECT_EQ(run("TF", 1, {0}, {0, 1}), Status::kInvalidModel);     // three 1-grams, two indexes
  EXPECT_EQ(run("TF", 1, {0, 1}, {0, -1}), Status::kInvalidModel);
}

TEST(ExecOpsNew, DeformConvSamplesDisplacedTapsBilinearly) {
  // Zero offsets: a plain 2x2 convolution of 0..8 with ones.
  auto m = new_model(22);
  GraphBuilder b(*m);
  b.output(b.op("DeformConv", {b.input("x", kFloat, {1, 1, 3, 3}), b.input("w", kFloat, {1, 1, 2, 2}),
                               b.input("off", kFloat, {1, 8, 2, 2})}));
  Interpreter in(*m);
  auto out = in.run({{"x", tensor_f({1, 1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8})},
                     {"w", tensor_f({1, 1, 2, 2}, {1, 1, 1, 1})},
                     {"off", tensor_f({1, 8, 2, 2}, std::vector<float>(32, 0.f))}});
  EXPECT_EQ(out[0].t.shape, (Shape{1, 1, 2, 2}));
  expect_near(values(out[0]), {8, 12, 20, 24});

  // 1-D, one tap: positions 0..4 displaced by 0.5, -0.25, far away, -1, -0.5 (half outside),
  // then masked and biased.
  auto m2 = new_model(22);
  GraphBuilder b2(*m2);
  b2.output(b2.op("DeformConv", {b2.input("x", kFloat, {1, 1, 5}), b2.input("w", kFloat, {1, 1, 1}),
                                 b2.input("off", kFloat, {1, 1, 5}), b2.input("bias", kFloat, {1}),
                                 b2.input("mask", kFloat, {1, 1, 5})}));
  Interpreter in2(*m2);
  auto out2 = in2.run({{"x", tensor_f({1, 1, 5}, {1, 2, 3, 4, 5})}, {"w", tensor_f({1, 1, 1}, {2})},
                       {"off", tensor_f({1, 1, 5}, {0.5f, -0.25f, 10, -1, -4.5f})}, {"bias", tensor_f({1}, {100})},
                       {"mask", tensor_f({1, 1, 5}, {1, 2, 1, 0.5f, 1})}});
  // samples 1.5, 1.75, 0, 3, 0.5 (= 0.5 * x[0] + 0.5 * outside)
  expect_near(values(out2[0]), {100 + 2 * 1.5, 100 + 2 * 2 * 1.75, 100, 100 + 2 * 0.5 * 3, 100 + 2 * 0.5});
}

TEST(ExecOpsNew, DeformConvRejectsInconsistentShapes) {
  auto run = [](Shape off_shape, int64_t offset_group, float off_value) {
    auto m = new_model(22);
    GraphBuilder b(*m);
    b.output(b.op("DeformConv",
                  {b.input("x", kFloat, {1, 2, 3}), b.input("w", kFloat, {1, 2, 2}), b.input("off", kFloat, {-1, -1, -1})},
                  {b.i("offset_group", offset_group)}));
    std::vector<float> off(static_cast<size_t>(shape_numel(off_shape)), off_value);
    return run_status(*m, {{"x", tensor_f({1, 2, 3}, {1, 2, 3, 4, 5, 6})}, {"w", tensor_f({1, 2, 2}, {1, 1, 1, 1})},
                           {"off", tensor_f(off_shape, off)}});
  };
  EXPECT_EQ(run({1, 2, 2}, 1, 0), Status::kOk);
  EXPECT_EQ(run({1, 4, 2}, 2, 0), Status::kOk);
  EXPECT_EQ(run({1, 4, 2}, 1, 0), Status::kInvalidModel);  // one group has 2 offsets
  EXPECT_EQ(run({1, 2, 3}, 1, 0), Status::kInvalidModel);  // output length is 2
  EXPECT_EQ(run({1, 6, 2}, 3, 0), Status::kInvalidModel);  // 3 does not divide 2 channels
  EXPECT_EQ(run({1, 2, 2}, 1, NAN), Status::kOk);          // NaN offsets read zero
}

TEST(ExecOpsNew, ImageDecoderIsRefusedAsUnsupportedWithTheReason) {
  auto m = new_model(20);
  GraphBuilder b(*m);
  b.output(b.op("ImageDecoder", {b.input("bytes", kUint8, {4})}));
  RTensor bytes = RTensor::alloc(kUint8, {4});
  std::string msg;
  EXPECT_EQ(run_status(*m, {{"bytes", RValue::tensor(bytes)}}, &msg), Status::kUnsupported);
  EXPECT_NE(msg.find("ImageDecoder"), std::string::npos) << msg;
  EXPECT_NE(msg.find("codecs"), std::string::npos) << msg;
}

TEST(ExecOpsNew, TypeRulesOfTheNewOps) {
  auto m = new_model(27);
  GraphBuilder b(*m);
  Value* q = b.input("q", kFloat, {"batch", "seq", 8});
  Value* k = b.input("k", kFloat, {"batch", "seq", 4});
  Value* v = b.input("v", kFloat, {"batch", "seq", 6});
  Node* la = b.node("LinearAttention", {q, k, v}, 2,
                    {b.s("update_rule", "linear"), b.i("q_num_heads", 4), b.i("kv_num_heads", 2)});
  Value* x = b.input("x", kFloat16, {"batch", 3, "seq"});
  Value* w = b.initializer("w", {3, 1, 4}, std::vector<float>(12, 1.f));
  Node* cc = b.node("CausalConvWithState", {x, w}, 2);
  Value* ids = b.input("ids", kInt32, {"rows", 7});
  Value* tf = b.op("TfIdfVectorizer", {ids}, {b.ints("ngram_indexes", {4, 0, 2})});
  Value* mel = b.op("MelWeightMatrix", {b.constant_i64("m", {}, {10}), b.constant_i64("d", {}, {64}),
                                        b.constant_i64("r", {}, {16000}), b.constant("l", {}, {0.f}),
                                        b.constant("h", {}, {8000.f})});
  Value* dx = b.input("dx", kFloat, {"n", 2, 5, 5});
  Value* dw = b.initializer("dw", {4, 2, 3, 3}, std::vector<float>(72, 1.f));
  Value* doff = b.input("doff", kFloat, {"n", 18, 3, 3});
  Value* dc = b.op("DeformConv", {dx, dw, doff});
  for (Value* o : {la->outputs[0], la->outputs[1], cc->outputs[0], cc->outputs[1], tf, mel, dc}) b.output(o);
  TypeInference ti(*m);
  ti.run(false);
  EXPECT_EQ(dims_of(*m, ti.type_of(la->outputs[0])), "[batch,seq,12]");  // 4 heads * d_v 3
  EXPECT_EQ(dims_of(*m, ti.type_of(la->outputs[1])), "[batch,2,2,3]");
  EXPECT_EQ(dims_of(*m, ti.type_of(cc->outputs[0])), "[batch,3,seq]");
  EXPECT_EQ(dims_of(*m, ti.type_of(cc->outputs[1])), "[batch,3,3]");
  EXPECT_EQ(ti.type_of(cc->outputs[1])->elem, kFloat16);
  EXPECT_EQ(dims_of(*m, ti.type_of(tf)), "[rows,5]");
  EXPECT_EQ(ti.type_of(tf)->elem, kFloat);
  EXPECT_EQ(dims_of(*m, ti.type_of(mel)), "[33,10]");
  EXPECT_EQ(dims_of(*m, ti.type_of(dc)), "[n,4,3,3]");
}

namespace {

void import_domain(Model& m, const char* domain, int64_t version) {
  OpsetId o;
  o.domain = m.intern(domain);
  o.version = version;
  o.has_version = true;
  m.opsets.push(m.arena, o);
}

Tensor* f32_tensor(Model& m, std::vector<float> v) {
  int64_t n = static_cast<int64_t>(v.size());
  return make_tensor(m, kFloat, &n, 1, v.data(), v.size() * sizeof(float));
}

// Two trees over 2 features. Tree A: x1 < 0.5 (NaN goes true) -> leaf 1@t0, else x0 in {2, 5}
// -> leaf 10@t1, else leaf 100@t1. Tree B: a single leaf 1000@t0. `edit` may break it.
std::unique_ptr<Model> tree_model(int64_t aggregate, int64_t n_rows, std::vector<int64_t> true_ids = {0, 1, 3},
                                  std::vector<int64_t> true_leafs = {1, 1, 1}) {
  auto m = new_model(13);
  import_domain(*m, "ai.onnx.ml", 5);
  GraphBuilder b(*m);
  std::vector<uint8_t> modes{1, 6, 0};
  int64_t three = 3;
  Tensor* mode_t = make_tensor(*m, kUint8, &three, 1, modes.data(), modes.size());
  std::vector<Attribute> attrs{
      b.i("n_targets", 2),
      b.i("aggregate_function", aggregate),
      b.ints("tree_roots", {0, 2}),
      b.t("nodes_modes", mode_t),
      b.ints("nodes_featureids", {1, 0, 0}),
      b.t("nodes_splits", f32_tensor(*m, {0.5f, NAN, 0})),
      b.ints("nodes_truenodeids", true_ids),
      b.ints("nodes_trueleafs", true_leafs),
      b.ints("nodes_falsenodeids", {1, 2, 3}),
      b.ints("nodes_falseleafs", {0, 1, 1}),
      b.ints("nodes_missing_value_tracks_true", {1, 0, 0}),
      b.t("membership_values", f32_tensor(*m, {2, 5, NAN})),
      b.ints("leaf_targetids", {0, 1, 1, 0}),
      b.t("leaf_weights", f32_tensor(*m, {1, 10, 100, 1000})),
  };
  b.output(b.node("TreeEnsemble", {b.input("x", kFloat, {n_rows, 2})}, 1, attrs, {}, "ai.onnx.ml")->outputs[0]);
  return m;
}

}  // namespace

TEST(ExecOpsNew, TreeEnsembleWalksBranchesMembersAndAggregates) {
  std::vector<std::pair<std::string, RValue>> feed{{"x", tensor_f({4, 2}, {2, 0, 5, 1, 3, 7, NAN, NAN})}};
  auto sum = tree_model(1, 4);
  auto out = Interpreter(*sum).run(feed);
  EXPECT_EQ(out[0].t.shape, (Shape{4, 2}));
  expect_near(values(out[0]), {1001, 0, 1000, 10, 1000, 100, 1001, 0});
  auto avg = tree_model(0, 4);
  expect_near(values(Interpreter(*avg).run(feed)[0]), {500.5, 0, 500, 5, 500, 50, 500.5, 0});
  auto mn = tree_model(2, 4);
  auto low = values(Interpreter(*mn).run(feed)[0]);
  EXPECT_EQ(low[0], 1);
  EXPECT_EQ(low[1], std::numeric_limits<float>::max());  // no leaf of target 1 reached
  EXPECT_EQ(low[3], 10);
  // node 1 sends its true branch back to node 0: a cycle, reported instead of looping
  auto cyc = tree_model(1, 4, {0, 0, 3}, {1, 0, 1});
  EXPECT_EQ(run_status(*cyc, feed), Status::kInvalidModel);
  // a leaf index past the leaves
  auto far = tree_model(1, 4, {0, 9, 3});
  EXPECT_EQ(run_status(*far, feed), Status::kInvalidModel);
}

TEST(ExecOpsNew, BinarizerAndArrayFeatureExtractor) {
  auto m = new_model(13);
  import_domain(*m, "ai.onnx.ml", 1);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {3, 4});
  b.output(b.node("Binarizer", {x}, 1, {b.f("threshold", 5.f)}, {}, "ai.onnx.ml")->outputs[0]);
  b.output(b.node("ArrayFeatureExtractor", {x, b.input("i", kInt64, {2})}, 1, {}, {}, "ai.onnx.ml")->outputs[0]);
  b.output(b.node("ArrayFeatureExtractor", {b.input("v", kFloat, {3}), b.input("j", kInt64, {1})}, 1, {}, {},
                  "ai.onnx.ml")->outputs[0]);
  Interpreter in(*m);
  auto out = in.run({{"x", tensor_f({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})},
                     {"i", i64_tensor({2}, {3, 0})},
                     {"v", tensor_f({3}, {5, 6, 7})},
                     {"j", i64_tensor({1}, {2})}});
  expect_near(values(out[0]), {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1});
  EXPECT_EQ(out[1].t.shape, (Shape{3, 2}));
  expect_near(values(out[1]), {3, 0, 7, 4, 11, 8});
  EXPECT_EQ(out[2].t.shape, (Shape{1, 1}));  // a vector is read as one row
  expect_near(values(out[2]), {7});
  EXPECT_EQ(run_status(*m, {{"x", tensor_f({3, 4}, std::vector<float>(12, 0.f))},
                            {"i", i64_tensor({2}, {4, 0})},
                            {"v", tensor_f({3}, {5, 6, 7})},
                            {"j", i64_tensor({1}, {2})}}),
            Status::kInvalidModel);
}

namespace {

// FlexAttention over one query and two keys: scores 0 and ln 3 (softmax 1/4, 3/4), values 10
// and 20; `mod` names a modifier subgraph ("", "score_mod", "prob_mod") made of `mod_op`.
double flex_attention(const char* mod, const char* mod_op, int64_t q_heads = 1) {
  auto m = new_model(13);
  import_domain(*m, "ai.onnx.preview", 1);
  GraphBuilder b(*m);
  Value* q = b.input("q", kFloat, {1, q_heads, 1, 1});
  Value* k = b.input("k", kFloat, {1, 1, 2, 1});
  Value* v = b.input("v", kFloat, {1, 1, 2, 1});
  std::vector<Attribute> attrs{b.f("scale", 1.f)};
  if (*mod) {
    Graph* g = b.subgraph(mod);
    GraphBuilder sb(*m, g);
    Value* s = sb.input("s", kFloat, {1, q_heads, 1, 2});
    sb.output(std::string(mod_op) == "Add" ? sb.op("Add", {s, s}) : sb.op(mod_op, {s}));
    attrs.push_back(b.g(mod, g));
  }
  b.output(b.node("FlexAttention", {q, k, v}, 1, attrs, {}, "ai.onnx.preview")->outputs[0]);
  recompute_captures(m->graph);
  Interpreter in(*m);
  auto out = in.run({{"q", tensor_f({1, q_heads, 1, 1}, std::vector<float>(static_cast<size_t>(q_heads), 1.f))},
                     {"k", tensor_f({1, 1, 2, 1}, {0, std::log(3.f)})},
                     {"v", tensor_f({1, 1, 2, 1}, {10, 20})}});
  EXPECT_EQ(out[0].t.shape, (Shape{1, q_heads, 1, 1}));
  return values(out[0]).back();
}

}  // namespace

TEST(ExecOpsNew, FlexAttentionRunsItsModifierSubgraphs) {
  EXPECT_NEAR(flex_attention("", ""), 17.5, 1e-5);
  EXPECT_NEAR(flex_attention("score_mod", "Neg"), 12.5, 1e-5);        // softmax 3/4, 1/4
  EXPECT_NEAR(flex_attention("score_mod", "Add"), 10 + 10 * 0.9, 1e-5);  // scores doubled: 1/10, 9/10
  EXPECT_NEAR(flex_attention("prob_mod", "Add"), 35, 1e-5);           // probabilities doubled
  EXPECT_NEAR(flex_attention("", "", 2), 17.5, 1e-5);                 // two query heads, one K/V head
}
