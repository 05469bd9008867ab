// Derived verification inputs follow the relations the graph fixes between symbolic dims
// (src/verify/dim_relations.h): a Concat along an axis makes the result's dim the sum (a KV
// cache: total = past + seq), a mask broadcast against what it masks has its length, and the
// free dims get distinct sizes above 1.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "ir/builder.h"
#include "onnx/serialize.h"
#include "passes/pipeline.h"
#include "support/test_support.h"
#include "verify/dim_relations.h"
#include "verify/inputs.h"
#include "verify/verify.h"

using namespace ofg;

namespace {

// A toy attention step with a KV cache: keys = Concat(past [batch, past, 4], new [batch, seq, 4])
// on axis 1; scores = q [batch, seq, 4] x keys^T; the mask [batch, total] added to the scores.
// `declare_present`: the concatenated keys are also an output declared [batch, total, 4].
std::unique_ptr<Model> kv_step(bool declare_present) {
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* past = b.input("past", kFloat, {"batch", "past", 4});
  Value* q = b.input("q", kFloat, {"batch", "seq", 4});
  Value* k = b.input("k", kFloat, {"batch", "seq", 4});
  Value* mask = b.input("mask", kFloat, {"batch", "total"});
  Value* keys = b.op("Concat", {past, k}, {b.i("axis", 1)});
  Value* scores = b.op("MatMul", {q, b.op("Transpose", {keys}, {b.ints("perm", {0, 2, 1})})});
  Value* masked = b.op("Add", {scores, b.op("Unsqueeze", {mask, b.initializer_i64("ax", {1}, {1})})});
  b.set_type(masked, kFloat, {"batch", "seq", "total"});
  b.output(masked);
  if (declare_present) {
    b.set_type(keys, kFloat, {"batch", "total", 4});
    b.output(keys);
  }
  return m;
}

std::map<std::string, std::vector<int64_t>> shapes(const verify::NamedValues& v) {
  std::map<std::string, std::vector<int64_t>> out;
  for (auto& kv : v) out[kv.first].assign(kv.second.t.shape.begin(), kv.second.t.shape.end());
  return out;
}

}  // namespace

TEST(VerifyDimRelations, ConcatAxisIsTheSum) {
  for (bool declared : {true, false}) {
    SCOPED_TRACE(declared ? "present declared" : "mask only");
    auto m = kv_step(declared);
    verify::Options o;
    verify::InputPlanner p(*m, o);
    EXPECT_NE(p.relations().find("total = past + seq"), std::string::npos) << p.relations();
    auto s = shapes(p.make(0, 1));
    const int64_t batch = s["past"][0], past = s["past"][1], seq = s["q"][1], total = s["mask"][1];
    EXPECT_EQ(total, past + seq);
    EXPECT_GT(seq, 1);
    EXPECT_GT(past, 1);
    EXPECT_NE(seq, past);  // distinct: a transposition of the two would show
    EXPECT_EQ(batch, 2);
    EXPECT_EQ(s["k"][1], seq);
    // The reference accepts the first set: no other set tried.
    verify::Report r = verify::verify_models(*m, *m, o);
    EXPECT_TRUE(r.passed);
    EXPECT_EQ(r.note.find("tried"), std::string::npos) << r.note;
    EXPECT_NE(r.note.find("following the graph: total = past + seq"), std::string::npos) << r.note;
  }
}

// Two differently named dims broadcast against each other are one size (not 1); a dim broadcast
// against a weight takes the weight's size.
TEST(VerifyDimRelations, BroadcastMakesDimsEqual) {
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* a = b.input("a", kFloat, {"n", "len_a"});
  Value* c = b.input("c", kFloat, {"len_b"});
  Value* h = b.input("h", kFloat, {"n", "hidden"});
  b.output(b.op("Add", {a, c}));
  b.output(b.op("Mul", {h, b.initializer("w", {5}, {1, 2, 3, 4, 5})}));
  std::vector<verify::DimRelation> rel = verify::derive_dim_relations(*m);
  ASSERT_EQ(rel.size(), 2u);
  verify::InputPlanner p(*m, verify::Options{});
  auto s = shapes(p.make(0, 1));
  EXPECT_EQ(s["a"][1], s["c"][0]);
  EXPECT_GT(s["c"][0], 1);
  EXPECT_EQ(s["h"][1], 5);
  EXPECT_TRUE(verify::verify_models(*m, *m, verify::Options{}).passed);
}

