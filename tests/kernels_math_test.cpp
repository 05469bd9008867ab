// Unary approximations against libm in double, and the remaining kernels (reductions, softmax,
// layer norm, pooling, transpose, hash/compare, conversions) SIMD vs scalar.
#include "kernels/kernels.h"
#include "support/kernel_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace k = ofg::kernels;

namespace {

using ofg::test::rnd;

std::vector<float> dense(float lo, float hi, size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = lo + (hi - lo) * static_cast<float>(i) / static_cast<float>(n - 1);
  return v;
}

double ref_unary(k::UnaryOp op, double x) {
  switch (op) {
    case k::UnaryOp::Exp: return std::exp(x);
    case k::UnaryOp::Log: return std::log(x);
    case k::UnaryOp::Tanh: return std::tanh(x);
    case k::UnaryOp::Sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case k::UnaryOp::Erf: return std::erf(x);
    case k::UnaryOp::GeluErf: return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
    case k::UnaryOp::GeluTanh:
      return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    case k::UnaryOp::Softplus: return x > 30 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    case k::UnaryOp::Silu: return x / (1.0 + std::exp(-x));
    default: return 0;
  }
}

struct Err {
  double abs = 0, rel = 0;
  double mixed = 0;  // |y - ref| / max(1, |ref|)
};

// Max absolute and relative error of the table's op against libm in double; relative error is
// only taken where |ref| >= rel_floor.
Err measure(const k::KernelTable& t, k::UnaryOp op, const std::vector<float>& x, double rel_floor) {
  std::vector<float> y(x.size());
  t.unary(op, x.data(), y.data(), x.size(), 0, 0);
  Err e;
  for (size_t i = 0; i < x.size(); ++i) {
    const double r = ref_unary(op, x[i]);
    const double d = std::fabs(static_cast<double>(y[i]) - r);
    if (std::isnan(d) && !(std::isinf(r) && y[i] == r)) {
      ADD_FAILURE() << t.isa << " op " << int(op) << " x=" << x[i] << " y=" << y[i] << " ref=" << r;
      return e;
    }
    if (std::isinf(r)) continue;
    e.abs = std::max(e.abs, d);
    if (std::fabs(r) >= rel_floor) e.rel = std::max(e.rel, d / std::fabs(r));
    e.mixed = std::max(e.mixed, d / std::max(1.0, std::fabs(r)));
  }
  return e;
}

}  // namespace

// Stated bounds of the SIMD approximations (the same figures are in the comments of the
// implementations). Scalar (libm float) is held to the same bounds.
TEST(KernelsUnary, ApproximationErrorBounds) {
  std::vector<const k::KernelTable*> tables = {&k::scalar_table()};
  for (const k::KernelTable* t : k::simd_tables()) tables.push_back(t);
  for (const k::KernelTable* t : tables) {
    SCOPED_TRACE(t->isa);
    Err e = measure(*t, k::UnaryOp::Exp, dense(-87.33f, 88.72f, 400001), 0);
    EXPECT_LT(e.rel, 3e-7) << "exp rel";
    e = measure(*t, k::UnaryOp::Exp, dense(-104.f, -87.33f, 10001), 0);  // subnormal results
    EXPECT_LT(e.abs, 2e-38) << "exp subnormal abs";
    e = measure(*t, k::UnaryOp::Tanh, dense(-12.f, 12.f, 400001), 1e-30);
    EXPECT_LT(e.abs, 3e-7) << "tanh abs";
    EXPECT_LT(e.rel, 5e-7) << "tanh rel";
    e = measure(*t, k::UnaryOp::Tanh, dense(-1e-3f, 1e-3f, 10001), 1e-30);
    EXPECT_LT(e.rel, 5e-7) << "tanh rel near 0";
    e = measure(*t, k::UnaryOp::Sigmoid, dense(-87.f, 30.f, 400001), 0);
    EXPECT_LT(e.rel, 5e-7) << "sigmoid rel";
    e = measure(*t, k::UnaryOp::Sigmoid, dense(-120.f, -87.f, 1001), 0);
    EXPECT_LT(e.abs, 2e-38) << "sigmoid far left abs";
    e = measure(*t, k::UnaryOp::Erf, dense(-6.f, 6.f, 400001), 1e-30);
    EXPECT_LT(e.abs, 3e-7) << "erf abs";
    EXPECT_LT(e.rel, 5e-7) << "erf rel";
    std::vector<float> lx;
    for (float v = 1e-37f; v < 3e38f; v *= 1.0001f) lx.push_back(v);
    for (float v = 0.5f; v < 2.f; v += 1e-5f) lx.push_back(v);
    e = measure(*t, k::UnaryOp::Log, lx, 0);
    EXPECT_LT(e.mixed, 3e-7) << "log abs/rel";
    e = measure(*t, k::UnaryOp::Log, dense(1e-44f, 1e-38f, 10001), 0);  // subnormal inputs
    EXPECT_LT(e.mixed, 3e-7) << "log subnormal abs/rel";
    // GELU/SiLU/softplus: error relative to max(1, |y|).
    for (auto op : {k::UnaryOp::GeluErf, k::UnaryOp::GeluTanh, k::UnaryOp::Silu, k::UnaryOp::Softplus}) {
      e = measure(*t, op, dense(-1.f, 1.f, 100001), 1e300);
      EXPECT_LT(e.abs, 3e-7) << "op " << int(op) << " abs on [-1,1]";
      e = measure(*t, op, dense(-20.f, 20.f, 200001), 1.0);
      EXPECT_LT(e.rel, 8e-7) << "op " << int(op) << " rel on [-20,20] where |y|>=1";
      EXPECT_LT(e.abs, 2e-6) << "op " << int(op) << " abs on [-20,20]";
    }
  }
}

