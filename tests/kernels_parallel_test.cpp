// The intra-op thread pool (kernels/parallel.h) and the kernels split between threads: every
// result must be bit for bit the one of a single thread.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include "kernels/gemm_split.h"
#include "kernels/parallel.h"
#include "onnxforge.h"
#include "support/kernel_support.h"

namespace ofg::kernels {
namespace {

using test::rnd;

constexpr unsigned kWidths[] = {2, 3, 4};

TEST(KernelsParallel, EveryTaskRunsOnceOnAnyWidth) {
  for (unsigned width : {1u, 2u, 3u, 4u, 7u}) {
    ThreadsScope scope(width);
    EXPECT_EQ(threads(), width);
    for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{5}, size_t{100}}) {
      std::vector<std::atomic<int>> hits(n);
      parallel_for(n, [&](size_t i) { hits[i].fetch_add(1); });
      for (size_t i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1) << "width " << width << " n " << n << " task " << i;
    }
  }
}

TEST(KernelsParallel, OneThreadStartsNoWorker) {
  const unsigned before = detail::pool_workers();
  ThreadsScope scope(1);
  std::vector<int> order;
  parallel_for(6, [&](size_t i) { order.push_back(static_cast<int>(i)); });
  parallel_ranges(1 << 20, 64, 1, [&](size_t b, size_t e) { order.push_back(static_cast<int>(e - b)); });
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5, 1 << 20}));
  EXPECT_EQ(detail::pool_workers(), before);
}

TEST(KernelsParallel, NestedCallsRunInline) {
  ThreadsScope scope(3);
  std::atomic<int> inner{0};
  std::atomic<unsigned> widest_inside{0};
  parallel_for(4, [&](size_t) {
    unsigned w = threads();
    if (w > widest_inside.load()) widest_inside.store(w);
    parallel_for(5, [&](size_t) { inner.fetch_add(1); });
  });
  EXPECT_EQ(inner.load(), 20);
  EXPECT_EQ(widest_inside.load(), 1u);  // inside a task, everything runs on that task's thread
  EXPECT_EQ(threads(), 3u);             // and the caller's setting is back afterwards
}

TEST(KernelsParallel, TaskExceptionReachesTheCaller) {
  ThreadsScope scope(4);
  std::atomic<int> ran{0};
  EXPECT_THROW(parallel_for(64,
                            [&](size_t i) {
                              ran.fetch_add(1);
                              if (i == 3) throw std::runtime_error("task 3");
                            }),
               std::runtime_error);
  EXPECT_GE(ran.load(), 1);
  // The pool still works after a failed call.
  std::atomic<int> again{0};
  parallel_for(8, [&](size_t) { again.fetch_add(1); });
  EXPECT_EQ(again.load(), 8);
}

TEST(KernelsParallel, RangesCoverEverythingOnGrainBoundaries) {
  ThreadsScope scope(3);
  const size_t total = 1000003;
  std::vector<std::atomic<int>> hits(total);
  std::atomic<int> parts{0};
  parallel_ranges(total, 256, 1, [&](size_t b, size_t e) {
    EXPECT_EQ(b % 256, 0u);
    EXPECT_TRUE(e == total || e % 256 == 0);
    parts.fetch_add(1);
    for (size_t i = b; i < e; ++i) hits[i].fetch_add(1);
  });
  EXPECT_EQ(parts.load(), 3);
  for (size_t i = 0; i < total; ++i) ASSERT_EQ(hits[i].load(), 1) << i;
  // Below twice the minimum range there is one part.
  parts = 0;
  parallel_ranges(100, 1, 64, [&](size_t b, size_t e) {
    EXPECT_EQ(b, 0u);
    EXPECT_EQ(e, 100u);
    parts.fetch_add(1);
  });
  EXPECT_EQ(parts.load(), 1);
}

