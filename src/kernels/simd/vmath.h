// Vector math written once for every SIMD ISA: exp, tanh, sigmoid, log with their polynomial
// coefficients and range reductions. Each function is a template over an ISA's vector type V
// (kernels/avx2/vec.h, kernels/neon/vec.h), which supplies the lane operations only, so the
// error bounds stated here hold on every ISA that provides exact IEEE add/mul/div (ISAs where
// V::div is an estimate refined by Newton steps say so in their vec.h, and the tests hold them to
// the same bounds).
//
// Only include this from a file compiled for the ISA of V: the instantiations carry that ISA's
// instructions (they are distinct per V, so no baseline translation unit can pick one up).
#pragma once

namespace ofg::kernels::simd {

// Cody-Waite split of ln 2: kLn2Hi has 16 significant bits, so n * kLn2Hi is exact for the
// |n| <= 150 that exp and log use.
constexpr float kLn2Hi = 0.693145751953125f;
constexpr float kLn2Lo = 1.428606820309417232e-6f;
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kExpMax = 88.7228394f;   // largest x with exp(x) < FLT_MAX (rounded)
constexpr float kExpMin = -104.f;        // exp(x) rounds to 0 below (smallest subnormal 1.4e-45)
constexpr float kLowest = -3.4028234663852886e38f;

template <class V>
inline typename V::M v_isnan(typename V::F x) {
  return V::unord(x, x);
}

// exp(x). Cody-Waite reduction x = n ln2 + r (|r| <= ln2/2), Taylor polynomial of degree 7
// (truncation < 6e-9), 2^n applied in two steps so subnormal results are produced correctly.
// Measured against libm in double (tests/kernels_math_test.cpp): relative error < 3e-7 for
// x in [-87.33, 88.72]; absolute error < 2e-38 below (subnormal results, or 0 on an ISA that
// flushes them); x > 88.7228 -> +inf, -inf -> 0, NaN -> NaN.
template <class V>
inline typename V::F v_exp(typename V::F x) {
  using F = typename V::F;
  const F xc = V::max(V::min(x, V::set1(kExpMax)), V::set1(kExpMin));
  const F n = V::round_even(V::mul(xc, V::set1(kLog2e)));
  F r = V::fnma(n, V::set1(kLn2Hi), xc);
  r = V::fnma(n, V::set1(kLn2Lo), r);
  F p = V::set1(1.f / 5040.f);
  p = V::fma(p, r, V::set1(1.f / 720.f));
  p = V::fma(p, r, V::set1(1.f / 120.f));
  p = V::fma(p, r, V::set1(1.f / 24.f));
  p = V::fma(p, r, V::set1(1.f / 6.f));
  p = V::fma(p, r, V::set1(0.5f));
  p = V::fma(p, r, V::set1(1.f));
  p = V::fma(p, r, V::set1(1.f));
  const typename V::I ni = V::to_int(n);
  const typename V::I n1 = V::half_int(ni), n2 = V::isub(ni, n1);
  F y = V::mul(V::mul(p, V::pow2(n1)), V::pow2(n2));
  y = V::select(V::gt(x, V::set1(kExpMax)), V::set1(__builtin_inff()), y);
  y = V::select(V::lt(x, V::set1(kExpMin)), V::zero(), y);
  return V::select(v_isnan<V>(x), x, y);
}

// tanh(x): odd Taylor series to x^15 for |x| < 0.5 (truncation < 1e-8 relative), else
// 1 - 2/(exp(2|x|)+1) with |x| clamped at 10 (tanh rounds to 1 from 9.02 on). Measured: absolute
// error < 3e-7 and relative error < 5e-7 on [-12, 12]; keeps -0; +-inf -> +-1; NaN -> NaN.
template <class V>
inline typename V::F v_tanh(typename V::F x) {
  using F = typename V::F;
  const F ax = V::abs(x), sign = V::sign_bit(x);
  const F x2 = V::mul(x, x);
  F p = V::set1(-929569.f / 638512875.f);
  p = V::fma(p, x2, V::set1(21844.f / 6081075.f));
  p = V::fma(p, x2, V::set1(-1382.f / 155925.f));
  p = V::fma(p, x2, V::set1(62.f / 2835.f));
  p = V::fma(p, x2, V::set1(-17.f / 315.f));
  p = V::fma(p, x2, V::set1(2.f / 15.f));
  p = V::fma(p, x2, V::set1(-1.f / 3.f));
  const F small = V::fma(V::mul(p, x2), x, x);
  const F a10 = V::min(ax, V::set1(10.f));
  const F e = v_exp<V>(V::add(a10, a10));
  const F large = V::sub(V::set1(1.f), V::div(V::set1(2.f), V::add(e, V::set1(1.f))));
  // OR-ing the sign also fixes -0, which the polynomial turns into +0.
  const F y = V::bit_or(V::select(V::lt(ax, V::set1(0.5f)), small, large), sign);
  return V::select(v_isnan<V>(x), x, y);
}

// 1 / (1 + exp(-x)): relative error < 5e-7 for x >= -87 (exp bound + one division), absolute
// error < 2e-38 below; +-inf -> 1 / 0; NaN -> NaN.
template <class V>
inline typename V::F v_sigmoid(typename V::F x) {
  const typename V::F e = v_exp<V>(V::neg(x));
  return V::div(V::set1(1.f), V::add(V::set1(1.f), e));
}

// log(x): x = 2^e m with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m-1)/(m+1),
// |s| < 0.1716, series to s^11 (truncation < 4e-9). A subnormal input's mantissa field is
// converted to float as an integer (x = field * 2^-149), with integer operations only, so an ISA
// whose float unit flushes subnormal operands still gets it right. Measured: |error| < 3e-7 *
// max(1, |log x|) over [1e-44, 3e38]; 0 -> -inf, x < 0 -> NaN, +inf -> +inf, NaN -> NaN.
template <class V>
inline typename V::F v_log(typename V::F x) {
  using F = typename V::F;
  using I = typename V::I;
  const I bits = V::as_int(x);
  const I field = V::iand(bits, V::iset1(0x7FFFFF));
  // Positive subnormal: exponent field 0, mantissa field non-zero (zero is handled at the end).
  const typename V::M sub = V::int_eq(V::isub(bits, field), V::iset1(0));
  const F xs = V::select(sub, V::int_to_float(field), x);
  const I sbits = V::as_int(xs);
  F m = V::as_float(V::ior(V::iand(sbits, V::iset1(0x7FFFFF)), V::iset1(0x3F800000)));
  F e = V::int_to_float(V::isub(V::exponent_field(sbits), V::iset1(127)));
  e = V::select(sub, V::sub(e, V::set1(149.f)), e);
  const typename V::M big = V::gt(m, V::set1(1.41421356f));
  m = V::select(big, V::mul(m, V::set1(0.5f)), m);
  e = V::select(big, V::add(e, V::set1(1.f)), e);
  const F f = V::sub(m, V::set1(1.f));
  const F s = V::div(f, V::add(m, V::set1(1.f)));
  const F s2 = V::mul(s, s);
  F p = V::set1(2.f / 11.f);
  p = V::fma(p, s2, V::set1(2.f / 9.f));
  p = V::fma(p, s2, V::set1(2.f / 7.f));
  p = V::fma(p, s2, V::set1(2.f / 5.f));
  p = V::fma(p, s2, V::set1(2.f / 3.f));
  const F lm = V::fma(V::mul(p, s2), s, V::add(s, s));
  F y = V::fma(e, V::set1(kLn2Hi), V::fma(e, V::set1(kLn2Lo), lm));
  const I abits = V::iand(bits, V::iset1(0x7FFFFFFF));
  y = V::select(V::int_lt(bits, V::iset1(0)), V::set1(__builtin_nanf("")), y);  // sign bit set
  y = V::select(V::int_eq(abits, V::iset1(0)), V::set1(-__builtin_inff()), y);  // +-0
  y = V::select(V::int_eq(bits, V::iset1(0x7F800000)), x, y);
  return V::select(v_isnan<V>(x), x, y);
}

}  // namespace ofg::kernels::simd