TEST(KernelsUnary, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<const k::KernelTable*> tables = {&k::scalar_table()};
  for (const k::KernelTable* t : k::simd_tables()) tables.push_back(t);
  for (const k::KernelTable* t : tables) {
    SCOPED_TRACE(t->isa);
    auto run = [&](k::UnaryOp op, float x) {
      float in[9] = {x, x, x, x, x, x, x, x, x}, out[9];
      t->unary(op, in, out, 9, 0, 0);  // both the vector body and the tail
      EXPECT_TRUE(std::memcmp(out, out + 8, 4) == 0 || (std::isnan(out[0]) && std::isnan(out[8])))
          << "op " << int(op) << " x=" << x << ": " << out[0] << " vs " << out[8];
      return out[0];
    };
    EXPECT_EQ(run(k::UnaryOp::Exp, inf), inf);
    EXPECT_EQ(run(k::UnaryOp::Exp, -inf), 0.f);
    EXPECT_EQ(run(k::UnaryOp::Exp, 100.f), inf);
    EXPECT_EQ(run(k::UnaryOp::Exp, 0.f), 1.f);
    EXPECT_TRUE(std::isnan(run(k::UnaryOp::Exp, nan)));
    EXPECT_TRUE(std::isnan(run(k::UnaryOp::Exp, -nan)));
    // Past the largest finite result and below the smallest subnormal one, up to and past the
    // bounds the argument is clamped to (+-104): overflow and underflow come from 2^n itself.
    for (float x : {88.7229f, 89.f, 103.99f, 104.f, 104.5f, 200.f, 3e38f})
      EXPECT_EQ(run(k::UnaryOp::Exp, x), inf) << x;
    const float big = run(k::UnaryOp::Exp, 88.72f);  // the largest results stay finite
    EXPECT_TRUE(std::isfinite(big));
    EXPECT_NEAR(big, std::exp(double{88.72f}), 5e-7 * std::exp(double{88.72f}));
    for (float x : {-103.98f, -104.f, -104.5f, -150.f, -3e38f}) EXPECT_EQ(run(k::UnaryOp::Exp, x), 0.f) << x;
    for (float x : {-200.f, -104.f, -89.f}) EXPECT_LT(run(k::UnaryOp::Sigmoid, x), 2e-38f) << x;
    for (float x : {17.f, 89.f, 104.f, 200.f}) EXPECT_EQ(run(k::UnaryOp::Sigmoid, x), 1.f) << x;
    EXPECT_EQ(run(k::UnaryOp::Tanh, inf), 1.f);
    EXPECT_EQ(run(k::UnaryOp::Tanh, -inf), -1.f);
    EXPECT_TRUE(std::signbit(run(k::UnaryOp::Tanh, -0.f)));
    EXPECT_TRUE(std::isnan(run(k::UnaryOp::Tanh, nan)));
    EXPECT_EQ(run(k::UnaryOp::Sigmoid, inf), 1.f);
    EXPECT_EQ(run(k::UnaryOp::Sigmoid, -inf), 0.f);
    EXPECT_TRUE(std::isnan(run(k::UnaryOp::Sigmoid, nan)));
    EXPECT_EQ(run(k::UnaryOp::Erf, inf), 1.f);
    EXPECT_EQ(run(k::UnaryOp::Erf, -inf), -1.f);
    EXPECT_TRUE(std::signbit(run(k::UnaryOp::Erf, -0.f)));
    EXPECT_TRUE(std::isnan(run(k::UnaryOp::Erf, nan)));
    EXPECT_EQ(run(k::UnaryOp::Log, 0.f), -inf);
    EXPECT_EQ(run(k::UnaryOp::Log, inf), inf);
    EXPECT_EQ(run(k::UnaryOp::Log, 1.f), 0.f);
    EXPECT_TRUE(std::isnan(run(k::UnaryOp::Log, -1.f)));
    EXPECT_TRUE(std::isnan(run(k::UnaryOp::Log, nan)));
    EXPECT_TRUE(std::isnan(run(k::UnaryOp::Relu, nan)));
    EXPECT_EQ(run(k::UnaryOp::Softplus, inf), inf);
    EXPECT_EQ(run(k::UnaryOp::Softplus, -inf), 0.f);
    EXPECT_EQ(run(k::UnaryOp::GeluErf, -inf), 0.f);
    EXPECT_EQ(run(k::UnaryOp::GeluErf, inf), inf);
    EXPECT_EQ(run(k::UnaryOp::GeluTanh, -inf), 0.f);
    EXPECT_EQ(run(k::UnaryOp::Silu, -inf), 0.f);
    EXPECT_EQ(run(k::UnaryOp::Silu, inf), inf);
    EXPECT_EQ(run(k::UnaryOp::Round, 2.5f), 2.f);
    EXPECT_EQ(run(k::UnaryOp::Round, -3.5f), -4.f);
    EXPECT_EQ(run(k::UnaryOp::Round, 0.5f), 0.f);
  }
}

