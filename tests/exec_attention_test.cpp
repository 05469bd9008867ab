// Attention (opset 23) on float32 runs as sgemm + float softmax (exec/ops/attention_f32.cpp).
// The ONNX conformance data checks its semantics on small shapes; this checks it on the shapes of
// real models (sequence lengths past every vector width, grouped-query heads, a KV cache, masks)
// against a direct double-precision evaluation of the spec's formula written here.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "exec/interp.h"
#include "ir/builder.h"
#include "kernels/parallel.h"
#include "support/exec_support.h"

using namespace ofg;
using namespace ofg::exec;
using ofg::test::tensor_f;
using ofg::test::tensor_value;
using ofg::test::uniform_values;

namespace {

struct Case {
  int64_t B, Hq, Hkv, Sq, P, D;  // P: cached positions (0: no past inputs)
  bool causal = false;
  int mask = 0;  // 0 none, 1 float (Sq, T) with -inf entries, 2 bool (B, 1, Sq, T) with a fully masked row
  bool three_d = false;
};

// (B, H, S, D) element of a tensor given as (B, H, S, D) or (B, S, H*D).
double at(const std::vector<float>& v, bool three_d, int64_t H, int64_t S, int64_t D, int64_t b, int64_t h, int64_t s,
          int64_t d) {
  return three_d ? v[static_cast<size_t>(((b * S + s) * H + h) * D + d)] : v[static_cast<size_t>(((b * H + h) * S + s) * D + d)];
}

void check(const Case& k, uint32_t seed) {
  const int64_t T = k.P + k.Sq;
  std::mt19937 rng(seed);
  auto q = uniform_values(static_cast<size_t>(k.B * k.Hq * k.Sq * k.D), rng);
  auto kk = uniform_values(static_cast<size_t>(k.B * k.Hkv * k.Sq * k.D), rng);
  auto v = uniform_values(static_cast<size_t>(k.B * k.Hkv * k.Sq * k.D), rng);
  auto pk = uniform_values(static_cast<size_t>(k.B * k.Hkv * k.P * k.D), rng);
  auto pv = uniform_values(static_cast<size_t>(k.B * k.Hkv * k.P * k.D), rng);
  std::vector<float> fmask(static_cast<size_t>(k.Sq * T));
  std::vector<uint8_t> bmask(static_cast<size_t>(k.B * k.Sq * T));
  for (size_t i = 0; i < fmask.size(); ++i) fmask[i] = rng() % 5 == 0 ? -std::numeric_limits<float>::infinity() : (rng() % 100) / 50.f;
  for (size_t i = 0; i < bmask.size(); ++i) bmask[i] = rng() % 4 != 0;
  if (k.B * k.Sq > 1)
    for (int64_t j = 0; j < T; ++j) bmask[static_cast<size_t>(1 * T + j)] = 0;  // batch 0, row 1: nothing attended

  // The model with `outputs` outputs (4 asks for qk_matmul_output, which only the double walk of
  // attention.cpp computes: the float path's oracle), run on `threads` threads.
  auto run = [&](uint32_t outputs, unsigned threads) {
  auto m = new_model(23);
  GraphBuilder b(*m);
  auto shape = [&](int64_t H, int64_t S) {
    return k.three_d ? std::vector<DimSpec>{k.B, S, H * k.D} : std::vector<DimSpec>{k.B, H, S, k.D};
  };
  std::vector<Value*> ins = {b.input("q", kFloat, shape(k.Hq, k.Sq)), b.input("k", kFloat, shape(k.Hkv, k.Sq)),
                             b.input("v", kFloat, shape(k.Hkv, k.Sq))};
  std::vector<std::pair<std::string, RValue>> feeds = {
      {"q", tensor_f(k.three_d ? Shape{k.B, k.Sq, k.Hq * k.D} : Shape{k.B, k.Hq, k.Sq, k.D}, q)},
      {"k", tensor_f(k.three_d ? Shape{k.B, k.Sq, k.Hkv * k.D} : Shape{k.B, k.Hkv, k.Sq, k.D}, kk)},
      {"v", tensor_f(k.three_d ? Shape{k.B, k.Sq, k.Hkv * k.D} : Shape{k.B, k.Hkv, k.Sq, k.D}, v)}};
  if (k.mask == 1) {
    ins.push_back(b.input("mask", kFloat, {k.Sq, T}));
    feeds.push_back({"mask", tensor_f({k.Sq, T}, fmask)});
  } else if (k.mask == 2) {
    ins.push_back(b.input("mask", kBool, {k.B, 1, k.Sq, T}));
    feeds.push_back({"mask", tensor_value(kBool, {k.B, 1, k.Sq, T}, bmask)});
  } else if (k.P) {
    ins.push_back(nullptr);
  }
  if (k.P) {
    ins.push_back(b.input("past_k", kFloat, {k.B, k.Hkv, k.P, k.D}));
    ins.push_back(b.input("past_v", kFloat, {k.B, k.Hkv, k.P, k.D}));
    feeds.push_back({"past_k", tensor_f({k.B, k.Hkv, k.P, k.D}, pk)});
    feeds.push_back({"past_v", tensor_f({k.B, k.Hkv, k.P, k.D}, pv)});
  }
  std::vector<Attribute> attrs = {b.i("is_causal", k.causal ? 1 : 0)};
  if (k.three_d) {
    attrs.push_back(b.i("q_num_heads", k.Hq));
    attrs.push_back(b.i("kv_num_heads", k.Hkv));
  }
  Node* n = b.node("Attention", ins, outputs, attrs);
  for (uint32_t o = 0; o < outputs; ++o) b.output(n->outputs[o]);
  kernels::ThreadsScope scope(threads);
  kernels::ParallelFloorsScope floors(64, 64);  // split the heads (and GEMMs) of these small shapes too
  Interpreter in(*m);
  return in.run(feeds);
  };
  const auto got = run(3, 1);
  // 2 and 3 threads split the heads: each head computed as on one thread, bit for bit.
  for (unsigned threads : {2u, 3u}) {
    const auto more = run(3, threads);
    for (size_t o = 0; o < 3; ++o)
      for (int64_t i = 0; i < got[o].t.numel(); ++i)
        ASSERT_EQ(get_f64(more[o].t, i), get_f64(got[o].t, i)) << "output " << o << " on " << threads << " threads";
  }
  // The double walk (asked for the QK output too) agrees with the float path.
  const auto walk = run(4, 1);
  double walk_diff = 0;
  for (int64_t i = 0; i < got[0].t.numel(); ++i)
    walk_diff = std::max(walk_diff, std::fabs(get_f64(walk[0].t, i) - get_f64(got[0].t, i)));
  EXPECT_LT(walk_diff, 2e-5);

  // The spec's formula in double: softmax(Q K^T / sqrt(D) + bias) V over the cache and the new rows.
  auto key = [&](int64_t bb, int64_t h, int64_t j, int64_t d) {
    return j < k.P ? double(pk[static_cast<size_t>(((bb * k.Hkv + h) * k.P + j) * k.D + d)])
                   : at(kk, k.three_d, k.Hkv, k.Sq, k.D, bb, h, j - k.P, d);
  };
  auto value = [&](int64_t bb, int64_t h, int64_t j, int64_t d) {
    return j < k.P ? double(pv[static_cast<size_t>(((bb * k.Hkv + h) * k.P + j) * k.D + d)])
                   : at(v, k.three_d, k.Hkv, k.Sq, k.D, bb, h, j - k.P, d);
  };
  const RTensor& y = got[0].t;
  ASSERT_EQ(y.shape, k.three_d ? Shape({k.B, k.Sq, k.Hq * k.D}) : Shape({k.B, k.Hq, k.Sq, k.D}));
  double worst = 0;
  for (int64_t bb = 0; bb < k.B; ++bb)
    for (int64_t h = 0; h < k.Hq; ++h)
      for (int64_t i = 0; i < k.Sq; ++i) {
        const int64_t kh = h / (k.Hq / k.Hkv);
        std::vector<double> s(static_cast<size_t>(T));
        double mx = -INFINITY;
        for (int64_t j = 0; j < T; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < k.D; ++d) dot += at(q, k.three_d, k.Hq, k.Sq, k.D, bb, h, i, d) * key(bb, kh, j, d);
          dot /= std::sqrt(double(k.D));
          if (k.mask == 1) dot += fmask[static_cast<size_t>(i * T + j)];
          if (k.mask == 2 && !bmask[static_cast<size_t>((bb * k.Sq + i) * T + j)]) dot = -INFINITY;
          if (k.causal && j > i + k.P) dot = -INFINITY;
          s[static_cast<size_t>(j)] = dot;
          mx = std::max(mx, dot);
        }
        double sum = 0;
        for (double& e : s) sum += (e = mx == -INFINITY ? 0 : std::exp(e - mx));
        for (int64_t d = 0; d < k.D; ++d) {
          double want = 0;
          for (int64_t j = 0; j < T; ++j) want += (sum > 0 ? s[static_cast<size_t>(j)] / sum : 0) * value(bb, kh, j, d);
          const int64_t idx = k.three_d ? ((bb * k.Sq + i) * k.Hq + h) * k.D + d : ((bb * k.Hq + h) * k.Sq + i) * k.D + d;
          worst = std::max(worst, std::fabs(get_f64(y, idx) - want));
        }
      }
  EXPECT_LT(worst, 2e-5);
  // present key and value: the cache followed by the new rows, (B, Hkv, T, D).
  ASSERT_EQ(got[1].t.shape, Shape({k.B, k.Hkv, T, k.D}));
  for (int64_t bb = 0; bb < k.B; ++bb)
    for (int64_t h = 0; h < k.Hkv; ++h)
      for (int64_t j = 0; j < T; ++j)
        for (int64_t d = 0; d < k.D; ++d) {
          const int64_t idx = ((bb * k.Hkv + h) * T + j) * k.D + d;
          ASSERT_EQ(get_f64(got[1].t, idx), key(bb, h, j, d));
          ASSERT_EQ(get_f64(got[2].t, idx), value(bb, h, j, d));
        }
}

}  // namespace

TEST(ExecAttention, PrefillGroupedQueryCausal) { check({1, 8, 2, 37, 0, 32, true}, 1); }
TEST(ExecAttention, DecodeStepWithCache) { check({2, 8, 2, 1, 45, 32, true}, 2); }
TEST(ExecAttention, ThreeDimensionalWithFloatMaskAndCache) { check({2, 4, 4, 19, 13, 16, false, 1, true}, 3); }
TEST(ExecAttention, BoolMaskWithAFullyMaskedRow) { check({2, 6, 3, 17, 5, 24, true, 2}, 4); }
// The LLaMA-1024 shapes (16 query heads over 4 KV heads, head 64): prefill with a causal float mask
// and a decode step over 256 cached positions; GQA ratio 1 (MHA) with a cache and odd sizes.
TEST(ExecAttention, LlamaPrefillGqa4WithMask) { check({1, 16, 4, 32, 0, 64, true, 1}, 5); }
TEST(ExecAttention, LlamaDecodeGqa4Past256) { check({1, 16, 4, 1, 256, 64, true}, 6); }
TEST(ExecAttention, MultiHeadOddSizesWithCache) { check({3, 5, 5, 7, 11, 13, true}, 7); }
