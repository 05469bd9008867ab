// AVX2 binary and unary elementwise kernels. Tails go through an 8-float stack buffer so the
// tail lanes get exactly the same arithmetic as the vector body.
#include "kernels/avx2/avx2.h"
#include "kernels/avx2/vmath.h"

#include <cmath>
#include <cstring>

namespace ofg::kernels::avx2 {

namespace {

template <BinaryOp OP>
inline __m256 bin(__m256 a, __m256 b) {
  if constexpr (OP == BinaryOp::Add) return _mm256_add_ps(a, b);
  if constexpr (OP == BinaryOp::Sub) return _mm256_sub_ps(a, b);
  if constexpr (OP == BinaryOp::Mul) return _mm256_mul_ps(a, b);
  if constexpr (OP == BinaryOp::Div) return _mm256_div_ps(a, b);
  if constexpr (OP == BinaryOp::Max || OP == BinaryOp::Min) {
    // vmaxps returns its second operand when either is NaN; patch NaN lanes to propagate.
    const __m256 r = OP == BinaryOp::Max ? _mm256_max_ps(a, b) : _mm256_min_ps(a, b);
    return _mm256_blendv_ps(r, _mm256_add_ps(a, b), _mm256_cmp_ps(a, b, _CMP_UNORD_Q));
  }
  return a;
}

// mode 0: vv, 1: vs, 2: sv
template <BinaryOp OP, int MODE>
void bin_loop(const float* a, const float* b, float* y, size_t n) {
  const __m256 as = MODE == 2 ? _mm256_set1_ps(*a) : _mm256_setzero_ps();
  const __m256 bs = MODE == 1 ? _mm256_set1_ps(*b) : _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 va = MODE == 2 ? as : _mm256_loadu_ps(a + i);
    const __m256 vb = MODE == 1 ? bs : _mm256_loadu_ps(b + i);
    _mm256_storeu_ps(y + i, bin<OP>(va, vb));
  }
  if (i < n) {
    alignas(32) float ta[8] = {}, tb[8] = {}, ty[8];
    if (MODE != 2) std::memcpy(ta, a + i, (n - i) * 4);
    if (MODE != 1) std::memcpy(tb, b + i, (n - i) * 4);
    const __m256 va = MODE == 2 ? as : _mm256_load_ps(ta);
    const __m256 vb = MODE == 1 ? bs : _mm256_load_ps(tb);
    _mm256_store_ps(ty, bin<OP>(va, vb));
    std::memcpy(y + i, ty, (n - i) * 4);
  }
}

template <int MODE>
void bin_dispatch(BinaryOp op, const float* a, const float* b, float* y, size_t n) {
  switch (op) {
    case BinaryOp::Add: return bin_loop<BinaryOp::Add, MODE>(a, b, y, n);
    case BinaryOp::Sub: return bin_loop<BinaryOp::Sub, MODE>(a, b, y, n);
    case BinaryOp::Mul: return bin_loop<BinaryOp::Mul, MODE>(a, b, y, n);
    case BinaryOp::Div: return bin_loop<BinaryOp::Div, MODE>(a, b, y, n);
    case BinaryOp::Max: return bin_loop<BinaryOp::Max, MODE>(a, b, y, n);
    case BinaryOp::Min: return bin_loop<BinaryOp::Min, MODE>(a, b, y, n);
    case BinaryOp::Pow:
      // No vector pow: the libm call per element is the reference behaviour anyway.
      for (size_t i = 0; i < n; ++i)
        y[i] = std::pow(MODE == 2 ? *a : a[i], MODE == 1 ? *b : b[i]);
      return;
  }
}

inline __m256 clamp01(__m256 v) {
  return _mm256_min_ps(_mm256_set1_ps(1.f), _mm256_max_ps(_mm256_setzero_ps(), v));
}

template <UnaryOp OP>
inline __m256 un(__m256 x, __m256 alpha, __m256 beta) {
  const __m256 lowest = _mm256_set1_ps(-3.4028234663852886e38f);
  if constexpr (OP == UnaryOp::Relu) return _mm256_max_ps(_mm256_setzero_ps(), x);
  if constexpr (OP == UnaryOp::LeakyRelu)
    return _mm256_blendv_ps(x, _mm256_mul_ps(alpha, x), _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ));
  if constexpr (OP == UnaryOp::Clip) return _mm256_min_ps(beta, _mm256_max_ps(alpha, x));
  if constexpr (OP == UnaryOp::Exp) return v_exp(x);
  if constexpr (OP == UnaryOp::Log) return v_log(x);
  if constexpr (OP == UnaryOp::Tanh) return v_tanh(x);
  if constexpr (OP == UnaryOp::Sigmoid) return v_sigmoid(x);
  if constexpr (OP == UnaryOp::GeluTanh) {
    // 0.5 x (1 + tanh(u)) == x * sigmoid(2u): no cancellation for negative x.
    const __m256 xl = _mm256_max_ps(lowest, x);
    const __m256 x3 = _mm256_mul_ps(_mm256_mul_ps(xl, xl), xl);
    const __m256 u2 = _mm256_mul_ps(_mm256_set1_ps(2.f * 0.7978845608028654f),
                                    _mm256_fmadd_ps(_mm256_set1_ps(0.044715f), x3, xl));
    return _mm256_mul_ps(xl, v_sigmoid(u2));
  }
  if constexpr (OP == UnaryOp::HardSigmoid) return clamp01(_mm256_add_ps(_mm256_mul_ps(alpha, x), beta));
  if constexpr (OP == UnaryOp::HardSwish)
    return _mm256_mul_ps(x, clamp01(_mm256_add_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.f / 6.f)), _mm256_set1_ps(0.5f))));
  if constexpr (OP == UnaryOp::Softplus) {
    // max(x, 0) + log1p(exp(-|x|)), log1p(t) = log(u) * t / (u - 1) with u = 1 + t, exact
    // enough when u rounds (t / (u - 1) corrects the rounding), t itself when u == 1.
    const __m256 t = v_exp(_mm256_sub_ps(_mm256_setzero_ps(), v_abs(x)));
    const __m256 u = _mm256_add_ps(_mm256_set1_ps(1.f), t);
    const __m256 um1 = _mm256_sub_ps(u, _mm256_set1_ps(1.f));
    __m256 l = _mm256_mul_ps(v_log(u), _mm256_div_ps(t, um1));
    l = _mm256_blendv_ps(l, t, _mm256_cmp_ps(um1, _mm256_setzero_ps(), _CMP_EQ_OQ));
    const __m256 y = _mm256_add_ps(_mm256_max_ps(x, _mm256_setzero_ps()), l);
    return _mm256_blendv_ps(y, x, v_isnan(x));
  }
  if constexpr (OP == UnaryOp::Silu) {
    const __m256 xl = _mm256_max_ps(lowest, x);
    return _mm256_mul_ps(xl, v_sigmoid(xl));
  }
  if constexpr (OP == UnaryOp::Sqrt) return _mm256_sqrt_ps(x);
  if constexpr (OP == UnaryOp::Reciprocal) return _mm256_div_ps(_mm256_set1_ps(1.f), x);
  if constexpr (OP == UnaryOp::Abs) return v_abs(x);
  if constexpr (OP == UnaryOp::Neg) return _mm256_xor_ps(x, _mm256_set1_ps(-0.f));
  if constexpr (OP == UnaryOp::Floor) return _mm256_round_ps(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  if constexpr (OP == UnaryOp::Ceil) return _mm256_round_ps(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
  if constexpr (OP == UnaryOp::Round) return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  return x;
}

template <UnaryOp OP>
void un_loop(const float* x, float* y, size_t n, float alpha, float beta) {
  const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, un<OP>(_mm256_loadu_ps(x + i), va, vb));
  if (i < n) {
    alignas(32) float t[8] = {};
    std::memcpy(t, x + i, (n - i) * 4);
    _mm256_store_ps(t, un<OP>(_mm256_load_ps(t), va, vb));
    std::memcpy(y + i, t, (n - i) * 4);
  }
}

}  // namespace

