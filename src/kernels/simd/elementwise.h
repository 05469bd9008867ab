// Binary and unary elementwise kernels written once over an ISA's struct S (see vmath.h).
// Tails go through an S::W-float stack buffer so the tail lanes get exactly the same
// arithmetic as the vector body. An ISA without an exact vector division or square root
// (S::kExactDiv / S::kExactSqrt false: 32-bit ARM NEON) leaves Div, Reciprocal and Sqrt to the
// scalar reference, so those keep their correctly rounded results.
#pragma once

#include "kernels/internal.h"
#include "kernels/simd/vmath.h"

#include <cmath>
#include <cstring>

namespace ofg::kernels::simd {

enum class Operands { VV, VS, SV };  // vector op vector, vector op scalar, scalar op vector

template <class S, BinaryOp OP>
inline typename S::V bin(typename S::V a, typename S::V b) {
  if constexpr (OP == BinaryOp::Add) return S::add(a, b);
  if constexpr (OP == BinaryOp::Sub) return S::sub(a, b);
  if constexpr (OP == BinaryOp::Mul) return S::mul(a, b);
  if constexpr (OP == BinaryOp::Div) return S::div(a, b);
  if constexpr (OP == BinaryOp::Max || OP == BinaryOp::Min) {
    // The vector max/min instructions differ per ISA on NaN operands; patch NaN lanes to
    // propagate (a + b is the NaN), as the scalar reference does.
    const typename S::V r = OP == BinaryOp::Max ? S::max(a, b) : S::min(a, b);
    return S::select(S::unord(a, b), S::add(a, b), r);
  }
  return a;
}

template <class S, BinaryOp OP, Operands MODE>
void bin_loop(const float* a, const float* b, float* y, size_t n) {
  using F = typename S::V;
  constexpr size_t L = S::W;
  const F as = MODE == Operands::SV ? S::set1(*a) : S::zero();
  const F bs = MODE == Operands::VS ? S::set1(*b) : S::zero();
  size_t i = 0;
  for (; i + L <= n; i += L) {
    const F va = MODE == Operands::SV ? as : S::load(a + i);
    const F vb = MODE == Operands::VS ? bs : S::load(b + i);
    S::store(y + i, bin<S, OP>(va, vb));
  }
  if (i < n) {
    float ta[L] = {}, tb[L] = {}, ty[L];
    if (MODE != Operands::SV) std::memcpy(ta, a + i, (n - i) * 4);
    if (MODE != Operands::VS) std::memcpy(tb, b + i, (n - i) * 4);
    const F va = MODE == Operands::SV ? as : S::load(ta);
    const F vb = MODE == Operands::VS ? bs : S::load(tb);
    S::store(ty, bin<S, OP>(va, vb));
    std::memcpy(y + i, ty, (n - i) * 4);
  }
}

// Elementwise a[i] op b[i] with a or b read as one scalar by MODE.
template <class S, Operands MODE>
void binary(BinaryOp op, const float* a, const float* b, float* y, size_t n) {
  switch (op) {
    case BinaryOp::Add: return bin_loop<S, BinaryOp::Add, MODE>(a, b, y, n);
    case BinaryOp::Sub: return bin_loop<S, BinaryOp::Sub, MODE>(a, b, y, n);
    case BinaryOp::Mul: return bin_loop<S, BinaryOp::Mul, MODE>(a, b, y, n);
    case BinaryOp::Max: return bin_loop<S, BinaryOp::Max, MODE>(a, b, y, n);
    case BinaryOp::Min: return bin_loop<S, BinaryOp::Min, MODE>(a, b, y, n);
    case BinaryOp::Div:
      if constexpr (S::kExactDiv) return bin_loop<S, BinaryOp::Div, MODE>(a, b, y, n);
      [[fallthrough]];
    case BinaryOp::Pow:
      // x^2 (a power spectrum, a variance) is x * x, as binary_one has it; not x / 2, which
      // falls through to here where division is not exact (32-bit ARM).
      if constexpr (MODE == Operands::VS) {
        if (op == BinaryOp::Pow && *b == 2.f) return bin_loop<S, BinaryOp::Mul, Operands::VV>(a, a, y, n);
      }
      // No vector pow (the libm call per element is the reference behaviour anyway), and no
      // correctly rounded division on this ISA.
      for (size_t i = 0; i < n; ++i)
        y[i] = scalar::binary_one(op, MODE == Operands::SV ? *a : a[i], MODE == Operands::VS ? *b : b[i]);
      return;
  }
}

// x * a then + b per lane with the lane operations binary_vs uses for Mul and Add (two roundings:
// rounded() keeps them apart), tails through the same buffer.
template <class S>
inline typename S::V affine(typename S::V x, typename S::V a, typename S::V b) {
  return bin<S, BinaryOp::Add>(rounded(bin<S, BinaryOp::Mul>(x, a)), b);
}

template <class S>
void affine_vs(const float* x, float a, float b, float* y, size_t n) {
  constexpr size_t L = S::W;
  const typename S::V va = S::set1(a), vb = S::set1(b);
  size_t i = 0;
  for (; i + L <= n; i += L) S::store(y + i, affine<S>(S::load(x + i), va, vb));
  if (i < n) {
    float t[L] = {};
    std::memcpy(t, x + i, (n - i) * 4);
    S::store(t, affine<S>(S::load(t), va, vb));
    std::memcpy(y + i, t, (n - i) * 4);
  }
}

template <class S>
inline typename S::V clamp01(typename S::V v) {
  return S::min(S::set1(1.f), S::max(S::zero(), v));
}

template <class S, UnaryOp OP>
inline typename S::V un(typename S::V x, typename S::V alpha, typename S::V beta) {
  using F = typename S::V;
  // max(0, x) keeps NaN on every ISA (AVX2 returns the second operand for NaN, NEON NaN). Both
  // are arithmetic rather than a compare-and-select, so that an ISA which flushes subnormals
  // (32-bit NEON) flushes -1e-40 to 0 instead of passing its bits through.
  if constexpr (OP == UnaryOp::Relu) return S::max(S::zero(), x);
  // max(0, x) + alpha min(0, x): one of the two terms is zero, so the result is exact.
  if constexpr (OP == UnaryOp::LeakyRelu) return S::fma(alpha, S::min(S::zero(), x), S::max(S::zero(), x));
  if constexpr (OP == UnaryOp::Clip) {
    // min(hi, max(lo, x)): NaN x stays NaN as in Relu (x is the second operand of both), and hi
    // wins when lo > hi. Two instructions: a compare-and-select per bound cost four on AVX-512,
    // whose masks go through opmask registers and back (MobileNetV2's ReLU6 epilogues, 2%).
    return S::min(beta, S::max(alpha, x));
  }
  if constexpr (OP == UnaryOp::Exp) return v_exp<S>(x);
  if constexpr (OP == UnaryOp::Log) return v_log<S>(x);
  if constexpr (OP == UnaryOp::Tanh) return v_tanh<S>(x);
  if constexpr (OP == UnaryOp::Sigmoid) return v_sigmoid<S>(x);
  if constexpr (OP == UnaryOp::GeluTanh) {
    // 0.5 x (1 + tanh(u)) == x * sigmoid(2u): no cancellation for negative x.
    const F xl = S::max(S::set1(kLowest), x);
    const F x3 = S::mul(S::mul(xl, xl), xl);
    const F u2 = S::mul(S::set1(2.f * 0.7978845608028654f), S::fma(S::set1(0.044715f), x3, xl));
    return S::mul(xl, v_sigmoid<S>(u2));
  }
  if constexpr (OP == UnaryOp::Erf) return v_erf<S>(x);
  if constexpr (OP == UnaryOp::GeluErf) {
    // -inf becomes the lowest float so that 0.5 x (1 + erf) is -0, not -inf * 0.
    const F xl = S::max(S::set1(kLowest), x);
    const F e = v_erf<S>(S::mul(xl, S::set1(0.70710678118654752f)));
    return S::mul(S::mul(S::set1(0.5f), xl), S::add(S::set1(1.f), e));
  }
  if constexpr (OP == UnaryOp::HardSigmoid) return clamp01<S>(S::add(S::mul(alpha, x), beta));
  if constexpr (OP == UnaryOp::HardSwish)
    return S::mul(x, clamp01<S>(S::add(S::mul(x, S::set1(1.f / 6.f)), S::set1(0.5f))));
  if constexpr (OP == UnaryOp::Softplus) {
    // max(x, 0) + log1p(exp(-|x|)), log1p(t) = log(u) * t / (u - 1) with u = 1 + t, exact
    // enough when u rounds (t / (u - 1) corrects the rounding), t itself when u == 1.
    const F t = v_exp<S>(S::neg(S::abs(x)));
    const F u = S::add(S::set1(1.f), t);
    const F um1 = S::sub(u, S::set1(1.f));
    F l = S::mul(v_log<S>(u), S::div(t, um1));
    l = S::select(S::eq(um1, S::zero()), t, l);
    const F y = S::add(S::max(x, S::zero()), l);
    return S::select(S::nan_mask(x), x, y);
  }
  if constexpr (OP == UnaryOp::Silu) {
    const F xl = S::max(S::set1(kLowest), x);
    return S::mul(xl, v_sigmoid<S>(xl));
  }
  if constexpr (OP == UnaryOp::Swish) {
    const F xl = S::max(S::set1(kLowest), x);
    return S::mul(xl, v_sigmoid<S>(S::mul(alpha, xl)));
  }
  if constexpr (OP == UnaryOp::Sqrt) return S::sqrt(x);
  if constexpr (OP == UnaryOp::Reciprocal) return S::div(S::set1(1.f), x);
  if constexpr (OP == UnaryOp::Abs) return S::abs(x);
  if constexpr (OP == UnaryOp::Neg) return S::neg(x);
  if constexpr (OP == UnaryOp::Floor) return S::floor(x);
  if constexpr (OP == UnaryOp::Ceil) return S::ceil(x);
  if constexpr (OP == UnaryOp::Round) return S::round_even(x);
  return x;
}

template <class S, UnaryOp OP>
void un_loop(const float* x, float* y, size_t n, float alpha, float beta) {
  constexpr size_t L = S::W;
  const typename S::V va = S::set1(alpha), vb = S::set1(beta);
  size_t i = 0;
  for (; i + L <= n; i += L) S::store(y + i, un<S, OP>(S::load(x + i), va, vb));
  if (i < n) {
    float t[L] = {};
    std::memcpy(t, x + i, (n - i) * 4);
    S::store(t, un<S, OP>(S::load(t), va, vb));
    std::memcpy(y + i, t, (n - i) * 4);
  }
}

template <class S>
void unary(UnaryOp op, const float* x, float* y, size_t n, float alpha, float beta) {
  switch (op) {
#define OFG_CASE(name) case UnaryOp::name: return un_loop<S, UnaryOp::name>(x, y, n, alpha, beta);
    OFG_CASE(Relu) OFG_CASE(LeakyRelu) OFG_CASE(Clip) OFG_CASE(Exp) OFG_CASE(Log) OFG_CASE(Tanh)
    OFG_CASE(Sigmoid) OFG_CASE(GeluTanh) OFG_CASE(HardSigmoid) OFG_CASE(HardSwish)
    OFG_CASE(Softplus) OFG_CASE(Silu) OFG_CASE(Abs) OFG_CASE(Neg) OFG_CASE(Floor) OFG_CASE(Ceil)
    OFG_CASE(Round) OFG_CASE(Erf) OFG_CASE(GeluErf) OFG_CASE(Swish)
#undef OFG_CASE
    case UnaryOp::Sqrt:
      if constexpr (S::kExactSqrt) return un_loop<S, UnaryOp::Sqrt>(x, y, n, alpha, beta);
      break;
    case UnaryOp::Reciprocal:
      if constexpr (S::kExactDiv) return un_loop<S, UnaryOp::Reciprocal>(x, y, n, alpha, beta);
      break;
  }
  // The libm / IEEE reference per element.
  scalar::unary(op, x, y, n, alpha, beta);
}

}  // namespace ofg::kernels::simd