// The solver keeps the sizes the caller gave free: with total given, seq is determined.
TEST(VerifyDimRelations, SolverKeepsGivenSizes) {
  verify::DimRelation r;
  r.coef = {{"total", 1}, {"past", -1}, {"seq", -1}};
  verify::DimSolver free({r}, {}, {"total", "past", "seq"});
  const int total = free.index("total"), past = free.index("past"), seq = free.index("seq");
  ASSERT_TRUE(total >= 0 && past >= 0 && seq >= 0);
  EXPECT_TRUE(free.determined(total));
  EXPECT_FALSE(free.determined(past));
  EXPECT_FALSE(free.determined(seq));
  EXPECT_EQ(free.describe(), "total = past + seq");
  std::vector<int64_t> v(3, -1);
  v[past] = 5;
  v[seq] = 3;
  EXPECT_TRUE(free.solve(v));
  EXPECT_EQ(v[total], 8);
  verify::DimSolver given({r}, {"total"}, {"total", "past", "seq"});
  EXPECT_FALSE(given.determined(given.index("total")));
  std::vector<int64_t> w(3, -1);
  w[given.index("total")] = 2;
  w[given.index("past")] = 5;
  w[given.index("seq")] = 3;
  EXPECT_FALSE(given.solve(w));  // 2 - 5 < 0 (or 2 - 3): the planner then tries other sizes
  // A KV cache through the planner with total fixed by the caller.
  auto m = kv_step(true);
  verify::Options o;
  o.dims["total"] = 9;
  verify::InputPlanner p(*m, o);
  auto s = shapes(p.make(0, 1));
  EXPECT_EQ(s["mask"][1], 9);
  EXPECT_EQ(s["past"][1] + s["q"][1], 9);
}

// The shared LLaMA-style decoder with a KV cache (past_key_values.N.* [batch,2,past_seq,32],
// attention_mask [batch,total_seq], present.N.* [batch,2,total_seq,32]): derived inputs were
// batch=1, seq=1, total_seq=1, past_seq=1 (inconsistent, and a one-token causal mask masks
// nothing). Now total_seq = past_seq + seq with every dim above 1, accepted at once, for the model
// against itself and against its optimized form.
TEST(VerifyDimRelations, LlamaKvCacheGetsConsistentDims) {
  const std::string path = test::data_dir() + "/models/llama_tiny_dirty/model.onnx";
  if (!test::file_exists(path)) GTEST_SKIP() << "no " << path;
  auto ref = load_model_file(path, {});
  verify::Options o;
  verify::InputPlanner p(*ref, o);
  auto s = shapes(p.make(0, 1));
  const int64_t batch = s["input_ids"][0], seq = s["input_ids"][1], total = s["attention_mask"][1],
                past = s["past_key_values.0.key"][2];
  EXPECT_EQ(total, past + seq) << p.describe(0);
  EXPECT_GT(batch, 1);
  EXPECT_GT(seq, 1);
  EXPECT_GT(past, 1);
  EXPECT_NE(seq, past);
  EXPECT_EQ(s["position_ids"][1], seq);
  verify::Report self = verify::verify_models(*ref, *ref, o);
  EXPECT_TRUE(self.passed);
  EXPECT_EQ(self.note.find("tried"), std::string::npos) << self.note;
  EXPECT_TRUE(self.note.find("total_seq = past_seq + seq") != std::string::npos ||
              self.note.find("total_seq = seq + past_seq") != std::string::npos)
      << self.note;
  std::printf("llama_tiny_dirty: %s\n", self.note.c_str());
  auto opt = load_model_file(path, {});
  passes::optimize(opt, passes::PipelineOptions{});
  verify::Report r = verify::verify_models(*ref, *opt, o);
  EXPECT_TRUE(r.passed) << r.to_json();
  EXPECT_EQ(r.inputs[1].shape, (std::vector<int64_t>{batch, total}));
}

// Nodes with omitted inputs (an invalid model the interpreter rejects later) give no relation
// and no crash.
TEST(VerifyDimRelations, OmittedInputsAreSkipped) {
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {"n", "k"});
  b.output(b.op("MatMul", {x, nullptr}));
  b.output(b.op("Transpose", {nullptr}));
  b.output(b.op("Concat", {x, nullptr}, {b.i("axis", 0)}));
  b.output(b.op("Add", {nullptr, x}));
  EXPECT_TRUE(verify::derive_dim_relations(*m).empty());
}