void binary_vv(BinaryOp op, const float* a, const float* b, float* y, size_t n) {
  bin_dispatch<0>(op, a, b, y, n);
}
void binary_vs(BinaryOp op, const float* a, float b, float* y, size_t n) {
  bin_dispatch<1>(op, a, &b, y, n);
}
void binary_sv(BinaryOp op, float a, const float* b, float* y, size_t n) {
  bin_dispatch<2>(op, &a, b, y, n);
}

void unary(UnaryOp op, const float* x, float* y, size_t n, float alpha, float beta) {
  switch (op) {
#define OFG_CASE(name) case UnaryOp::name: return un_loop<UnaryOp::name>(x, y, n, alpha, beta);
    OFG_CASE(Relu) OFG_CASE(LeakyRelu) OFG_CASE(Clip) OFG_CASE(Exp) OFG_CASE(Log) OFG_CASE(Tanh)
    OFG_CASE(Sigmoid) OFG_CASE(GeluTanh) OFG_CASE(HardSigmoid) OFG_CASE(HardSwish)
    OFG_CASE(Softplus) OFG_CASE(Silu) OFG_CASE(Sqrt) OFG_CASE(Reciprocal) OFG_CASE(Abs)
    OFG_CASE(Neg) OFG_CASE(Floor) OFG_CASE(Ceil) OFG_CASE(Round)
#undef OFG_CASE
    case UnaryOp::Erf:
    case UnaryOp::GeluErf:
      // No vector erf yet: the libm reference per element.
      scalar::unary(op, x, y, n, alpha, beta);
      return;
  }
}

}  // namespace ofg::kernels::avx2