// Two callers on their own threads keep their own settings and share the pool without waiting
// on each other.
TEST(KernelsParallel, ConcurrentCallersKeepTheirOwnWidth) {
  std::atomic<int> total{0};
  auto caller = [&](unsigned width, unsigned* seen) {
    ThreadsScope scope(width);
    *seen = threads();
    for (int round = 0; round < 50; ++round) parallel_for(16, [&](size_t) { total.fetch_add(1); });
  };
  unsigned a = 0, b = 0;
  std::thread ta(caller, 2u, &a), tb(caller, 3u, &b);
  ta.join();
  tb.join();
  EXPECT_EQ(a, 2u);
  EXPECT_EQ(b, 3u);
  EXPECT_EQ(total.load(), 2 * 50 * 16);
  EXPECT_EQ(threads(), 1u);  // this thread never set anything
}

// The default floors keep small GEMMs on one thread (handing a part to a worker costs more than
// they take) and split the others, from about a million multiply-adds (parallel.h).
TEST(KernelsParallel, SmallGemmsStayOnOneThread) {
  ThreadsScope scope(2);
  EXPECT_EQ(gemm_split(16, 128, 256, 14, 32, Prepacked::B).parts, 1u);     // 0.5 M: one thread
  EXPECT_EQ(gemm_split(32, 256, 256, 14, 32, Prepacked::B).parts, 2u);     // a small BERT's linear layer, 2 M
  EXPECT_EQ(gemm_split(32, 729, 128, 14, 32, Prepacked::A).parts, 2u);     // SqueezeNet 1.1 fire4 squeeze, 128 -> 32 at 27x27, 3 M
  EXPECT_EQ(gemm_split(64, 3136, 576, 14, 32, Prepacked::A).parts, 2u);    // a ResNet 3x3 conv at 56x56
  ParallelFloorsScope floors(1, 1);
  EXPECT_EQ(gemm_split(16, 128, 256, 14, 32, Prepacked::B).parts, 2u);
}

// With B prepacked (a weight), a wide product of few rows splits B's columns so each thread streams
// half of the weight; a tall one splits its rows and B is read by each thread from cache.
TEST(KernelsParallel, PrepackedWeightsSplitAlongTheWiderSide) {
  ThreadsScope scope(2);
  GemmSplit wide = gemm_split(32, 5632, 1024, 14, 32, Prepacked::B);  // a decoder's gate/up over 32 tokens
  EXPECT_EQ(wide.parts, 2u);
  EXPECT_TRUE(wide.cols);
  GemmSplit tall = gemm_split(1024, 1024, 1024, 14, 32, Prepacked::B);  // 1024 tokens
  EXPECT_EQ(tall.parts, 2u);
  EXPECT_FALSE(tall.cols);
  size_t i0, i1, j0, j1;
  wide.part(1, i0, i1, j0, j1);
  EXPECT_EQ(i0, 0u);
  EXPECT_EQ(i1, 32u);
  EXPECT_EQ(j0 % 32, 0u);  // whole register tiles
  EXPECT_EQ(j1, 5632u);
}

TEST(KernelsParallel, ZeroMeansTheMachinesThreads) {
  ThreadsScope scope(0);
  EXPECT_EQ(threads(), hardware_threads());
  EXPECT_GE(hardware_threads(), 1u);
}

// Runs `fill(out)` with one thread and with 2, 3 and 4, and expects the same bytes each time.
template <class Fill>
void expect_same_bits(size_t n, Fill&& fill, const std::string& what) {
  std::vector<float> one(n, -7.f);
  {
    ThreadsScope scope(1);
    fill(one.data());
  }
  for (unsigned width : kWidths) {
    std::vector<float> many(n, 3.f);
    ThreadsScope scope(width);
    // The shapes here are small: lower the floors so that they are split.
    ParallelFloorsScope floors(size_t{1} << 16, size_t{1} << 18);
    fill(many.data());
    EXPECT_EQ(std::memcmp(one.data(), many.data(), n * sizeof(float)), 0) << what << " with " << width << " threads";
  }
}

