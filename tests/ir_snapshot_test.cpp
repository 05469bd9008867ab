// Copies of a model without a save/parse round trip (src/ir/snapshot.h): equal to the original
// byte for byte when saved, independent of it, and the pipeline's rollback built on them.
#include <gtest/gtest.h>

#include <cstring>

#include "ir/graph_ops.h"
#include "ir/snapshot.h"
#include "onnx/serialize.h"
#include "passes/pipeline.h"
#include "support/test_support.h"

namespace ofg {
namespace {

std::string saved(const Model& m) {
  MallocBuffer b = save_model_memory(m);
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

std::vector<std::string> shared_models() {
  std::vector<std::string> out;
  std::string data = test::data_dir();
  if (data.empty()) return out;
  for (const char* suite : {"/models", "/realworld/models"})
    for (const std::string& dir : test::folders_with(data + suite, "model.onnx")) out.push_back(dir + "/model.onnx");
  return out;
}

size_t pending_recipes(const Model& m) {
  size_t n = 0;
  for_each_graph(m.graph, [&](Graph* g) {
    for (Value* v : g->initializers) n += v->initializer->recipe != nullptr;
  });
  return n;
}

// Load, optimize (so that computed weights are pending), and check both kinds of copy.
void check_copies_of(const std::string& path) {
  SCOPED_TRACE(path);
  std::unique_ptr<Model> m = load_model_file(path, LoadOptions{});
  const std::string loaded = saved(*m);
  EXPECT_EQ(saved(*snapshot_model(*m)), loaded);
  EXPECT_EQ(saved(*copy_model(*m)), loaded);

  passes::optimize(m, passes::PipelineOptions{});
  const size_t pending = pending_recipes(*m);
  std::unique_ptr<Model> snap = snapshot_model(*m);
  std::unique_ptr<Model> copy = copy_model(*m);
  EXPECT_EQ(check_consistency(*snap), "");
  EXPECT_EQ(check_consistency(*copy), "");
  // Copying computed nothing in the original.
  EXPECT_EQ(pending_recipes(*m), pending);
  const std::string optimized = saved(*m);
  EXPECT_EQ(saved(*snap), optimized);
  // The independent copy outlives the original and still saves the same bytes.
  m.reset();
  snap.reset();
  EXPECT_EQ(saved(*copy), optimized);
  EXPECT_EQ(pending_recipes(*copy), 0u);
}

TEST(Snapshot, CopiesOfEverySharedModelSaveTheSameBytes) {
  std::vector<std::string> models = shared_models();
  if (models.empty()) GTEST_SKIP() << "no shared models (ONNXFORGE_DATA)";
  for (const std::string& path : models) check_copies_of(path);
}

TEST(Snapshot, ChangingACopyLeavesTheOriginal) {
  std::vector<std::string> models = shared_models();
  if (models.empty()) GTEST_SKIP() << "no shared models (ONNXFORGE_DATA)";
  std::unique_ptr<Model> m = load_model_file(models.front(), LoadOptions{});
  const std::string before = saved(*m);
  std::unique_ptr<Model> copy = copy_model(*m);
  passes::optimize(copy, passes::PipelineOptions{});
  EXPECT_NE(saved(*copy), before);
  EXPECT_EQ(saved(*m), before);
  std::unique_ptr<Model> snap = snapshot_model(*m);
  passes::optimize(m, passes::PipelineOptions{});
  EXPECT_EQ(saved(*snap), before);
}

TEST(Snapshot, RollbackRestoresTheModelAsItWas) {
  std::vector<std::string> models = shared_models();
  if (models.empty()) GTEST_SKIP() << "no shared models (ONNXFORGE_DATA)";
  std::unique_ptr<Model> m = load_model_file(models.front(), LoadOptions{});
  passes::PipelineOptions keep_all;
  keep_all.max_iterations = 1;
  keep_all.only = {"eliminate_identity_ops", "eliminate_dead_nodes"};  // class 0: never verified
  passes::optimize(m, keep_all);
  const std::string before = saved(*m);
  // Every class 1/2 pass "drifts": each one that changes something is rolled back.
  passes::PipelineOptions o;
  int calls = 0;
  o.verify = [&](const Model&, const Model&, std::string& detail) {
    ++calls;
    detail = "drift";
    return false;
  };
  o.only = {"fuse_conv_batchnorm", "fold_constants", "fuse_matmul_add"};
  o.sweep_unused_weights = false;
  passes::PipelineReport r = passes::optimize(m, o);
  EXPECT_GT(calls, 0);
  size_t rolled = 0;
  for (const passes::PassRecord& rec : r.records) rolled += rec.rolled_back;
  EXPECT_EQ(rolled, static_cast<size_t>(calls));
  EXPECT_EQ(check_consistency(*m), "");
  EXPECT_EQ(saved(*m), before);
}

}  // namespace
}  // namespace ofg