TEST(KernelsUnary, ExactOpsMatchScalarOnTails) {
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
    const k::UnaryOp exact[] = {k::UnaryOp::Relu, k::UnaryOp::LeakyRelu, k::UnaryOp::Clip,
                                k::UnaryOp::HardSigmoid, k::UnaryOp::HardSwish, k::UnaryOp::Sqrt,
                                k::UnaryOp::Reciprocal, k::UnaryOp::Abs, k::UnaryOp::Neg,
                                k::UnaryOp::Floor, k::UnaryOp::Ceil, k::UnaryOp::Round};
    for (size_t n = 1; n <= 67; ++n) {
      auto x = rnd(n, -8, 8, static_cast<unsigned>(n));
      for (size_t i = 0; i < n; i += 5) x[i] = std::round(x[i] * 2) / 2;  // exact halves for Round
      if (n > 6) x[6] = std::numeric_limits<float>::quiet_NaN();
      for (auto op : exact) {
        std::vector<float> a(n), b(n);
        const float alpha = op == k::UnaryOp::Clip ? -1.5f : 0.2f;
        const float beta = op == k::UnaryOp::Clip ? 2.5f : 0.5f;
        k::scalar_table().unary(op, x.data(), a.data(), n, alpha, beta);
        simd->unary(op, x.data(), b.data(), n, alpha, beta);
        for (size_t i = 0; i < n; ++i) {
          if (std::isnan(a[i])) EXPECT_TRUE(std::isnan(b[i])) << int(op) << " " << i;
          else if (a[i] == b[i]) continue;
          else if (op == k::UnaryOp::Sqrt || op == k::UnaryOp::Reciprocal || op == k::UnaryOp::HardSwish ||
                   op == k::UnaryOp::HardSigmoid)
            EXPECT_NEAR(a[i], b[i], 2e-7f * std::max(1.f, std::fabs(a[i]))) << int(op) << " x=" << x[i];
          else EXPECT_EQ(a[i], b[i]) << int(op) << " x=" << x[i];
        }
      }
    }
  });
}

// The vector approximations give every lane the same arithmetic: an element's result does not
// depend on whether it falls in the vector body or the tail, nor on n; and they stay close to
// the scalar reference on every odd size.
TEST(KernelsUnary, ApproximationTailsMatchBody) {
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
    const k::UnaryOp ops[] = {k::UnaryOp::Exp,      k::UnaryOp::Log,      k::UnaryOp::Tanh,
                              k::UnaryOp::Sigmoid,  k::UnaryOp::GeluTanh, k::UnaryOp::Softplus,
                              k::UnaryOp::Silu,     k::UnaryOp::HardSwish};
    for (auto op : ops) {
      auto x = rnd(67, op == k::UnaryOp::Log ? 0.01f : -10.f, 10.f, 11);
      std::vector<float> full(x.size()), want(x.size());
      simd->unary(op, x.data(), full.data(), x.size(), 0.2f, 0.5f);
      k::scalar_table().unary(op, x.data(), want.data(), x.size(), 0.2f, 0.5f);
      for (size_t i = 0; i < x.size(); ++i)
        EXPECT_NEAR(full[i], want[i], 1e-6f * std::max(1.f, std::fabs(want[i]))) << int(op) << " x=" << x[i];
      for (size_t n = 1; n < x.size(); ++n) {
        for (size_t start : {size_t(0), x.size() - n}) {
          std::vector<float> y(n);
          simd->unary(op, x.data() + start, y.data(), n, 0.2f, 0.5f);
          ASSERT_EQ(0, std::memcmp(y.data(), full.data() + start, n * 4)) << int(op) << " n=" << n << " start=" << start;
        }
      }
    }
  });
}

// Subnormal operands and results. SIMD equals scalar, except that 32-bit ARM NEON flushes
// subnormal operands and results of float arithmetic to zero (kernels/neon/isa.h): there a result
// may instead be the scalar result of the flushed operands, flushed.
namespace {
#if defined(__arm__)
constexpr bool kSimdMayFlush = true;
#else
constexpr bool kSimdMayFlush = false;
#endif
float flush(float v) { return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.f, v) : v; }
std::vector<float> flushed(std::vector<float> v) {
  for (float& f : v) f = flush(f);
  return v;
}
void expect_same_or_flushed(const std::vector<float>& got, const std::vector<float>& exact,
                            const std::vector<float>& of_flushed, const char* what) {
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(exact[i]) && std::isnan(got[i])) continue;
    if (got[i] == exact[i]) continue;
    if (kSimdMayFlush && (got[i] == flush(of_flushed[i]) || (std::isnan(got[i]) && std::isnan(of_flushed[i]))))
      continue;
    ADD_FAILURE() << what << " at " << i << ": got " << got[i] << " want " << exact[i];
  }
}
}  // namespace

