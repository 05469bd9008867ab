// Saving tensors whose bytes a recipe computes (Tensor::recipe): streamed on the calling thread
// or by the worker of ComputedStream, into memory, a file or an external data file.
#include <gtest/gtest.h>

#include <cstring>

#include "ir/builder.h"
#include "ir/error.h"
#include "ir/graph_ops.h"
#include "onnx/computed_stream.h"
#include "onnx/serialize.h"
#include "onnx/wire.h"
#include "support/test_support.h"

using namespace ofg;

namespace {

// Byte i of the tensor is a function of i and a seed; `throw_at` makes fill fail when asked for
// that offset (to test a failing recipe).
class PatternRecipe final : public TensorRecipe {
 public:
  PatternRecipe(Model& m, uint8_t seed, size_t throw_at = SIZE_MAX) : TensorRecipe(&m.arena), seed_(seed), throw_at_(throw_at) {}
  static uint8_t byte(size_t i, uint8_t seed) { return static_cast<uint8_t>(i * 31 + (i >> 9) + seed); }
  void fill(size_t offset, size_t size, uint8_t* dst) const override {
    if (throw_at_ >= offset && throw_at_ < offset + size) fail(Status::kInternal, "test recipe failed");
    for (size_t i = 0; i < size; ++i) dst[i] = byte(offset + i, seed_);
  }

 private:
  uint8_t seed_;
  size_t throw_at_;
};

// A model whose graph adds len(sizes) computed float initializers of those byte sizes to x.
std::unique_ptr<Model> model_with_computed(const std::vector<size_t>& sizes, size_t throw_at = SIZE_MAX) {
  auto m = std::make_unique<Model>();
  m->ir_version = 8;
  m->has_ir_version = true;
  OpsetId o;
  o.version = 17;
  o.has_version = true;
  m->opsets.push(m->arena, o);
  m->graph = m->arena.make<Graph>();
  m->graph->model = m.get();
  GraphBuilder b(*m);
  for (size_t k = 0; k < sizes.size(); ++k) {
    const int64_t n = static_cast<int64_t>(sizes[k] / 4);
    Value* x = b.input("x" + std::to_string(k), kFloat, {n});
    auto* r = m->arena.make<PatternRecipe>(*m, static_cast<uint8_t>(k + 1), k == 0 ? throw_at : SIZE_MAX);
    Tensor* t = make_computed_tensor(*m, kFloat, &n, 1, sizes[k], r);
    Value* w = new_value(m->graph, m->intern("w" + std::to_string(k)));
    set_initializer(w, t);
    w->type = make_tensor_type(*m, kFloat, &n, 1);
    b.output(b.op("Add", {x, w}));
  }
  return m;
}

void expect_pattern(const Model& back, const std::vector<size_t>& sizes) {
  for (size_t k = 0; k < sizes.size(); ++k) {
    const Tensor* t = nullptr;
    for (Value* v : back.graph->initializers)
      if (back.str(v->name) == "w" + std::to_string(k)) t = v->initializer;
    ASSERT_NE(t, nullptr) << k;
    ASSERT_EQ(t->data.size, sizes[k]);
    const uint8_t* p = t->bytes().data;
    size_t bad = 0;
    for (size_t i = 0; i < sizes[k]; ++i) bad += p[i] != PatternRecipe::byte(i, static_cast<uint8_t>(k + 1));
    EXPECT_EQ(bad, 0u) << "tensor " << k;
  }
}

}  // namespace

// Small (buffered), medium (calling thread) and large totals (the worker, pieces across tensor
// boundaries, a tensor that is not a whole number of pieces) all save the recipes' bytes.
TEST(SaveComputed, StreamedBytesMatchTheRecipes) {
  const std::vector<std::vector<size_t>> cases = {
      {4000},                               // below the direct-write size: through the write buffer
      {300 * 1024},                         // one tensor, no worker
      {1 << 20, 4, 700 * 1024 + 12, 64 << 10, 3 << 20},  // several, with the worker (over 4 MiB)
  };
  for (const auto& sizes : cases) {
    auto m = model_with_computed(sizes);
    MallocBuffer saved = save_model_memory(*m);
    std::unique_ptr<Model> back = load_model_memory(saved.data(), saved.size(), LoadOptions{});
    expect_pattern(*back, sizes);
    // To a file, and with external data: the same bytes.
    std::string path = test::temp_dir() + "/computed.onnx";
    save_model_file(*m, path, SaveOptions{});
    expect_pattern(*load_model_file(path, LoadOptions{}), sizes);
    SaveOptions ext;
    ext.external_data = true;
    ext.external_threshold = 1024;
    std::string ext_path = test::temp_dir() + "/computed_ext.onnx";
    save_model_file(*m, ext_path, ext);
    expect_pattern(*load_model_file(ext_path, LoadOptions{}), sizes);
    // Nothing was materialised by saving.
    for (Value* v : m->graph->initializers) EXPECT_NE(v->initializer->recipe, nullptr);
  }
}

// A recipe that fails in the middle of a large save: the error reaches the caller (from the
// worker thread), nothing hangs, and the target file is not replaced.
TEST(SaveComputed, FailingRecipeFailsTheSave) {
  const std::vector<size_t> sizes = {3 << 20, 2 << 20};  // over 4 MiB: the worker computes
  std::string path = test::temp_dir() + "/failing.onnx";
  test::write_file(path, {1, 2, 3});
  for (size_t throw_at : {size_t(0), size_t(2 << 20)}) {
    auto m = model_with_computed(sizes, throw_at);
    try {
      save_model_memory(*m);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::kInternal);
      EXPECT_NE(std::string(e.what()).find("test recipe failed"), std::string::npos);
    }
    EXPECT_THROW(save_model_file(*m, path, SaveOptions{}), Error);
    EXPECT_EQ(test::read_file(path), (std::vector<uint8_t>{1, 2, 3}));
  }
}

// The stream checks that tensors come in the order it was given.
TEST(SaveComputed, StreamRefusesAnotherOrder) {
  auto m = model_with_computed({2 << 20, 2 << 20});
  const Tensor* a = m->graph->initializers[0]->initializer;
  const Tensor* b = m->graph->initializers[1]->initializer;
  class NullSink : public wire::Sink {
   public:
    void write(const void*, size_t) override {}
  } sink;
  ComputedStream stream({a, b});
  EXPECT_THROW(stream.write(*b, sink), Error);
  ComputedStream stream2({a, b});
  stream2.write(*a, sink);
  stream2.write(*b, sink);
  EXPECT_THROW(stream2.write(*a, sink), Error);
}
