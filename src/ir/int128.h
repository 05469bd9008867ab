// 128-bit integers for overflow-free intermediates (shape arithmetic, size checks).
// Where the compiler has them (64-bit targets) these are __int128 / unsigned __int128; on 32-bit
// targets (ARMv7) a small two's-complement emulation with the operations the library uses:
// + - * / (truncating), unary -, ++/--, comparisons, << on the unsigned type (+ * / <<), and explicit
// conversion to integer types (the low bits) and double (exact within 64 bits, else within one ulp) (ofg::int128_emul, tested against __int128 on 64-bit).
#pragma once

#include <cstdint>
#include <type_traits>

namespace ofg {

namespace int128_emul {

namespace detail {
// The low 128 bits of a 128 x 128 product, in 32-bit limbs.
inline void mul(uint64_t ahi, uint64_t alo, uint64_t bhi, uint64_t blo, uint64_t& rhi, uint64_t& rlo) {
  const uint64_t a0 = alo & 0xffffffffu, a1 = alo >> 32, b0 = blo & 0xffffffffu, b1 = blo >> 32;
  const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  rlo = (p00 & 0xffffffffu) | (mid << 32);
  rhi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32) + ahi * blo + alo * bhi;
}
// Unsigned long division of (nhi:nlo) by (dhi:dlo), d != 0.
inline void divmod(uint64_t nhi, uint64_t nlo, uint64_t dhi, uint64_t dlo, uint64_t& qhi, uint64_t& qlo) {
  uint64_t rhi = 0, rlo = 0;
  qhi = qlo = 0;
  for (int i = 127; i >= 0; --i) {
    rhi = (rhi << 1) | (rlo >> 63);
    rlo = (rlo << 1) | ((i >= 64 ? nhi >> (i - 64) : nlo >> i) & 1u);
    if (rhi > dhi || (rhi == dhi && rlo >= dlo)) {
      const uint64_t borrow = rlo < dlo;
      rlo -= dlo;
      rhi -= dhi + borrow;
      if (i >= 64) qhi |= uint64_t{1} << (i - 64);
      else qlo |= uint64_t{1} << i;
    }
  }
}
}  // namespace detail

class uint128 {
 public:
  uint64_t hi = 0, lo = 0;
  constexpr uint128() = default;
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  constexpr uint128(T v) : hi(std::is_signed_v<T> && v < 0 ? ~uint64_t{0} : 0), lo(static_cast<uint64_t>(v)) {}
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  explicit operator T() const { return static_cast<T>(lo); }
  friend uint128 operator*(uint128 a, uint128 b) {
    uint128 r;
    detail::mul(a.hi, a.lo, b.hi, b.lo, r.hi, r.lo);
    return r;
  }
  friend uint128 operator+(uint128 a, uint128 b) {
    uint128 r;
    r.lo = a.lo + b.lo;
    r.hi = a.hi + b.hi + (r.lo < a.lo);
    return r;
  }
  friend uint128 operator/(uint128 a, uint128 b) {
    uint128 q;
    detail::divmod(a.hi, a.lo, b.hi, b.lo, q.hi, q.lo);
    return q;
  }
  friend uint128 operator<<(uint128 a, int n) {
    uint128 r;
    if (n >= 64) { r.hi = a.lo << (n - 64); r.lo = 0; }
    else if (n > 0) { r.hi = (a.hi << n) | (a.lo >> (64 - n)); r.lo = a.lo << n; }
    else r = a;
    return r;
  }
  friend bool operator==(uint128 a, uint128 b) { return a.hi == b.hi && a.lo == b.lo; }
  friend bool operator!=(uint128 a, uint128 b) { return !(a == b); }
  friend bool operator<(uint128 a, uint128 b) { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }
  friend bool operator>(uint128 a, uint128 b) { return b < a; }
  friend bool operator<=(uint128 a, uint128 b) { return !(b < a); }
  friend bool operator>=(uint128 a, uint128 b) { return !(a < b); }
};

class int128 {
 public:
  uint64_t hi = 0, lo = 0;  // two's complement
  constexpr int128() = default;
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  constexpr int128(T v) : hi(std::is_signed_v<T> && v < 0 ? ~uint64_t{0} : 0), lo(static_cast<uint64_t>(v)) {}
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  explicit operator T() const { return static_cast<T>(lo); }
  explicit operator double() const {
    if (negative()) return -static_cast<double>(-*this);
    return static_cast<double>(hi) * 18446744073709551616.0 + static_cast<double>(lo);
  }
  bool negative() const { return hi >> 63; }
  int128 operator-() const {
    int128 r;
    r.lo = ~lo + 1;
    r.hi = ~hi + (r.lo == 0);
    return r;
  }
  friend int128 operator+(int128 a, int128 b) {
    int128 r;
    r.lo = a.lo + b.lo;
    r.hi = a.hi + b.hi + (r.lo < a.lo);
    return r;
  }
  friend int128 operator-(int128 a, int128 b) { return a + -b; }
  friend int128 operator*(int128 a, int128 b) {
    int128 r;
    detail::mul(a.hi, a.lo, b.hi, b.lo, r.hi, r.lo);
    return r;
  }
  friend int128 operator/(int128 a, int128 b) {  // truncates toward zero, as the built-in type
    const bool neg = a.negative() != b.negative();
    const int128 ua = a.negative() ? -a : a, ub = b.negative() ? -b : b;
    int128 q;
    detail::divmod(ua.hi, ua.lo, ub.hi, ub.lo, q.hi, q.lo);
    return neg ? -q : q;
  }
  int128& operator+=(int128 b) { return *this = *this + b; }
  int128& operator-=(int128 b) { return *this = *this - b; }
  int128& operator++() { return *this += 1; }
  int128& operator--() { return *this -= 1; }
  friend bool operator==(int128 a, int128 b) { return a.hi == b.hi && a.lo == b.lo; }
  friend bool operator!=(int128 a, int128 b) { return !(a == b); }
  friend bool operator<(int128 a, int128 b) {
    const int64_t ah = static_cast<int64_t>(a.hi), bh = static_cast<int64_t>(b.hi);
    return ah < bh || (ah == bh && a.lo < b.lo);
  }
  friend bool operator>(int128 a, int128 b) { return b < a; }
  friend bool operator<=(int128 a, int128 b) { return !(b < a); }
  friend bool operator>=(int128 a, int128 b) { return !(a < b); }
};

}  // namespace int128_emul

#if defined(__SIZEOF_INT128__)
using int128 = __int128;
using uint128 = unsigned __int128;
#else
using int128 = int128_emul::int128;
using uint128 = int128_emul::uint128;
#endif

}  // namespace ofg