TEST(KernelsSubnormals, SimdMatchesScalarOrFlushesOnArm32) {
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
    const float tiny = std::numeric_limits<float>::denorm_min(), least = std::numeric_limits<float>::min();
    std::vector<float> a = {3 * tiny, -5 * tiny, least / 2, -least / 3, least, -least, 1.f, -0.f, 0.f,
                            least * 0.75f, 1e-39f, -1e-39f, 2.f, -2.f, least * 1.5f, 7e-45f, 0.5f};
    std::vector<float> b(a.rbegin(), a.rend());
    const std::vector<float> fa = flushed(a), fb = flushed(b);
    const size_t n = a.size();
    for (auto op : {k::BinaryOp::Add, k::BinaryOp::Sub, k::BinaryOp::Mul, k::BinaryOp::Max, k::BinaryOp::Min}) {
      std::vector<float> got(n), exact(n), of_flushed(n);
      k::scalar_table().binary_vv(op, a.data(), b.data(), exact.data(), n);
      k::scalar_table().binary_vv(op, fa.data(), fb.data(), of_flushed.data(), n);
      simd->binary_vv(op, a.data(), b.data(), got.data(), n);
      expect_same_or_flushed(got, exact, of_flushed, "vv");
      k::scalar_table().binary_vs(op, a.data(), least / 4, exact.data(), n);
      k::scalar_table().binary_vs(op, fa.data(), 0.f, of_flushed.data(), n);
      simd->binary_vs(op, a.data(), least / 4, got.data(), n);
      expect_same_or_flushed(got, exact, of_flushed, "vs");
    }
    for (auto op : {k::UnaryOp::Relu, k::UnaryOp::LeakyRelu, k::UnaryOp::Clip, k::UnaryOp::Abs, k::UnaryOp::Neg,
                    k::UnaryOp::Floor, k::UnaryOp::Ceil, k::UnaryOp::Round}) {
      std::vector<float> got(n), exact(n), of_flushed(n);
      const float alpha = op == k::UnaryOp::Clip ? -least / 2 : 0.5f, beta = least;
      k::scalar_table().unary(op, a.data(), exact.data(), n, alpha, beta);
      k::scalar_table().unary(op, fa.data(), of_flushed.data(), n, flush(alpha), beta);
      simd->unary(op, a.data(), got.data(), n, alpha, beta);
      expect_same_or_flushed(got, exact, of_flushed, "unary");
    }
    // log takes a subnormal operand apart with integer operations: exact handling on every ISA.
    std::vector<float> lx = {tiny, 3 * tiny, least / 2, least * 0.99f, 1e-40f, 1e-44f, least, 1.f, 2.f};
    std::vector<float> ly(lx.size());
    simd->unary(k::UnaryOp::Log, lx.data(), ly.data(), lx.size(), 0, 0);
    for (size_t i = 0; i < lx.size(); ++i)
      EXPECT_NEAR(ly[i], std::log(static_cast<double>(lx[i])), 3e-7 * std::max(1.0, std::fabs(std::log(double(lx[i])))))
          << lx[i];
  });
}

// Clip with min > max gives max everywhere (min(max(x, min), max)), NaN stays NaN, in every table.
TEST(KernelsUnary, ClipMinAboveMax) {
  std::vector<const k::KernelTable*> tables{&k::scalar_table()};
  for (const k::KernelTable* t : k::simd_tables()) tables.push_back(t);
  const float x[] = {-3.f, 0.f, 1.5f, 3.f, 7.f, std::numeric_limits<float>::quiet_NaN(), -1.f, 2.f, 9.f};
  const size_t n = sizeof(x) / sizeof(x[0]);
  for (const k::KernelTable* t : tables) {
    float y[n];
    t->unary(k::UnaryOp::Clip, x, y, n, 2.f, 1.f);
    for (size_t i = 0; i < n; ++i) {
      if (std::isnan(x[i])) EXPECT_TRUE(std::isnan(y[i])) << t->isa;
      else EXPECT_EQ(y[i], 1.f) << t->isa << " x=" << x[i];
    }
  }
}

// ------------------------------------------------------------------ reductions, softmax, norm

TEST(KernelsReduce, SimdMatchesScalar) {
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
    const size_t shapes[][3] = {{1, 1, 1}, {3, 67, 1}, {2, 1000, 1}, {5, 7, 13}, {2, 9, 64}, {1, 0, 3}, {4, 3, 8}};
    for (auto& s : shapes) {
      auto x = rnd(s[0] * s[1] * s[2], 0.5f, 1.5f, 9);
      for (int op = 0; op <= 9; ++op) {
        std::vector<float> a(s[0] * s[2]), b(a.size());
        const auto o = static_cast<k::ReduceOp>(op);
        k::scalar_table().reduce(o, x.data(), a.data(), s[0], s[1], s[2]);
        simd->reduce(o, x.data(), b.data(), s[0], s[1], s[2]);
        for (size_t i = 0; i < a.size(); ++i) {
          if (std::isnan(a[i])) { EXPECT_TRUE(std::isnan(b[i])); continue; }
          if (std::isinf(a[i])) { EXPECT_EQ(a[i], b[i]); continue; }
          EXPECT_NEAR(a[i], b[i], 1e-6f * std::max(1.f, std::fabs(a[i])) * (1 + s[1] / 64.f))
              << "op " << op << " shape " << s[0] << "," << s[1] << "," << s[2];
        }
      }
    }
    // NaN propagates through max/min.
    std::vector<float> x = rnd(40, -1, 1, 2);
    x[33] = NAN;
    float y;
    simd->reduce(k::ReduceOp::Max, x.data(), &y, 1, 40, 1);
    EXPECT_TRUE(std::isnan(y));
    simd->reduce(k::ReduceOp::Min, x.data(), &y, 1, 40, 1);
    EXPECT_TRUE(std::isnan(y));
  });
}

TEST(KernelsSoftmax, SimdMatchesScalarAndSumsToOne) {
  std::vector<const k::KernelTable*> tables = {&k::scalar_table()};
  for (const k::KernelTable* t : k::simd_tables()) tables.push_back(t);
  // Rows shorter than a vector and rows with a partial last vector (attention over 12 tokens).
  const size_t shapes[][3] = {{1, 1, 1}, {3, 67, 1}, {2, 1000, 1}, {5, 7, 13}, {2, 9, 64}, {8, 12, 1}, {3, 20, 1}, {4, 3, 1}, {2, 31, 1}};
  for (auto& s : shapes) {
    auto x = rnd(s[0] * s[1] * s[2], -30.f, 30.f, 4);
    std::vector<float> ref(x.size()), lref(x.size());
    k::scalar_table().softmax(x.data(), ref.data(), s[0], s[1], s[2], false);
    k::scalar_table().softmax(x.data(), lref.data(), s[0], s[1], s[2], true);
    for (size_t o = 0; o < s[0]; ++o)
      for (size_t i = 0; i < s[2]; ++i) {
        double sum = 0;
        for (size_t r = 0; r < s[1]; ++r) sum += ref[(o * s[1] + r) * s[2] + i];
        EXPECT_NEAR(sum, 1.0, 1e-5);
      }
    for (const k::KernelTable* t : tables) {
      std::vector<float> y(x.size()), ly(x.size());
      t->softmax(x.data(), y.data(), s[0], s[1], s[2], false);
      t->softmax(x.data(), ly.data(), s[0], s[1], s[2], true);
      for (size_t i = 0; i < x.size(); ++i) {
        EXPECT_NEAR(y[i], ref[i], 1e-6f * std::max(1e-3f, ref[i]) + 1e-30f) << t->isa;
        EXPECT_NEAR(ly[i], lref[i], 2e-6f * std::max(1.f, std::fabs(lref[i]))) << t->isa;
      }
    }
  }
}