TEST(KernelsParallel, SgemmBitIdentical) {
  const KernelTable& t = active_table();
  struct Case {
    size_t M, N, K;
    bool ta, tb;
    float beta;
  };
  const Case cases[] = {{64, 3000, 70, false, false, 0.f},  {300, 40, 513, false, true, 0.f},
                        {129, 129, 129, true, false, 0.5f}, {7, 2049, 33, true, true, 1.f},
                        {1000, 17, 300, false, false, 0.f}, {96, 512, 257, false, false, 0.f},
                        // one row of A: ranges of B's rows (transposed) or columns per thread
                        {1, 2999, 700, false, true, 0.5f},  {1, 2501, 600, false, false, 0.f}};
  for (const Case& c : cases) {
    const size_t lda = c.ta ? c.M : c.K, ldb = c.tb ? c.K : c.N;
    const std::vector<float> A = rnd(c.M * c.K, -1.f, 1.f, 1), B = rnd(c.K * c.N, -1.f, 1.f, 2);
    const std::vector<float> C0 = rnd(c.M * c.N, -1.f, 1.f, 3);
    const std::string what = "sgemm " + std::to_string(c.M) + "x" + std::to_string(c.N) + "x" + std::to_string(c.K);
    expect_same_bits(c.M * c.N, [&](float* C) {
      std::memcpy(C, C0.data(), C0.size() * sizeof(float));
      t.sgemm(c.ta, c.tb, c.M, c.N, c.K, 0.75f, A.data(), lda, B.data(), ldb, c.beta, C, c.N);
    }, what);
    const size_t packed_floats = t.sgemm_packed_b_size(c.K, c.N);
    if (packed_floats == 0 || c.tb) continue;
    expect_same_bits(packed_floats, [&](float* out) { t.sgemm_pack_b(c.K, c.N, B.data(), ldb, out); },
                     what + " packing");
    std::vector<float> buf;
    float* packed = test::aligned_floats(buf, packed_floats);
    t.sgemm_pack_b(c.K, c.N, B.data(), ldb, packed);
    const size_t lda_n = c.K;
    const std::vector<float> An = rnd(c.M * c.K, -1.f, 1.f, 4);
    expect_same_bits(c.M * c.N, [&](float* C) {
      t.sgemm_prepacked_b(c.M, c.N, c.K, An.data(), lda_n, packed, 0.f, C, c.N);
    }, what + " prepacked");
  }
  EXPECT_GT(detail::pool_workers(), 0u);  // the split path ran
}

TEST(KernelsParallel, ConvolutionsBitIdentical) {
  const KernelTable& t = active_table();
  struct Case {
    size_t N, C_in, H, W, C_out, k, stride, pad, group;
    Activation act;
  };
  const Case cases[] = {
      {1, 64, 28, 28, 48, 3, 1, 1, 1, Activation::Relu},       // Winograd
      // Winograd with at least two tile-row blocks per thread: each thread runs whole blocks
      // (ResNet's 3x3 64-channel conv on 56x56: 7 blocks; batch 3 with a ragged last block)
      {1, 64, 56, 56, 64, 3, 1, 1, 1, Activation::Relu},
      {3, 64, 45, 27, 24, 3, 1, 1, 1, Activation::Sigmoid},
      {2, 20, 15, 17, 24, 3, 2, 1, 1, Activation::None},       // implicit GEMM, strided
      {2, 16, 15, 17, 24, 3, 2, 1, 1, Activation::None},       // direct (at most 16 input channels), strided
      {2, 3, 120, 100, 32, 3, 2, 1, 1, Activation::Relu},      // direct: a stem, bands of rows split
      {1, 64, 14, 14, 128, 1, 1, 0, 1, Activation::Clip},      // 1x1
      {1, 48, 30, 30, 48, 3, 1, 1, 48, Activation::Relu},      // depthwise
      {1, 96, 20, 20, 96, 5, 2, 2, 96, Activation::Sigmoid},   // depthwise, strided, activation after
      {1, 32, 20, 20, 64, 3, 1, 1, 4, Activation::None},       // grouped
  };
  for (const Case& c : cases) {
    Conv2DParams p;
    p.N = c.N;
    p.C_in = c.C_in;
    p.H = c.H;
    p.W = c.W;
    p.C_out = c.C_out;
    p.kH = p.kW = c.k;
    p.stride_h = p.stride_w = c.stride;
    p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = c.pad;
    p.group = c.group;
    p.act = c.act;
    p.act_alpha = -0.5f;
    p.act_beta = 0.5f;
    conv2d_fill_output_size(p);
    const std::vector<float> x = rnd(p.N * p.C_in * p.H * p.W, -1.f, 1.f, 5);
    const std::vector<float> w = rnd(p.C_out * (p.C_in / p.group) * p.kH * p.kW, -1.f, 1.f, 6);
    const std::vector<float> bias = rnd(p.C_out, -1.f, 1.f, 8);
    p.bias = bias.data();
    const size_t n = p.N * p.C_out * p.H_out * p.W_out;
    const std::string what = "conv " + std::to_string(c.C_in) + "->" + std::to_string(c.C_out) + " k" +
                             std::to_string(c.k) + " s" + std::to_string(c.stride) + " g" + std::to_string(c.group);
    expect_same_bits(n, [&](float* y) { t.conv2d(p, x.data(), w.data(), y); }, what);
    const size_t packed_floats = t.conv2d_packed_size(p);
    if (packed_floats == 0) continue;
    expect_same_bits(packed_floats, [&](float* out) { t.conv2d_pack(p, w.data(), out); }, what + " packing");
    std::vector<float> buf;
    float* packed = test::aligned_floats(buf, packed_floats);
    t.conv2d_pack(p, w.data(), packed);
    expect_same_bits(n, [&](float* y) { t.conv2d_prepacked(p, x.data(), packed, y); }, what + " prepacked");
  }
}

