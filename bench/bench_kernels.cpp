// Kernel benchmarks. The FMA peak loop runs in the same binary so the SGEMM figures can be read
// as a fraction of what this core can do (counter "of_peak").
#include "kernels/kernels.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <ctime>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace k = ofg::kernels;

namespace {

std::vector<float> random_vec(size_t n, float lo = -1.f, float hi = 1.f, unsigned seed = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

#if defined(__x86_64__)
// 12 independent FMA chains hide the 4-5 cycle latency on both FMA pipes: one function per
// vector width, each compiled for its ISA through the target attribute so the rest of this file
// stays baseline x86-64. Named variables (not an array) so the compiler keeps all twelve chains
// in registers.
#define OFG_FMA_PEAK(name, isa, V, set1, fmadd, store, lanes)                                       \
  __attribute__((target(isa))) double name(int64_t iters) {                                        \
    V a0 = set1(0.f), a1 = set1(1e-3f), a2 = set1(2e-3f), a3 = set1(3e-3f), a4 = set1(4e-3f),       \
      a5 = set1(5e-3f), a6 = set1(6e-3f), a7 = set1(7e-3f), a8 = set1(8e-3f), a9 = set1(9e-3f),     \
      a10 = set1(1e-2f), a11 = set1(1.1e-2f);                                                      \
    const V m = set1(0.999999f), c = set1(1e-7f);                                                  \
    for (int64_t it = 0; it < iters; ++it) {                                                       \
      a0 = fmadd(a0, m, c); a1 = fmadd(a1, m, c); a2 = fmadd(a2, m, c); a3 = fmadd(a3, m, c);      \
      a4 = fmadd(a4, m, c); a5 = fmadd(a5, m, c); a6 = fmadd(a6, m, c); a7 = fmadd(a7, m, c);      \
      a8 = fmadd(a8, m, c); a9 = fmadd(a9, m, c); a10 = fmadd(a10, m, c); a11 = fmadd(a11, m, c);  \
    }                                                                                              \
    const V one = set1(1.f);                                                                       \
    V s = fmadd(a0, one, fmadd(a1, one, fmadd(a2, one, fmadd(a3, one, fmadd(a4, one, a5)))));     \
    s = fmadd(s, one, fmadd(a6, one, fmadd(a7, one, fmadd(a8, one, fmadd(a9, one, a10)))));       \
    s = fmadd(s, one, a11);                                                                        \
    float out[lanes];                                                                              \
    store(out, s);                                                                                 \
    benchmark::DoNotOptimize(out[0]);                                                              \
    return static_cast<double>(iters) * 12 * (lanes) * 2;                                          \
  }
OFG_FMA_PEAK(fma_peak_ymm, "avx2,fma", __m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_storeu_ps, 8)
OFG_FMA_PEAK(fma_peak_zmm, "avx512f", __m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_storeu_ps, 16)
#undef OFG_FMA_PEAK

// The FMA loop of a table's vector width: zmm for the AVX-512 table, ymm otherwise.
double fma_peak_flops(bool zmm, int64_t iters) { return zmm ? fma_peak_zmm(iters) : fma_peak_ymm(iters); }
bool is_avx512(const k::KernelTable* t) { return t && std::strcmp(t->isa, "avx512") == 0; }
#endif

// The FMA peak of table t's vector width, measured once (best of a few runs) so every SGEMM
// benchmark can report its share of it; 0 without a SIMD table.
double peak_gflops(const k::KernelTable* t) {
#if defined(__x86_64__)
  auto measure = [](bool zmm) {
    double best = 0;
    for (int r = 0; r < 5; ++r) {
      // Thread CPU time, like the benchmark counters, so a busy machine does not skew the ratio.
      timespec t0, t1;
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
      const double f = fma_peak_flops(zmm, 20'000'000);
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
      const double s = double(t1.tv_sec - t0.tv_sec) + 1e-9 * double(t1.tv_nsec - t0.tv_nsec);
      best = std::max(best, f / s * 1e-9);
    }
    return best;
  };
  if (!t || t == &k::scalar_table()) return 0.0;
  if (is_avx512(t)) {
    static const double zmm = measure(true);
    return zmm;
  }
  static const double ymm = measure(false);
  return ymm;
#else
  return 0.0;
#endif
}

// The table a benchmark argument names: 0 scalar, i >= 1 the i-th SIMD table of this CPU
// (x86-64: 1 AVX2, 2 AVX-512), labelled on the state; null, with the benchmark marked skipped,
// when this CPU has no such table.
const k::KernelTable* table_arg(benchmark::State& state, int64_t which) {
  const auto& simd = k::simd_tables();
  const k::KernelTable* t = which == 0 ? &k::scalar_table()
                            : static_cast<size_t>(which) <= simd.size() ? simd[static_cast<size_t>(which) - 1]
                                                                         : nullptr;
  if (!t) state.SkipWithError("no such SIMD table on this CPU");
  else state.SetLabel(t->isa);
  return t;
}

void BM_FmaPeak(benchmark::State& state) {
#if defined(__x86_64__)
  const k::KernelTable* t = table_arg(state, state.range(0));
  if (!t) return;
  const bool zmm = is_avx512(t);
  double flops = 0;
  for (auto _ : state) flops += fma_peak_flops(zmm, 1'000'000);
  state.counters["GFLOPS"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsRate);
  state.counters["peak_GFLOPS"] = peak_gflops(t);
#else
  state.SkipWithError("x86-64 only");
#endif
}
BENCHMARK(BM_FmaPeak)->Arg(1)->Arg(2);

// Runs `body` every iteration (its output y kept from being optimised away) and reports `items`
// processed per iteration.
template <class Body>
void timed(benchmark::State& state, std::vector<float>& y, size_t items, Body body) {
  for (auto _ : state) {
    body();
    benchmark::DoNotOptimize(y.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * items));
}

void BM_Sgemm(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const k::KernelTable* t = table_arg(state, state.range(1));
  if (!t) return;
  auto A = random_vec(n * n, -1, 1, 1), B = random_vec(n * n, -1, 1, 2);
  std::vector<float> C(n * n);
  for (auto _ : state) {
    t->sgemm(false, false, n, n, n, 1.f, A.data(), n, B.data(), n, 0.f, C.data(), n);
    benchmark::DoNotOptimize(C.data());
    benchmark::ClobberMemory();
  }
  const double flops = 2.0 * n * n * n;
  state.counters["GFLOPS"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  const double peak = peak_gflops(t);
  if (peak > 0) {
    state.counters["peak_GFLOPS"] = peak;
    state.counters["of_peak"] = benchmark::Counter(flops * 1e-9 / peak,
                                                   benchmark::Counter::kIsIterationInvariantRate);
  }
}
BENCHMARK(BM_Sgemm)->ArgsProduct({{256, 512, 1024}, {1, 2}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Sgemm)->Args({256, 0})->Unit(benchmark::kMillisecond);

void BM_Unary(benchmark::State& state) {
  const auto op = static_cast<k::UnaryOp>(state.range(0));
  const k::KernelTable* t = table_arg(state, state.range(1));
  if (!t) return;
  const size_t n = 1 << 16;
  auto x = random_vec(n, -5.f, 5.f);
  std::vector<float> y(n);
  timed(state, y, n, [&] { t->unary(op, x.data(), y.data(), n, 0.1f, 6.f); });
}
BENCHMARK(BM_Unary)->ArgsProduct({{static_cast<int64_t>(k::UnaryOp::Relu),
                                   static_cast<int64_t>(k::UnaryOp::Exp),
                                   static_cast<int64_t>(k::UnaryOp::Tanh),
                                   static_cast<int64_t>(k::UnaryOp::Sigmoid),
                                   static_cast<int64_t>(k::UnaryOp::Erf),
                                   static_cast<int64_t>(k::UnaryOp::GeluErf)},
                                  {0, 1, 2}});

void BM_BinaryAdd(benchmark::State& state) {
  const k::KernelTable* t = table_arg(state, state.range(0));
  if (!t) return;
  const int64_t da[4] = {8, 64, 32, 32}, db[3] = {64, 1, 1};
  auto a = random_vec(8 * 64 * 32 * 32), b = random_vec(64);
  std::vector<float> y(a.size());
  timed(state, y, a.size(),
        [&] { k::binary_f32_with(*t, k::BinaryOp::Add, a.data(), da, 4, b.data(), db, 3, y.data()); });
}
BENCHMARK(BM_BinaryAdd)->Arg(0)->Arg(1)->Arg(2);

void BM_Softmax(benchmark::State& state) {
  const k::KernelTable* t = table_arg(state, state.range(0));
  if (!t) return;
  const size_t rows = 256, len = 1000;
  auto x = random_vec(rows * len, -5.f, 5.f);
  std::vector<float> y(x.size());
  timed(state, y, x.size(), [&] { t->softmax(x.data(), y.data(), rows, len, 1, false); });
}
BENCHMARK(BM_Softmax)->Arg(0)->Arg(1)->Arg(2);

// The entries the AVX-512 table may or may not override (docs/building.md, the kernel table), each on data that
// stays in L2, so the figures show the vector width rather than the memory bandwidth:
// op(table, x, y) on nx random floats x into ny floats y, nx items an iteration.
template <class Op>
void table_op(benchmark::State& state, size_t nx, size_t ny, Op op) {
  const k::KernelTable* t = table_arg(state, state.range(0));
  if (!t) return;
  auto x = random_vec(nx);
  std::vector<float> y(ny);
  timed(state, y, nx, [&] { op(*t, x.data(), y.data()); });
}

void BM_LayerNorm(benchmark::State& state) {
  const size_t rows = 128, D = 768;
  const auto sc = random_vec(D, -1, 1, 2), bi = random_vec(D, -1, 1, 3);
  table_op(state, rows * D, rows * D, [&](const k::KernelTable& t, const float* x, float* y) {
    t.layer_norm(x, sc.data(), bi.data(), y, rows, D, 1e-5f, nullptr, nullptr);
  });
}
BENCHMARK(BM_LayerNorm)->Arg(1)->Arg(2);

void BM_ReduceSum(benchmark::State& state) {
  table_op(state, 128 * 768, 128, [](const k::KernelTable& t, const float* x, float* y) {
    t.reduce(k::ReduceOp::Sum, x, y, 128, 768, 1);
  });
}
BENCHMARK(BM_ReduceSum)->Arg(1)->Arg(2);

void BM_Sgemv(benchmark::State& state) {
  const auto v = random_vec(512, -1, 1, 2);
  table_op(state, 256 * 512, 256, [&](const k::KernelTable& t, const float* A, float* y) {
    t.sgemv(256, 512, 1.f, A, 512, v.data(), 0.f, y);
  });
}
BENCHMARK(BM_Sgemv)->Arg(1)->Arg(2);

void BM_Transpose(benchmark::State& state) {
  table_op(state, 256 * 384, 256 * 384, [](const k::KernelTable& t, const float* x, float* y) {
    t.transpose2d(4, x, 384, y, 256, 256, 384);
  });
}
BENCHMARK(BM_Transpose)->Arg(1)->Arg(2);

void BM_MaxPool3x3(benchmark::State& state) {
  k::Pool2DParams p;
  p.C = 64; p.H = p.W = 56; p.kH = p.kW = 3; p.stride_h = p.stride_w = 2;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  p.H_out = p.W_out = 28;
  table_op(state, p.C * p.H * p.W, p.C * p.H_out * p.W_out,
           [&](const k::KernelTable& t, const float* x, float* y) { t.max_pool2d(p, x, y); });
}
BENCHMARK(BM_MaxPool3x3)->Arg(1)->Arg(2);

void BM_Conv3x3(benchmark::State& state) {
  const k::KernelTable* t = table_arg(state, state.range(0));
  if (!t) return;
  k::Conv2DParams p;
  p.N = 1; p.C_in = 64; p.H = 56; p.W = 56; p.C_out = 64; p.kH = 3; p.kW = 3;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  k::conv2d_fill_output_size(p);
  auto x = random_vec(p.C_in * p.H * p.W), w = random_vec(p.C_out * p.C_in * 9);
  std::vector<float> y(p.C_out * p.H_out * p.W_out);
  for (auto _ : state) {
    t->conv2d(p, x.data(), w.data(), y.data());
    benchmark::DoNotOptimize(y.data());
  }
  const double flops = 2.0 * p.C_out * p.H_out * p.W_out * p.C_in * 9;
  state.counters["GFLOPS"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Conv3x3)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

// Convolutions on the implicit-GEMM path with weights packed once, as the interpreter runs them:
// state.range(0) picks the table, state.range(1) the shape. 0: a ViT's 16x16 stride-16 patchify
// (two 3x64x64 images); 1: SqueezeNet's first 3x3 stride-2 conv; 2 and 3: a 1x3 (padded along W)
// and a 3x1 conv on the narrow planes of an audio embedding model; 4: ResNet's 7x7 stride-2 stem;
// 5-8: SqueezeNet's 3x3 expand convs; 9-12: ResNet-18's 3x3 convs at batch 2 (the Winograd path);
// 13, 14: SqueezeNet's 1x1 squeeze convs (16 and 32 output channels: partial register tiles);
// 15: the audio model's 1x3 conv on an 8x2 plane (one vector of columns).
void BM_ConvPacked(benchmark::State& state) {
  const k::KernelTable* t = table_arg(state, state.range(0));
  if (!t) return;
  struct Shape { size_t N, C_in, H, W, C_out, kH, kW, stride, pad_h, pad_w; };
  static const Shape shapes[] = {{2, 3, 64, 64, 64, 16, 16, 16, 0, 0},  {1, 3, 224, 224, 64, 3, 3, 2, 0, 0},
                                 {1, 24, 74, 32, 24, 1, 3, 1, 0, 1},    {1, 72, 32, 8, 72, 3, 1, 1, 0, 0},
                                 {1, 3, 224, 224, 64, 7, 7, 2, 3, 3},   {1, 16, 55, 55, 64, 3, 3, 1, 1, 1},
                                 {1, 32, 27, 27, 128, 3, 3, 1, 1, 1},   {1, 64, 13, 13, 256, 3, 3, 1, 1, 1},
                                 {1, 48, 13, 13, 192, 3, 3, 1, 1, 1},   {2, 64, 56, 56, 64, 3, 3, 1, 1, 1},
                                 {2, 128, 28, 28, 128, 3, 3, 1, 1, 1},  {2, 256, 14, 14, 256, 3, 3, 1, 1, 1},
                                 {2, 512, 7, 7, 512, 3, 3, 1, 1, 1},    {1, 128, 55, 55, 16, 1, 1, 1, 0, 0},
                                 {1, 256, 27, 27, 32, 1, 1, 1, 0, 0},   {1, 96, 8, 2, 96, 1, 3, 1, 0, 1}};
  const Shape& s = shapes[state.range(1)];
  k::Conv2DParams p;
  p.N = s.N; p.C_in = s.C_in; p.H = s.H; p.W = s.W; p.C_out = s.C_out; p.kH = s.kH; p.kW = s.kW;
  p.stride_h = p.stride_w = s.stride;
  p.pad_top = p.pad_bottom = s.pad_h; p.pad_left = p.pad_right = s.pad_w;
  k::conv2d_fill_output_size(p);
  const auto x = random_vec(p.N * p.C_in * p.H * p.W), w = random_vec(p.C_out * p.C_in * p.kH * p.kW, -1, 1, 2);
  std::vector<float> packed(t->conv2d_packed_size(p)), y(p.N * p.C_out * p.H_out * p.W_out);
  if (packed.empty()) return state.SkipWithError("no packed form for this table");
  t->conv2d_pack(p, w.data(), packed.data());
  timed(state, y, 1, [&] { t->conv2d_prepacked(p, x.data(), packed.data(), y.data()); });
  const double flops = 2.0 * p.N * p.C_out * p.H_out * p.W_out * p.C_in * p.kH * p.kW;
  state.counters["GFLOPS"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ConvPacked)->ArgsProduct({{1, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}});

// MobileNet's depthwise 3x3 at its plane sizes: state.range(0) picks the table, state.range(1) is
// H = W of the input; the channels grow as the plane shrinks (`channels` at `plane` x `plane`).
void depthwise3x3(benchmark::State& state, size_t stride, size_t channels, size_t plane) {
  k::Conv2DParams p;
  p.N = 1; p.H = p.W = static_cast<size_t>(state.range(1)); p.kH = p.kW = 3;
  p.stride_h = p.stride_w = stride;
  p.C_in = p.C_out = p.group = channels * plane / p.H;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  k::conv2d_fill_output_size(p);
  const auto w = random_vec(p.C_out * 9, -1, 1, 2);
  table_op(state, p.C_in * p.H * p.W, p.C_out * p.H_out * p.W_out,
           [&](const k::KernelTable& t, const float* x, float* y) { t.conv2d(p, x, w.data(), y); });
}
void BM_Depthwise3x3(benchmark::State& state) { depthwise3x3(state, 1, 64, 56); }
BENCHMARK(BM_Depthwise3x3)->ArgsProduct({{1, 2}, {7, 14, 28, 56, 112}});
// The downsampling layers.
void BM_Depthwise3x3Stride2(benchmark::State& state) { depthwise3x3(state, 2, 96, 112); }
BENCHMARK(BM_Depthwise3x3Stride2)->ArgsProduct({{1, 2}, {14, 28, 56, 112}});

}  // namespace

BENCHMARK_MAIN();
