// Vector math written once for every SIMD ISA: exp, tanh, sigmoid, log, erf with their polynomial
// coefficients and range reductions. Each function is a template over an ISA's struct S
// (kernels/avx2/isa.h, kernels/neon/isa.h: vector type S::V of S::W floats, masks as all-ones
// lanes of S::V, integer lanes S::I), which supplies the lane operations only, so the error
// bounds stated here hold on every ISA that provides exact IEEE add/mul/div (an ISA whose S::div
// is an estimate refined by Newton steps says so in its isa.h, and the tests hold it to the same
// bounds).
//
// Only include this from a file compiled for the ISA of S: the instantiations carry that ISA's
// instructions (they are distinct per S, so no baseline translation unit can pick one up).
#pragma once

#include <cstddef>
#include <utility>

namespace ofg::kernels::simd {

// Cody-Waite split of ln 2: kLn2Hi has 16 significant bits, so n * kLn2Hi is exact for the
// |n| <= 150 that exp and log use.
constexpr float kLn2Hi = 0.693145751953125f;
constexpr float kLn2Lo = 1.428606820309417232e-6f;
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kExpMax = 88.7228394f;   // largest x with exp(x) < FLT_MAX (rounded)
constexpr float kExpMin = -104.f;        // exp(x) rounds to 0 below (smallest subnormal 1.4e-45)
constexpr float kExpClamp = 104.f;       // n <= 150: 2^n in two normal steps, +inf past kExpMax
constexpr float kLowest = -3.4028234663852886e38f;
static_assert(kExpMax < kExpClamp && -kExpClamp <= kExpMin,
              "v_exp's clamp must keep every x that overflows overflowing, and every x that underflows underflowing");

// c[0] x^(N-1) + c[1] x^(N-2) + ... + c[N-1] by Horner's rule with fused multiply-adds. The
// chain is written out by a fold: GCC at -O2 kept a loop over the coefficients, one broadcast
// from memory per step, inside every caller's loop; written out, each coefficient is a constant
// vector that the caller's loop holds in a register (EfficientNet-B0's SiLU epilogues: the model
// 5% faster).
template <class S, size_t N, size_t... I>
inline typename S::V horner_steps(typename S::V x, const float (&c)[N], std::index_sequence<I...>) {
  typename S::V p = S::set1(c[0]);
  ((p = S::fma(p, x, S::set1(c[I + 1]))), ...);
  return p;
}
template <class S, size_t N>
inline typename S::V horner(typename S::V x, const float (&c)[N]) {
  return horner_steps<S>(x, c, std::make_index_sequence<N - 1>{});
}

// exp(x). Cody-Waite reduction x = n ln2 + r (|r| <= ln2/2), Taylor polynomial of degree 7
// (truncation < 6e-9), 2^n applied in two steps so subnormal results are produced correctly.
// Measured against libm in double (tests/kernels_math_test.cpp): relative error < 3e-7 for
// x in [-87.33, 88.72]; absolute error < 2e-38 below (subnormal results, or 0 on an ISA that
// flushes them); x > 88.7228 -> +inf, -inf -> 0, NaN -> NaN.
// No compare and select: x is clamped to [-104, 104], where the two steps of 2^n (|n| <= 150)
// overflow to +inf and round to 0 by themselves, and a NaN x runs through as NaN (x is the second
// operand of min and max, which keep it there on every ISA; round and convert give an n whose
// 2^n steps are finite). On AVX-512 each select was four instructions through the opmask
// registers (Softmax over 12x128x128: 17% faster without them).
template <class S>
inline typename S::V v_exp(typename S::V x) {
  using F = typename S::V;
  const F xc = S::max(S::set1(kExpMin), S::min(S::set1(kExpClamp), x));
  const F n = S::round_even(S::mul(xc, S::set1(kLog2e)));
  F r = S::fnma(n, S::set1(kLn2Hi), xc);
  r = S::fnma(n, S::set1(kLn2Lo), r);
  static constexpr float kExpTaylor[] = {1.f / 5040.f, 1.f / 720.f, 1.f / 120.f, 1.f / 24.f, 1.f / 6.f, 0.5f, 1.f, 1.f};
  const F p = horner<S>(r, kExpTaylor);
  const typename S::I ni = S::to_int(n);
  const typename S::I n1 = S::half_int(ni), n2 = S::isub(ni, n1);
  return S::mul(S::mul(p, S::pow2(n1)), S::pow2(n2));
}

// An odd function (tanh, erf) from its two branches: series(x, x*x) for |x| < threshold, already
// odd; tail(a) for |x| >= threshold, its value at a = min(|x|, clamp) (the clamp keeps exp in range
// where the function has rounded to 1). x's sign bit is OR-ed into the result, which gives the
// tail its sign and keeps -0 (a series such as x + x^3 p turns -0 into +0); NaN passes through.
template <class S, class Series, class Tail>
inline typename S::V v_odd(typename S::V x, float threshold, float clamp, Series series, Tail tail) {
  using F = typename S::V;
  const F ax = S::abs(x);
  const F small = series(x, S::mul(x, x));
  const F large = tail(S::min(ax, S::set1(clamp)));
  const F y = S::or_mask(S::select(S::lt(ax, S::set1(threshold)), small, large), S::sign_bit(x));
  return S::select(S::nan_mask(x), x, y);
}

// tanh(x): odd Taylor series to x^15 for |x| < 0.5 (truncation < 1e-8 relative), else
// 1 - 2/(exp(2|x|)+1) with |x| clamped at 10 (tanh rounds to 1 from 9.02 on). Measured: absolute
// error < 3e-7 and relative error < 5e-7 on [-12, 12]; keeps -0; +-inf -> +-1; NaN -> NaN.
template <class S>
inline typename S::V v_tanh(typename S::V x) {
  using F = typename S::V;
  auto series = [](F x, F x2) {
    static constexpr float kTanh[] = {-929569.f / 638512875.f, 21844.f / 6081075.f, -1382.f / 155925.f,
                                       62.f / 2835.f, -17.f / 315.f, 2.f / 15.f, -1.f / 3.f};
    return S::fma(S::mul(horner<S>(x2, kTanh), x2), x, x);
  };
  auto tail = [](F a) {
    const F e = v_exp<S>(S::add(a, a));
    return S::sub(S::set1(1.f), S::div(S::set1(2.f), S::add(e, S::set1(1.f))));
  };
  return v_odd<S>(x, 0.5f, 10.f, series, tail);
}

// 1 / (1 + exp(-x)): relative error < 5e-7 for x >= -87 (exp bound + one division), absolute
// error < 2e-38 below; +-inf -> 1 / 0; NaN -> NaN.
template <class S>
inline typename S::V v_sigmoid(typename S::V x) {
  const typename S::V e = v_exp<S>(S::neg(x));
  return S::div(S::set1(1.f), S::add(S::set1(1.f), e));
}

// log(x): x = 2^e m with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m-1)/(m+1),
// |s| < 0.1716, series to s^11 (truncation < 4e-9). A subnormal input's mantissa field is
// converted to float as an integer (x = field * 2^-149), with integer operations only, so an ISA
// whose float unit flushes subnormal operands still gets it right. Measured: |error| < 3e-7 *
// max(1, |log x|) over [1e-44, 3e38]; 0 -> -inf, x < 0 -> NaN, +inf -> +inf, NaN -> NaN.
template <class S>
inline typename S::V v_log(typename S::V x) {
  using F = typename S::V;
  using I = typename S::I;
  const I bits = S::as_int(x);
  const I field = S::iand(bits, S::iset1(0x7FFFFF));
  // Positive subnormal: exponent field 0, mantissa field non-zero (zero is handled at the end).
  const typename S::V sub = S::int_eq(S::isub(bits, field), S::iset1(0));
  const F xs = S::select(sub, S::int_to_float(field), x);
  const I sbits = S::as_int(xs);
  F m = S::as_float(S::ior(S::iand(sbits, S::iset1(0x7FFFFF)), S::iset1(0x3F800000)));
  F e = S::int_to_float(S::isub(S::exponent_field(sbits), S::iset1(127)));
  e = S::select(sub, S::sub(e, S::set1(149.f)), e);
  const typename S::V big = S::gt(m, S::set1(1.41421356f));
  m = S::select(big, S::mul(m, S::set1(0.5f)), m);
  e = S::select(big, S::add(e, S::set1(1.f)), e);
  const F f = S::sub(m, S::set1(1.f));
  const F s = S::div(f, S::add(m, S::set1(1.f)));
  const F s2 = S::mul(s, s);
  static constexpr float kAtanhSeries[] = {2.f / 11.f, 2.f / 9.f, 2.f / 7.f, 2.f / 5.f, 2.f / 3.f};
  const F p = horner<S>(s2, kAtanhSeries);
  const F lm = S::fma(S::mul(p, s2), s, S::add(s, s));
  F y = S::fma(e, S::set1(kLn2Hi), S::fma(e, S::set1(kLn2Lo), lm));
  const I abits = S::iand(bits, S::iset1(0x7FFFFFFF));
  y = S::select(S::int_lt(bits, S::iset1(0)), S::set1(__builtin_nanf("")), y);  // sign bit set
  y = S::select(S::int_eq(abits, S::iset1(0)), S::set1(-__builtin_inff()), y);  // +-0
  y = S::select(S::int_eq(bits, S::iset1(0x7F800000)), x, y);
  return S::select(S::nan_mask(x), x, y);
}

// erf(x). |x| < 1: Maclaurin series x * sum c_n x^2n to n = 11 (truncation < 2e-9 relative).
// |x| >= 1: 1 - t P(t) exp(-x^2) with t = 1 / (1 + 0.3275911 |x|) (Abramowitz and Stegun 7.1.26,
// absolute error <= 1.5e-7 in exact arithmetic), |x| clamped at 6 (erf rounds to 1 from 3.92
// on), sign restored. Measured against libm in double (tests/kernels_math_test.cpp): absolute
// error < 3e-7 and relative error < 5e-7 on [-6, 6]; keeps -0; +-inf -> +-1; NaN -> NaN.
template <class S>
inline typename S::V v_erf(typename S::V x) {
  using F = typename S::V;
  auto series = [](F x, F x2) {
    static constexpr float kErfSeries[] = {-1.2290555301717926e-09f, 1.4807192815879218e-08f, -1.6365844691234924e-07f, 1.6462114365889246e-06f,
                                           -1.492565035840625e-05f, 0.00012055332981789664f, -0.0008548327023450852f, 0.005223977625442188f,
                                           -0.026866170645131252f, 0.11283791670955126f, -0.37612638903183754f, 1.1283791670955126f};
    return S::mul(x, horner<S>(x2, kErfSeries));
  };
  auto tail = [](F a) {
    const F t = S::div(S::set1(1.f), S::fma(S::set1(0.3275911f), a, S::set1(1.f)));
    static constexpr float kErfTail[] = {1.061405429f, -1.453152027f, 1.421413741f, -0.284496736f, 0.254829592f};
    const F q = horner<S>(t, kErfTail);
    return S::sub(S::set1(1.f), S::mul(S::mul(q, t), v_exp<S>(S::neg(S::mul(a, a)))));
  };
  return v_odd<S>(x, 1.f, 6.f, series, tail);
}

}  // namespace ofg::kernels::simd