// The 3-D convolution runs blocks of output lines on the threads (conv_gemm.cpp): 16 blocks here,
// batch 2 and two groups, a ragged last block.
TEST(KernelsParallel, Conv3dBitIdentical) {
  const KernelTable& t = active_table();
  ConvNdParams p;
  p.rank = 3; p.N = 2; p.C_in = 8; p.C_out = 6; p.group = 2;
  const size_t in[3] = {5, 31, 40};
  size_t in_sz = 1, out_sz = 1;
  for (size_t i = 0; i < 3; ++i) {
    p.in[i] = in[i]; p.kernel[i] = 3; p.stride[i] = 1; p.dilation[i] = 1; p.pad_begin[i] = 1; p.out[i] = in[i];
    in_sz *= in[i], out_sz *= in[i];
  }
  const std::vector<float> x = rnd(p.N * p.C_in * in_sz, -1.f, 1.f, 11), w = rnd(p.C_out * 4 * 27, -1.f, 1.f, 12);
  const std::vector<float> bias = rnd(p.C_out, -1.f, 1.f, 13);
  p.bias = bias.data();
  p.act = Activation::Relu;
  expect_same_bits(p.N * p.C_out * out_sz, [&](float* y) { t.conv_nd(p, x.data(), w.data(), y); }, "conv 3-D");
}

TEST(KernelsParallel, PoolingBitIdentical) {
  const KernelTable& t = active_table();
  for (size_t stride : {size_t{1}, size_t{2}}) {
    Pool2DParams p;
    p.N = 2;
    p.C = 40;
    p.H = 33;
    p.W = 37;
    p.kH = p.kW = 3;
    p.stride_h = p.stride_w = stride;
    p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
    p.H_out = (p.H + 2 - 3) / stride + 1;
    p.W_out = (p.W + 2 - 3) / stride + 1;
    const std::vector<float> x = rnd(p.N * p.C * p.H * p.W, -1.f, 1.f, 9);
    const size_t n = p.N * p.C * p.H_out * p.W_out;
    expect_same_bits(n, [&](float* y) { t.max_pool2d(p, x.data(), y); }, "max pool s" + std::to_string(stride));
    expect_same_bits(n, [&](float* y) { t.avg_pool2d(p, x.data(), y); }, "avg pool s" + std::to_string(stride));
  }
}