// A row shorter than every ISA's vector is all tail: its exponentials are the table's vector exp
// of x - max lane by lane, summed in order, times 1 / sum: the same bits as that composition.
TEST(KernelsSoftmax, ShortRowIsVectorExpLaneByLane) {
  for (const k::KernelTable* t : k::simd_tables())
    for (size_t len = 1; len <= 3; ++len) {
      auto x = rnd(6 * len, -20.f, 20.f, static_cast<unsigned>(len));
      std::vector<float> y(x.size());
      t->softmax(x.data(), y.data(), 6, len, 1, false);
      for (size_t o = 0; o < 6; ++o) {
        const float* p = x.data() + o * len;
        const float m = *std::max_element(p, p + len);
        std::vector<float> d(len), e(len);
        for (size_t i = 0; i < len; ++i) d[i] = p[i] - m;
        t->unary(k::UnaryOp::Exp, d.data(), e.data(), len, 0.f, 0.f);
        float s = 0.f;
        for (float v : e) s += v;
        for (size_t i = 0; i < len; ++i) EXPECT_EQ(y[o * len + i], e[i] * (1.f / s)) << t->isa << " len " << len;
      }
    }
}

// Rows shorter than a vector run four at a time: each gives the bits it gives alone (one row
// per call), for every length below the widest vector, softmax and log-softmax.
TEST(KernelsSoftmax, GroupedShortRowsAreTheRowsAlone) {
  for (const k::KernelTable* t : k::simd_tables())
    for (size_t len = 1; len < 16; ++len)
      for (bool log : {false, true}) {
        const size_t outer = 11;
        auto x = rnd(outer * len, -30.f, 30.f, static_cast<unsigned>(len) + 7);
        x[len] = -std::numeric_limits<float>::infinity();  // a masked score, as attention has
        std::vector<float> all(x.size()), alone(x.size());
        t->softmax(x.data(), all.data(), outer, len, 1, log);
        for (size_t o = 0; o < outer; ++o) t->softmax(x.data() + o * len, alone.data() + o * len, 1, len, 1, log);
        for (size_t i = 0; i < x.size(); ++i)
          ASSERT_EQ(std::memcmp(&all[i], &alone[i], 4), 0) << t->isa << " len " << len << " log " << log << " element " << i;
      }
}

TEST(KernelsLayerNorm, SimdMatchesScalar) {
  std::vector<const k::KernelTable*> tables = {&k::scalar_table()};
  for (const k::KernelTable* t : k::simd_tables()) tables.push_back(t);
  for (size_t D : {1, 7, 8, 31, 67, 768}) {
    const size_t rows = 5;
    auto x = rnd(rows * D, -3.f, 5.f, 3), sc = rnd(D, 0.5f, 1.5f, 4), bi = rnd(D, -1, 1, 5);
    std::vector<float> ref(x.size()), m(rows), is(rows);
    k::scalar_table().layer_norm(x.data(), sc.data(), bi.data(), ref.data(), rows, D, 1e-5f, m.data(), is.data());
    for (const k::KernelTable* t : tables) {
      std::vector<float> y(x.size()), m2(rows), is2(rows);
      t->layer_norm(x.data(), sc.data(), bi.data(), y.data(), rows, D, 1e-5f, m2.data(), is2.data());
      for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], ref[i], 2e-5f) << t->isa << " D=" << D;
      for (size_t r = 0; r < rows; ++r) {
        EXPECT_NEAR(m2[r], m[r], 1e-5f);
        EXPECT_NEAR(is2[r], is[r], 1e-5f * is[r]);
      }
      t->layer_norm(x.data(), sc.data(), nullptr, y.data(), rows, D, 1e-5f, nullptr, nullptr);
      for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], ref[i] - bi[i % D], 2e-5f);
    }
  }
}

// ------------------------------------------------------------------ pooling

