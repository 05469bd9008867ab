// Binary and unary elementwise kernels written once over an ISA's vector type V (see vmath.h).
// Tails go through a V::kLanes-float stack buffer so the tail lanes get exactly the same
// arithmetic as the vector body. An ISA without an exact vector division or square root
// (V::kExactDiv / V::kExactSqrt false: 32-bit ARM NEON) leaves Div, Reciprocal and Sqrt to the
// scalar reference, so those keep their correctly rounded results.
#pragma once

#include "kernels/internal.h"
#include "kernels/simd/vmath.h"

#include <cmath>
#include <cstring>

namespace ofg::kernels::simd {

enum class Operands { VV, VS, SV };  // vector op vector, vector op scalar, scalar op vector

template <class V, BinaryOp OP>
inline typename V::F bin(typename V::F a, typename V::F b) {
  if constexpr (OP == BinaryOp::Add) return V::add(a, b);
  if constexpr (OP == BinaryOp::Sub) return V::sub(a, b);
  if constexpr (OP == BinaryOp::Mul) return V::mul(a, b);
  if constexpr (OP == BinaryOp::Div) return V::div(a, b);
  if constexpr (OP == BinaryOp::Max || OP == BinaryOp::Min) {
    // The vector max/min instructions differ per ISA on NaN operands; patch NaN lanes to
    // propagate (a + b is the NaN), as the scalar reference does.
    const typename V::F r = OP == BinaryOp::Max ? V::max(a, b) : V::min(a, b);
    return V::select(V::unord(a, b), V::add(a, b), r);
  }
  return a;
}

template <class V, BinaryOp OP, Operands MODE>
void bin_loop(const float* a, const float* b, float* y, size_t n) {
  using F = typename V::F;
  constexpr size_t L = V::kLanes;
  const F as = MODE == Operands::SV ? V::set1(*a) : V::zero();
  const F bs = MODE == Operands::VS ? V::set1(*b) : V::zero();
  size_t i = 0;
  for (; i + L <= n; i += L) {
    const F va = MODE == Operands::SV ? as : V::load(a + i);
    const F vb = MODE == Operands::VS ? bs : V::load(b + i);
    V::store(y + i, bin<V, OP>(va, vb));
  }
  if (i < n) {
    float ta[L] = {}, tb[L] = {}, ty[L];
    if (MODE != Operands::SV) std::memcpy(ta, a + i, (n - i) * 4);
    if (MODE != Operands::VS) std::memcpy(tb, b + i, (n - i) * 4);
    const F va = MODE == Operands::SV ? as : V::load(ta);
    const F vb = MODE == Operands::VS ? bs : V::load(tb);
    V::store(ty, bin<V, OP>(va, vb));
    std::memcpy(y + i, ty, (n - i) * 4);
  }
}

// Elementwise a[i] op b[i] with a or b read as one scalar by MODE.
template <class V, Operands MODE>
void binary(BinaryOp op, const float* a, const float* b, float* y, size_t n) {
  switch (op) {
    case BinaryOp::Add: return bin_loop<V, BinaryOp::Add, MODE>(a, b, y, n);
    case BinaryOp::Sub: return bin_loop<V, BinaryOp::Sub, MODE>(a, b, y, n);
    case BinaryOp::Mul: return bin_loop<V, BinaryOp::Mul, MODE>(a, b, y, n);
    case BinaryOp::Max: return bin_loop<V, BinaryOp::Max, MODE>(a, b, y, n);
    case BinaryOp::Min: return bin_loop<V, BinaryOp::Min, MODE>(a, b, y, n);
    case BinaryOp::Div:
      if constexpr (V::kExactDiv) return bin_loop<V, BinaryOp::Div, MODE>(a, b, y, n);
      [[fallthrough]];
    case BinaryOp::Pow:
      // No vector pow (the libm call per element is the reference behaviour anyway), and no
      // correctly rounded division on this ISA.
      for (size_t i = 0; i < n; ++i)
        y[i] = scalar::binary_one(op, MODE == Operands::SV ? *a : a[i], MODE == Operands::VS ? *b : b[i]);
      return;
  }
}

template <class V>
inline typename V::F clamp01(typename V::F v) {
  return V::min(V::set1(1.f), V::max(V::zero(), v));
}

template <class V, UnaryOp OP>
inline typename V::F un(typename V::F x, typename V::F alpha, typename V::F beta) {
  using F = typename V::F;
  if constexpr (OP == UnaryOp::Relu) return V::select(V::lt(x, V::zero()), V::zero(), x);  // NaN stays
  if constexpr (OP == UnaryOp::LeakyRelu) return V::select(V::lt(x, V::zero()), V::mul(alpha, x), x);
  if constexpr (OP == UnaryOp::Clip) {
    // min(max(x, lo), hi) with NaN kept, whatever the ISA's min/max do with NaN operands.
    const F y = V::select(V::lt(x, alpha), alpha, x);
    return V::select(V::gt(y, beta), beta, y);
  }
  if constexpr (OP == UnaryOp::Exp) return v_exp<V>(x);
  if constexpr (OP == UnaryOp::Log) return v_log<V>(x);
  if constexpr (OP == UnaryOp::Tanh) return v_tanh<V>(x);
  if constexpr (OP == UnaryOp::Sigmoid) return v_sigmoid<V>(x);
  if constexpr (OP == UnaryOp::GeluTanh) {
    // 0.5 x (1 + tanh(u)) == x * sigmoid(2u): no cancellation for negative x.
    const F xl = V::max(V::set1(kLowest), x);
    const F x3 = V::mul(V::mul(xl, xl), xl);
    const F u2 = V::mul(V::set1(2.f * 0.7978845608028654f), V::fma(V::set1(0.044715f), x3, xl));
    return V::mul(xl, v_sigmoid<V>(u2));
  }
  if constexpr (OP == UnaryOp::HardSigmoid) return clamp01<V>(V::add(V::mul(alpha, x), beta));
  if constexpr (OP == UnaryOp::HardSwish)
    return V::mul(x, clamp01<V>(V::add(V::mul(x, V::set1(1.f / 6.f)), V::set1(0.5f))));
  if constexpr (OP == UnaryOp::Softplus) {
    // max(x, 0) + log1p(exp(-|x|)), log1p(t) = log(u) * t / (u - 1) with u = 1 + t, exact
    // enough when u rounds (t / (u - 1) corrects the rounding), t itself when u == 1.
    const F t = v_exp<V>(V::neg(V::abs(x)));
    const F u = V::add(V::set1(1.f), t);
    const F um1 = V::sub(u, V::set1(1.f));
    F l = V::mul(v_log<V>(u), V::div(t, um1));
    l = V::select(V::eq(um1, V::zero()), t, l);
    const F y = V::add(V::max(x, V::zero()), l);
    return V::select(v_isnan<V>(x), x, y);
  }
  if constexpr (OP == UnaryOp::Silu) {
    const F xl = V::max(V::set1(kLowest), x);
    return V::mul(xl, v_sigmoid<V>(xl));
  }
  if constexpr (OP == UnaryOp::Sqrt) return V::sqrt(x);
  if constexpr (OP == UnaryOp::Reciprocal) return V::div(V::set1(1.f), x);
  if constexpr (OP == UnaryOp::Abs) return V::abs(x);
  if constexpr (OP == UnaryOp::Neg) return V::neg(x);
  if constexpr (OP == UnaryOp::Floor) return V::floor(x);
  if constexpr (OP == UnaryOp::Ceil) return V::ceil(x);
  if constexpr (OP == UnaryOp::Round) return V::round_even(x);
  return x;
}

template <class V, UnaryOp OP>
void un_loop(const float* x, float* y, size_t n, float alpha, float beta) {
  constexpr size_t L = V::kLanes;
  const typename V::F va = V::set1(alpha), vb = V::set1(beta);
  size_t i = 0;
  for (; i + L <= n; i += L) V::store(y + i, un<V, OP>(V::load(x + i), va, vb));
  if (i < n) {
    float t[L] = {};
    std::memcpy(t, x + i, (n - i) * 4);
    V::store(t, un<V, OP>(V::load(t), va, vb));
    std::memcpy(y + i, t, (n - i) * 4);
  }
}

template <class V>
void unary(UnaryOp op, const float* x, float* y, size_t n, float alpha, float beta) {
  switch (op) {
#define OFG_CASE(name) case UnaryOp::name: return un_loop<V, UnaryOp::name>(x, y, n, alpha, beta);
    OFG_CASE(Relu) OFG_CASE(LeakyRelu) OFG_CASE(Clip) OFG_CASE(Exp) OFG_CASE(Log) OFG_CASE(Tanh)
    OFG_CASE(Sigmoid) OFG_CASE(GeluTanh) OFG_CASE(HardSigmoid) OFG_CASE(HardSwish)
    OFG_CASE(Softplus) OFG_CASE(Silu) OFG_CASE(Abs) OFG_CASE(Neg) OFG_CASE(Floor) OFG_CASE(Ceil)
    OFG_CASE(Round)
#undef OFG_CASE
    case UnaryOp::Sqrt:
      if constexpr (V::kExactSqrt) return un_loop<V, UnaryOp::Sqrt>(x, y, n, alpha, beta);
      break;
    case UnaryOp::Reciprocal:
      if constexpr (V::kExactDiv) return un_loop<V, UnaryOp::Reciprocal>(x, y, n, alpha, beta);
      break;
    case UnaryOp::Erf:
    case UnaryOp::GeluErf:
      break;  // no vector erf yet
  }
  // The libm / IEEE reference per element.
  scalar::unary(op, x, y, n, alpha, beta);
}

}  // namespace ofg::kernels::simd