TEST(KernelsParallel, ElementwiseAndRowsBitIdentical) {
  for (size_t n : {size_t{1000}, size_t{200003}}) {
    const std::vector<float> x = rnd(n, -4.f, 4.f, 10), b = rnd(n, -4.f, 4.f, 11);
    expect_same_bits(n, [&](float* y) { unary(UnaryOp::Tanh, x.data(), y, n); }, "tanh " + std::to_string(n));
    expect_same_bits(n, [&](float* y) { unary(UnaryOp::Exp, x.data(), y, n); }, "exp " + std::to_string(n));
    const int64_t dims[] = {static_cast<int64_t>(n)};
    expect_same_bits(n, [&](float* y) { binary_f32(BinaryOp::Mul, x.data(), dims, 1, b.data(), dims, 1, y); },
                     "mul " + std::to_string(n));
  }
  // Channel broadcast over [8, 64, 40, 40] op [64, 1, 1]: split by rows of the walk.
  const int64_t xd[] = {8, 64, 40, 40}, cd[] = {64, 1, 1};
  const size_t total = 8 * 64 * 40 * 40;
  const std::vector<float> x = rnd(total, -1.f, 1.f, 12), c = rnd(64, -1.f, 1.f, 13);
  expect_same_bits(total, [&](float* y) { binary_f32(BinaryOp::Add, x.data(), xd, 4, c.data(), cd, 3, y); },
                   "channel add");
  expect_same_bits(total, [&](float* y) { softmax(x.data(), y, 8 * 64 * 40, 40, 1); }, "softmax rows");
  expect_same_bits(total, [&](float* y) { log_softmax(x.data(), y, 8, 64, 1600); }, "log softmax inner");
  const std::vector<float> scale = rnd(1600, 0.5f, 1.5f, 14), shift = rnd(1600, -1.f, 1.f, 15);
  std::vector<float> mean_one(512), inv_one(512);
  expect_same_bits(total, [&](float* y) {
    std::vector<float> mean(512), inv(512);
    layer_norm(x.data(), scale.data(), shift.data(), y, 512, 1600, 1e-5f, mean.data(), inv.data());
    if (threads() == 1) {
      mean_one = mean;
      inv_one = inv;
    } else {
      EXPECT_EQ(std::memcmp(mean.data(), mean_one.data(), 512 * sizeof(float)), 0);
      EXPECT_EQ(std::memcmp(inv.data(), inv_one.data(), 512 * sizeof(float)), 0);
    }
  }, "layer norm");
}

// Through the C ABI: run.threads is checked when set, and ofg_run and ofg_verify give the same
// results with one thread and with several (verify then runs both models at once).
TEST(KernelsParallel, RunThreadsOptionAndVerify) {
  ofg_options* o = nullptr;
  ASSERT_EQ(ofg_options_create(&o), OFG_OK);
  for (const char* bad : {"-1", "two", "1025", "100000", ""})
    EXPECT_EQ(ofg_options_set(o, "run.threads", bad), OFG_ERR_INVALID_ARGUMENT) << bad;
  for (const char* good : {"0", "1", "1024"}) EXPECT_EQ(ofg_options_set(o, "run.threads", good), OFG_OK) << good;
  ofg_model *ref = nullptr, *cand = nullptr;
  ASSERT_EQ(ofg_model_create_demo(&ref), OFG_OK);
  ASSERT_EQ(ofg_model_clone(ref, &cand), OFG_OK);
  ASSERT_EQ(ofg_optimize(cand, nullptr, nullptr), OFG_OK);
  std::string json_one;
  for (const char* width : {"1", "2", "3"}) {
    ASSERT_EQ(ofg_options_set(o, "run.threads", width), OFG_OK);
    ASSERT_EQ(ofg_options_set(o, "verify.samples", "3"), OFG_OK);
    ofg_report* r = nullptr;
    ASSERT_EQ(ofg_verify(ref, cand, o, &r), OFG_OK) << ofg_last_error();
    int32_t passed = 0;
    ASSERT_EQ(ofg_report_passed(r, &passed), OFG_OK);
    EXPECT_EQ(passed, 1);
    const std::string json = ofg_report_json(r);
    if (json_one.empty()) json_one = json;
    else EXPECT_EQ(json, json_one) << "verify with " << width << " threads";
    ofg_report_free(r);
  }
  ofg_model_free(cand);
  ofg_model_free(ref);
  ofg_options_free(o);
}

}  // namespace
}  // namespace ofg::kernels