TEST(KernelsPool, HandCheckedAndSimd) {
  // 1x1x3x3, 2x2 window, stride 1, pad 1 on every side.
  const float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  k::Pool2DParams p;
  p.C = 1; p.H = 3; p.W = 3; p.kH = 2; p.kW = 2;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  p.H_out = p.W_out = 4;
  float y[16];
  k::scalar_table().max_pool2d(p, x, y);
  EXPECT_EQ(y[0], 1.f);
  EXPECT_EQ(y[5], 5.f);
  EXPECT_EQ(y[15], 9.f);
  k::scalar_table().avg_pool2d(p, x, y);
  EXPECT_FLOAT_EQ(y[0], 1.f);
  EXPECT_FLOAT_EQ(y[5], 3.f);
  p.count_include_pad = true;
  k::scalar_table().avg_pool2d(p, x, y);
  EXPECT_FLOAT_EQ(y[0], 0.25f);
  EXPECT_FLOAT_EQ(y[5], 3.f);
  for (const k::KernelTable* simd : k::simd_tables())
    for (size_t kk : {2, 3, 5})
      for (size_t s : {1, 2})
        for (size_t W : {5, 17, 40}) {
          k::Pool2DParams q;
          q.N = 2; q.C = 3; q.H = 11; q.W = W; q.kH = kk; q.kW = kk; q.stride_h = q.stride_w = s;
          q.pad_top = q.pad_left = kk / 2; q.pad_bottom = q.pad_right = kk / 2;
          q.H_out = k::conv_out_dim(q.H, kk, s, kk / 2, kk / 2, 1);
          q.W_out = k::conv_out_dim(q.W, kk, s, kk / 2, kk / 2, 1);
          auto in = rnd(q.N * q.C * q.H * q.W);
          for (int inc = 0; inc < 2; ++inc) {
            q.count_include_pad = inc;
            std::vector<float> a(q.N * q.C * q.H_out * q.W_out), b(a.size());
            k::scalar_table().max_pool2d(q, in.data(), a.data());
            simd->max_pool2d(q, in.data(), b.data());
            EXPECT_EQ(a, b);
            k::scalar_table().avg_pool2d(q, in.data(), a.data());
            simd->avg_pool2d(q, in.data(), b.data());
            for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-6f);
          }
        }
  // NaN anywhere in a window makes that output NaN; planes without NaN take the SIMD kernels'
  // faster path, planes with one the tracking path: both against the reference, on widths with
  // and without a partial last vector.
  for (const k::KernelTable* simd : k::simd_tables())
    for (size_t W : {7, 16, 33, 111}) {
      k::Pool2DParams q;
      q.N = 1; q.C = 3; q.H = 9; q.W = W; q.kH = q.kW = 3; q.stride_h = q.stride_w = 2;
      q.H_out = k::conv_out_dim(q.H, 3, 2, 0, 0, 1);
      q.W_out = k::conv_out_dim(q.W, 3, 2, 0, 0, 1);
      auto in = rnd(q.C * q.H * q.W);
      in[q.H * q.W + 2 * W + W - 1] = NAN;  // plane 1, last column of row 2
      in[2 * q.H * q.W + 4] = NAN;          // plane 2, row 0
      std::vector<float> a(q.C * q.H_out * q.W_out), b(a.size());
      k::scalar_table().max_pool2d(q, in.data(), a.data());
      simd->max_pool2d(q, in.data(), b.data());
      size_t nans = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        nans += std::isnan(a[i]);
        if (std::isnan(a[i])) EXPECT_TRUE(std::isnan(b[i])) << simd->isa << " W=" << W << " at " << i;
        else EXPECT_EQ(a[i], b[i]) << simd->isa << " W=" << W << " at " << i;
      }
      EXPECT_GE(nans, 2u) << "W=" << W;
    }
  std::vector<float> g = rnd(6 * 49), ga(6), gm(6);
  k::global_avg_pool(g.data(), ga.data(), 6, 49);
  k::global_max_pool(g.data(), gm.data(), 6, 49);
  for (size_t c = 0; c < 6; ++c) {
    double s = 0;
    float m = -INFINITY;
    for (size_t i = 0; i < 49; ++i) { s += g[c * 49 + i]; m = std::max(m, g[c * 49 + i]); }
    EXPECT_NEAR(ga[c], s / 49, 1e-6);
    EXPECT_EQ(gm[c], m);
  }
}

// ------------------------------------------------------------------ transpose

TEST(KernelsTranspose, AllPermutationsMatchReference) {
  std::vector<const k::KernelTable*> tables = {&k::scalar_table()};
  for (const k::KernelTable* t : k::simd_tables()) tables.push_back(t);
  const std::vector<std::vector<int64_t>> shapes = {
      {17, 23}, {3, 9, 11}, {2, 1, 5, 8}, {2, 3, 4, 5}, {1, 16, 33, 1}, {2, 3, 1, 2, 3}, {9, 8}, {64, 67}};
  std::mt19937 rng(5);
  for (const auto& dims : shapes) {
    std::vector<size_t> perm(dims.size());
    std::iota(perm.begin(), perm.end(), 0);
    size_t total = 1;
    for (auto d : dims) total *= static_cast<size_t>(d);
    for (int trial = 0; trial < 12; ++trial) {
      for (size_t es : {1, 2, 4, 8}) {
        std::vector<unsigned char> x(total * es), want(x.size()), got(x.size());
        for (auto& c : x) c = static_cast<unsigned char>(rng());
        k::transpose_reference(x.data(), want.data(), es, dims.data(), perm.data(), dims.size());
        for (const k::KernelTable* t : tables) {
          std::fill(got.begin(), got.end(), 0);
          k::transpose_with(*t, x.data(), got.data(), es, dims.data(), perm.data(), dims.size());
          ASSERT_EQ(got, want) << t->isa << " es=" << es << " trial " << trial;
        }
      }
      std::shuffle(perm.begin(), perm.end(), rng);
    }
  }
  // 2-D tiles directly, odd sizes and leading dimensions.
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
    for (size_t r = 1; r <= 20; r += 3)
      for (size_t c = 1; c <= 21; c += 4)
        for (size_t es : {1, 2, 4, 8}) {
          std::vector<unsigned char> src((r * (c + 3)) * es), a((c * (r + 2)) * es, 0), b(a.size(), 0);
          for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 1);
          k::scalar_table().transpose2d(es, src.data(), c + 3, a.data(), r + 2, r, c);
          simd->transpose2d(es, src.data(), c + 3, b.data(), r + 2, r, c);
          ASSERT_EQ(a, b) << r << "x" << c << " es=" << es;
        }
    // Neither side needs alignment (weights are read where a file put them): every element size,
    // source and destination at odd byte offsets, against the aligned scalar result.
    for (size_t es : {1, 2, 4, 8}) {
      const size_t r = 19, c = 37;
      std::vector<unsigned char> src(r * c * es + 8), want(r * c * es), got(r * c * es + 8);
      for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 13 + 5);
      k::scalar_table().transpose2d(es, src.data() + 8, c, want.data(), r, r, c);
      std::vector<unsigned char> aligned(src.begin() + 8, src.end());
      std::vector<unsigned char> check(want.size());
      k::transpose_reference(aligned.data(), check.data(), es, std::vector<int64_t>{int64_t(r), int64_t(c)}.data(),
                             std::vector<size_t>{1, 0}.data(), 2);
      ASSERT_EQ(want, check) << "es=" << es;
      for (const k::KernelTable* t : {&k::scalar_table(), simd}) {
        std::memmove(src.data() + 1, src.data() + 8, r * c * es);  // source at offset 1
        t->transpose2d(es, src.data() + 1, c, got.data() + 3, r, r, c);
        ASSERT_EQ(0, std::memcmp(got.data() + 3, want.data(), want.size())) << t->isa << " es=" << es;
        std::memmove(src.data() + 8, src.data() + 1, r * c * es);
      }
    }
    // Tall, wide and square float matrices span several of the row blocks the SIMD tiles are
    // visited in (the block height depends on the two strides), with ragged edges.
    for (auto rc : {std::pair<size_t, size_t>{300, 36}, {36, 300}, {150, 150}, {264, 130}, {131, 265}}) {
      const size_t r = rc.first, c = rc.second;
      std::vector<float> src(r * c), a(c * r, 0.f), b(a.size(), 0.f);
      for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i);
      k::scalar_table().transpose2d(4, src.data(), c, a.data(), r, r, c);
      simd->transpose2d(4, src.data(), c, b.data(), r, r, c);
      ASSERT_EQ(a, b) << r << "x" << c;
    }
  });
}

