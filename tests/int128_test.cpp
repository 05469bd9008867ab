// The 128-bit emulation used on 32-bit targets, against the compiler's __int128 where it has one.
#include "ir/int128.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

namespace e = ofg::int128_emul;

#if defined(__SIZEOF_INT128__)
namespace {
__int128 native(const e::int128& v) {
  return static_cast<__int128>((static_cast<unsigned __int128>(v.hi) << 64) | v.lo);
}
}  // namespace

TEST(Int128Emulation, MatchesBuiltin) {
  std::mt19937_64 rng(7);
  const int64_t edge[] = {0, 1, -1, 2, -2, 3, 7, -7, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1,
                          int64_t{1} << 32, -(int64_t{1} << 32), 1000000007, -999999937};
  std::vector<int64_t> vals(std::begin(edge), std::end(edge));
  for (int i = 0; i < 200; ++i) vals.push_back(static_cast<int64_t>(rng()) >> (rng() % 63));
  for (int64_t a : vals)
    for (int64_t b : vals) {
      const e::int128 x = a, y = b;
      const __int128 nx = a, ny = b;
      ASSERT_TRUE(native(x + y) == nx + ny) << a << " + " << b;
      ASSERT_TRUE(native(x - y) == nx - ny) << a << " - " << b;
      ASSERT_TRUE(native(x * y) == nx * ny) << a << " * " << b;
      ASSERT_EQ(x < y, nx < ny);
      ASSERT_EQ(x == y, nx == ny);
      ASSERT_EQ(x >= y, nx >= ny);
      if (b != 0) {
        ASSERT_TRUE(native(x / y) == nx / ny) << a << " / " << b;
        // Wide numerators: a * 2^40 + b over small and large divisors.
        const e::int128 w = x * e::int128(int64_t{1} << 40) + y;
        const __int128 nw = nx * (__int128{1} << 40) + ny;
        ASSERT_TRUE(native(w) == nw);
        ASSERT_TRUE(native(w / y) == nw / ny) << a << " " << b;
        // Exact within 64 bits; beyond, hi * 2^64 + lo may round twice (one ulp).
        const double dn = static_cast<double>(nw);
        ASSERT_NEAR(static_cast<double>(w), dn, std::fabs(dn) * 2.3e-16) << a << " " << b;
        ASSERT_EQ(static_cast<double>(x), static_cast<double>(a));
      }
      ASSERT_EQ(static_cast<int64_t>(x + y), static_cast<int64_t>(nx + ny));
    }
  e::int128 c = 5;
  --c;
  ++c;
  ++c;
  EXPECT_TRUE(native(c) == 6);
  EXPECT_TRUE(native(-e::int128(INT64_MIN)) == -static_cast<__int128>(INT64_MIN));
}

TEST(Int128Emulation, UnsignedProductAndShift) {
  std::mt19937_64 rng(9);
  for (int i = 0; i < 2000; ++i) {
    const uint64_t a = rng() >> (rng() % 64), b = rng() >> (rng() % 64);
    const e::uint128 p = e::uint128(a) * b;
    const unsigned __int128 np = static_cast<unsigned __int128>(a) * b;
    ASSERT_EQ(p.hi, static_cast<uint64_t>(np >> 64));
    ASSERT_EQ(p.lo, static_cast<uint64_t>(np));
    const int sh = static_cast<int>(rng() % 128);
    const e::uint128 s = e::uint128(a) << sh;
    const unsigned __int128 ns = static_cast<unsigned __int128>(a) << sh;
    ASSERT_EQ(s.hi, static_cast<uint64_t>(ns >> 64)) << sh;
    ASSERT_EQ(s.lo, static_cast<uint64_t>(ns)) << sh;
    ASSERT_EQ(p > (e::uint128(1) << 62), np > (static_cast<unsigned __int128>(1) << 62));
    const e::uint128 q = (p + 7) / 8;
    const unsigned __int128 nq = (np + 7) / 8;
    ASSERT_EQ(q.hi, static_cast<uint64_t>(nq >> 64));
    ASSERT_EQ(q.lo, static_cast<uint64_t>(nq));
  }
}
#endif

TEST(Int128Emulation, Basics) {
  const e::int128 a = INT64_MAX, b = 2;
  const e::int128 p = a * b;  // beyond int64
  EXPECT_TRUE(p > e::int128(INT64_MAX));
  EXPECT_TRUE(p / b == a);
  EXPECT_TRUE((-p) / b == -a);
  EXPECT_TRUE(e::int128(-7) / e::int128(2) == e::int128(-3));  // truncates toward zero
  EXPECT_EQ(static_cast<double>(e::int128(-12345)), -12345.0);
}
