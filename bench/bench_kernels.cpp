// Kernel benchmarks. The FMA peak loop runs in the same binary so the SGEMM figures can be read
// as a fraction of what this core can do (counter "of_peak").
#include "kernels/kernels.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <ctime>
#include <cmath>
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
// 12 independent FMA chains hide the 4-5 cycle latency on both FMA pipes. Compiled for AVX2
// through the target attribute so the rest of this file stays baseline x86-64.
__attribute__((target("avx2,fma"))) double fma_peak_flops(int64_t iters) {
  // Named variables (not an array) so the compiler keeps all twelve chains in registers.
  __m256 a0 = _mm256_set1_ps(0.f), a1 = _mm256_set1_ps(1e-3f), a2 = _mm256_set1_ps(2e-3f),
         a3 = _mm256_set1_ps(3e-3f), a4 = _mm256_set1_ps(4e-3f), a5 = _mm256_set1_ps(5e-3f),
         a6 = _mm256_set1_ps(6e-3f), a7 = _mm256_set1_ps(7e-3f), a8 = _mm256_set1_ps(8e-3f),
         a9 = _mm256_set1_ps(9e-3f), a10 = _mm256_set1_ps(1e-2f), a11 = _mm256_set1_ps(1.1e-2f);
  const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
  for (int64_t it = 0; it < iters; ++it) {
    a0 = _mm256_fmadd_ps(a0, m, c); a1 = _mm256_fmadd_ps(a1, m, c);
    a2 = _mm256_fmadd_ps(a2, m, c); a3 = _mm256_fmadd_ps(a3, m, c);
    a4 = _mm256_fmadd_ps(a4, m, c); a5 = _mm256_fmadd_ps(a5, m, c);
    a6 = _mm256_fmadd_ps(a6, m, c); a7 = _mm256_fmadd_ps(a7, m, c);
    a8 = _mm256_fmadd_ps(a8, m, c); a9 = _mm256_fmadd_ps(a9, m, c);
    a10 = _mm256_fmadd_ps(a10, m, c); a11 = _mm256_fmadd_ps(a11, m, c);
  }
  __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                           _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
  s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(a8, a9), _mm256_add_ps(a10, a11)));
  float out[8];
  _mm256_storeu_ps(out, s);
  benchmark::DoNotOptimize(out[0]);
  return static_cast<double>(iters) * 12 * 8 * 2;
}
#endif

// Measured once (best of a few runs) so every SGEMM benchmark can report its share of it.
double peak_gflops() {
#if defined(__x86_64__)
  static const double peak = [] {
    if (!k::simd_table()) return 0.0;
    double best = 0;
    for (int r = 0; r < 5; ++r) {
      // Thread CPU time, like the benchmark counters, so a busy machine does not skew the ratio.
      timespec t0, t1;
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
      const double f = fma_peak_flops(20'000'000);
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
      const double s = double(t1.tv_sec - t0.tv_sec) + 1e-9 * double(t1.tv_nsec - t0.tv_nsec);
      best = std::max(best, f / s * 1e-9);
    }
    return best;
  }();
  return peak;
#else
  return 0.0;
#endif
}

void BM_FmaPeak(benchmark::State& state) {
#if defined(__x86_64__)
  if (!k::simd_table()) {
    state.SkipWithError("no AVX2+FMA");
    return;
  }
  double flops = 0;
  for (auto _ : state) flops += fma_peak_flops(1'000'000);
  state.counters["GFLOPS"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsRate);
  state.counters["peak_GFLOPS"] = peak_gflops();
#else
  state.SkipWithError("x86-64 only");
#endif
}
BENCHMARK(BM_FmaPeak);

// The table a benchmark argument names (0 scalar, 1 SIMD), labelled on the state; null, with the
// benchmark marked skipped, when this CPU has no SIMD table.
const k::KernelTable* table_arg(benchmark::State& state, int64_t which) {
  const k::KernelTable* t = which == 0 ? &k::scalar_table() : k::simd_table();
  if (!t) state.SkipWithError("no SIMD table on this CPU");
  else state.SetLabel(t->isa);
  return t;
}

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
  const double peak = peak_gflops();
  if (peak > 0) {
    state.counters["peak_GFLOPS"] = peak;
    state.counters["of_peak"] = benchmark::Counter(flops * 1e-9 / peak,
                                                   benchmark::Counter::kIsIterationInvariantRate);
  }
}
BENCHMARK(BM_Sgemm)->ArgsProduct({{256, 512, 1024}, {1}})->Unit(benchmark::kMillisecond);
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
                                  {0, 1}});

void BM_BinaryAdd(benchmark::State& state) {
  const k::KernelTable* t = table_arg(state, state.range(0));
  if (!t) return;
  const int64_t da[4] = {8, 64, 32, 32}, db[3] = {64, 1, 1};
  auto a = random_vec(8 * 64 * 32 * 32), b = random_vec(64);
  std::vector<float> y(a.size());
  timed(state, y, a.size(),
        [&] { k::binary_f32_with(*t, k::BinaryOp::Add, a.data(), da, 4, b.data(), db, 3, y.data()); });
}
BENCHMARK(BM_BinaryAdd)->Arg(0)->Arg(1);

void BM_Softmax(benchmark::State& state) {
  const k::KernelTable* t = table_arg(state, state.range(0));
  if (!t) return;
  const size_t rows = 256, len = 1000;
  auto x = random_vec(rows * len, -5.f, 5.f);
  std::vector<float> y(x.size());
  timed(state, y, x.size(), [&] { t->softmax(x.data(), y.data(), rows, len, 1, false); });
}
BENCHMARK(BM_Softmax)->Arg(0)->Arg(1);

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
BENCHMARK(BM_Conv3x3)->Arg(1)->Unit(benchmark::kMillisecond);

// Depthwise 3x3 (MobileNet shapes): channels, plane size, stride.
void BM_Depthwise3x3(benchmark::State& state) {
  const k::KernelTable* t = table_arg(state, 1);
  if (!t) return;
  k::Conv2DParams p;
  p.N = 1; p.C_in = p.C_out = p.group = state.range(0); p.H = p.W = state.range(1); p.kH = p.kW = 3;
  p.stride_h = p.stride_w = state.range(2);
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  k::conv2d_fill_output_size(p);
  auto x = random_vec(p.C_in * p.H * p.W), w = random_vec(p.C_out * 9);
  std::vector<float> y(p.C_out * p.H_out * p.W_out);
  for (auto _ : state) {
    t->conv2d(p, x.data(), w.data(), y.data());
    benchmark::DoNotOptimize(y.data());
  }
  const double flops = 2.0 * p.C_out * p.H_out * p.W_out * 9;
  state.counters["GFLOPS"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Depthwise3x3)->Args({96, 112, 2})->Args({144, 56, 1})->Args({192, 28, 1})->Args({960, 7, 1})->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