// ------------------------------------------------------------------ hash / compare

TEST(KernelsCompare, HashAgreesAcrossIsasAndSeparates) {
  std::vector<unsigned char> buf(4099);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<unsigned char>(i * 131 + 7);
  const k::KernelTable* simd = k::simd_table();
  for (size_t n = 0; n <= 300; ++n) {
    const uint64_t h = k::scalar_table().hash_bytes(buf.data() + 1, n);
    if (simd) ASSERT_EQ(simd->hash_bytes(buf.data() + 1, n), h) << n;
  }
  const uint64_t full = k::scalar_table().hash_bytes(buf.data(), buf.size());
  if (simd) EXPECT_EQ(simd->hash_bytes(buf.data(), buf.size()), full);
  // Swapping two 32-byte stripes or flipping one bit changes the hash; so does the length.
  auto sw = buf;
  std::swap_ranges(sw.begin(), sw.begin() + 32, sw.begin() + 64);
  EXPECT_NE(k::hash_bytes(sw.data(), sw.size()), full);
  auto fl = buf;
  fl[2000] ^= 1;
  EXPECT_NE(k::hash_bytes(fl.data(), fl.size()), full);
  std::vector<unsigned char> zeros(64, 0);
  EXPECT_NE(k::hash_bytes(zeros.data(), 63), k::hash_bytes(zeros.data(), 64));
  EXPECT_NE(k::hash_bytes(zeros.data(), 0), k::hash_bytes(zeros.data(), 1));
  EXPECT_TRUE(k::equal_bytes(buf.data(), buf.data(), buf.size()));
  EXPECT_FALSE(k::equal_bytes(buf.data(), fl.data(), buf.size()));
  EXPECT_TRUE(k::equal_bytes(nullptr, nullptr, 0));
}

TEST(KernelsCompare, BytesEqualFindsEveryDifference) {
  std::vector<const k::KernelTable*> tables = {&k::scalar_table()};
  for (const k::KernelTable* t : k::simd_tables()) tables.push_back(t);
  std::vector<unsigned char> a(203), b;
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<unsigned char>(i * 37 + 11);
  for (const k::KernelTable* t : tables) {
    for (size_t n : {size_t(0), size_t(1), size_t(15), size_t(16), size_t(63), size_t(64), size_t(65), size_t(130), size_t(202)}) {
      b.assign(a.begin() + 1, a.begin() + 1 + n);
      EXPECT_TRUE(t->equal_bytes(a.data() + 1, b.data(), n)) << t->isa << " n=" << n;  // odd alignment
      for (size_t i = 0; i < n; ++i) {
        b[i] ^= 0x80;
        ASSERT_FALSE(t->equal_bytes(a.data() + 1, b.data(), n)) << t->isa << " n=" << n << " diff at " << i;
        b[i] ^= 0x80;
      }
    }
  }
}

TEST(KernelsCompare, DiffStatsExactAcrossIsas) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  {
    const float a[6] = {1.f, nan, nan, inf, 0.5f, 2.f}, b[6] = {1.f, nan, 3.f, inf, 0.f, 2.1f};
    const k::DiffStats s = k::scalar_table().diff(a, b, 6, 1e-3, 1e-3);
    EXPECT_EQ(s.mismatches, 3u);
    EXPECT_EQ(s.max_abs, std::numeric_limits<double>::infinity());
    EXPECT_EQ(s.worst_index, 2u);
    EXPECT_EQ(s.max_rel, std::numeric_limits<double>::infinity());
  }
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
    for (size_t n = 0; n <= 70; ++n) {
      auto a = rnd(n, -2, 2, 1), b = rnd(n, -2, 2, 2);
      for (size_t i = 0; i < n; i += 3) b[i] = a[i] + 1e-4f * b[i];
      if (n > 10) { a[5] = nan; b[5] = nan; a[7] = inf; b[7] = inf; b[9] = 0.f; a[10] = -inf; }
      if (n > 41) { b[40] = a[40] + 3.f; b[41] = a[41] - 3.f; }  // tie on max_abs: first index wins
      const k::DiffStats s = k::scalar_table().diff(a.data(), b.data(), n, 1e-3, 1e-2);
      const k::DiffStats v = simd->diff(a.data(), b.data(), n, 1e-3, 1e-2);
      EXPECT_EQ(s.max_abs, v.max_abs) << n;
      EXPECT_EQ(s.max_rel, v.max_rel) << n;
      EXPECT_EQ(s.worst_index, v.worst_index) << n;
      EXPECT_EQ(s.mismatches, v.mismatches) << n;
    }
  });
}

// ------------------------------------------------------------------ conversions

TEST(KernelsConvert, Float16Exhaustive) {
  std::vector<uint16_t> h(65536);
  for (size_t i = 0; i < h.size(); ++i) h[i] = static_cast<uint16_t>(i);
  std::vector<float> f(h.size());
  k::scalar_table().f16_to_f32(h.data(), f.data(), h.size());
  EXPECT_EQ(f[0x3C00], 1.f);
  EXPECT_EQ(f[0x0001], std::ldexp(1.f, -24));
  EXPECT_EQ(f[0x7BFF], 65504.f);
  EXPECT_EQ(f[0xFC00], -std::numeric_limits<float>::infinity());
  // Every finite half round-trips exactly.
  std::vector<uint16_t> back(h.size());
  k::scalar_table().f32_to_f16(f.data(), back.data(), f.size());
  for (size_t i = 0; i < h.size(); ++i)
    if ((i & 0x7C00) != 0x7C00 || (i & 0x3FF) == 0) ASSERT_EQ(back[i], h[i]) << i;
  // Rounding: halfway cases go to even, 65520 overflows, tiny values flush to signed zero.
  EXPECT_EQ(k::f32_to_f16(1.f + std::ldexp(1.f, -11)), 0x3C00);
  EXPECT_EQ(k::f32_to_f16(1.f + 3 * std::ldexp(1.f, -11)), 0x3C02);
  EXPECT_EQ(k::f32_to_f16(65519.f), 0x7BFF);
  EXPECT_EQ(k::f32_to_f16(65520.f), 0x7C00);
  EXPECT_EQ(k::f32_to_f16(std::ldexp(1.f, -25)), 0x0000);
  EXPECT_EQ(k::f32_to_f16(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(k::f32_to_f16(-1e-30f), 0x8000);
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
    std::vector<float> f2(h.size());
    simd->f16_to_f32(h.data(), f2.data(), h.size());
    ASSERT_EQ(std::memcmp(f.data(), f2.data(), f.size() * 4), 0);
    std::mt19937 rng(3);
    std::vector<uint32_t> bits(1 << 20);
    for (auto& b : bits) b = rng();
    for (uint32_t s = 0; s < 4096; ++s) bits[s] = (s << 13) | 0x38000000u;  // around the subnormal edge
    for (uint32_t s = 0; s < 4096; ++s) bits[4096 + s] = 0x477FE000u + s;      // around the overflow edge
    std::vector<float> fx(bits.size());
    std::memcpy(fx.data(), bits.data(), bits.size() * 4);
    for (size_t n : {fx.size(), size_t(1), size_t(7), size_t(9), size_t(23)}) {
      std::vector<uint16_t> a(n), b(n);
      k::scalar_table().f32_to_f16(fx.data(), a.data(), n);
      simd->f32_to_f16(fx.data(), b.data(), n);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(a[i], b[i]) << std::hex << bits[i];
    }
  });
}

TEST(KernelsConvert, BFloat16) {
  EXPECT_EQ(k::f32_to_bf16(1.f), 0x3F80);
  EXPECT_EQ(k::bf16_to_f32(0x3F80), 1.f);
  uint32_t u = 0x3F808000u;  // exactly halfway, even below -> stays
  float f;
  std::memcpy(&f, &u, 4);
  EXPECT_EQ(k::f32_to_bf16(f), 0x3F80);
  u = 0x3F818000u;  // halfway, odd below -> rounds up
  std::memcpy(&f, &u, 4);
  EXPECT_EQ(k::f32_to_bf16(f), 0x3F82);
  EXPECT_TRUE(std::isnan(k::bf16_to_f32(k::f32_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  u = 0x7F800001u;  // a NaN whose payload would round away
  std::memcpy(&f, &u, 4);
  EXPECT_TRUE(std::isnan(k::bf16_to_f32(k::f32_to_bf16(f))));
  ofg::test::for_each_simd([&](const ofg::kernels::KernelTable* simd) {
    std::mt19937 rng(4);
    std::vector<uint32_t> bits(100003);
    for (auto& b : bits) b = rng();
    bits[0] = 0x7F800001u;
    bits[1] = 0xFF800000u;
    bits[2] = 0x7F7FFFFFu;
    std::vector<float> fx(bits.size());
    std::memcpy(fx.data(), bits.data(), bits.size() * 4);
    std::vector<uint16_t> a(fx.size()), b(fx.size());
    k::scalar_table().f32_to_bf16(fx.data(), a.data(), fx.size());
    simd->f32_to_bf16(fx.data(), b.data(), fx.size());
    ASSERT_EQ(a, b);
    std::vector<float> fa(a.size()), fb(a.size());
    k::scalar_table().bf16_to_f32(a.data(), fa.data(), a.size());
    simd->bf16_to_f32(a.data(), fb.data(), a.size());
    ASSERT_EQ(std::memcmp(fa.data(), fb.data(), fa.size() * 4), 0);
  });
}
