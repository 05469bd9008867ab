// The per-type broadcast loops of elementwise.cpp (Mod, comparisons, logic, bitwise ops, Where,
// the generic path of the arithmetic ops) and reduce.cpp's general walk, against references
// written out here: these share one broadcast walk per op family and one Reduce body (the element
// type and op kind chosen at run time), and must give the same values for every element type and
// for inputs that repeat along the innermost dim (a run step of 0) as well as along outer dims.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "exec/interp.h"
#include "ir/builder.h"
#include "support/exec_support.h"
#include "support/model_test.h"

using namespace ofg;
using namespace ofg::exec;
using ofg::test::tensor_value;

namespace {

using ExecBroadcastTypes = ofg::test::ModelTest;

std::vector<double> values(const RValue& v) {
  std::vector<double> out;
  for (int64_t i = 0; i < v.t.numel(); ++i) out.push_back(get_f64(v.t, i));
  return out;
}

// a is [2, 3, 4]; d is [3, 1]: d repeats along the innermost dim (step 0) and the outer one.
constexpr int64_t kA = 24;
int64_t d_index(int64_t i) { return (i / 4) % 3; }

}  // namespace

TEST_F(ExecBroadcastTypes, ModCompareBitwiseLogicPerType) {
  auto m = new_model(18);
  GraphBuilder b(*m);
  Value* a8 = b.input("a8", kInt8, {2, 3, 4});
  Value* d8 = b.input("d8", kInt8, {3, 1});
  Value* au = b.input("au", kUint16, {2, 3, 4});
  Value* du = b.input("du", kUint16, {3, 1});
  Value* ab = b.input("ab", kBool, {2, 3, 4});
  Value* db = b.input("db", kBool, {3, 1});
  Value* ad = b.input("ad", kDouble, {2, 3, 4});
  Value* dd = b.input("dd", kDouble, {3, 1});
  b.output(b.op("Mod", {a8, d8}));
  b.output(b.op("Less", {a8, d8}));
  b.output(b.op("BitShift", {au, du}, {b.s("direction", "RIGHT")}));
  b.output(b.op("BitwiseXor", {a8, d8}));
  b.output(b.op("Xor", {ab, db}));
  b.output(b.op("Mod", {ad, dd}, {b.i("fmod", 1)}));
  b.output(b.op("Sub", {a8, d8}));  // int8: the generic path of the arithmetic ops
  b.output(b.op("Max", {ad, dd}));
  Interpreter in(*m);
  std::vector<int8_t> va(kA), vd = {3, -5, -1};
  std::vector<uint16_t> vua(kA), vud = {0, 3, 17};
  std::vector<bool> vba(kA), vbd = {true, false, true};
  std::vector<double> vda(kA), vdd = {2.5, -1.5, 0.75};
  for (int64_t i = 0; i < kA; ++i) {
    va[i] = static_cast<int8_t>(i * 11 - 128);
    vua[i] = static_cast<uint16_t>(i * 2731);
    vba[i] = i % 3 == 0;
    vda[i] = (i - 11) * 0.9;
  }
  std::vector<uint8_t> vba8(vba.begin(), vba.end()), vbd8(vbd.begin(), vbd.end());
  auto out = in.run({{"a8", tensor_value(kInt8, {2, 3, 4}, va)}, {"d8", tensor_value(kInt8, {3, 1}, vd)},
                     {"au", tensor_value(kUint16, {2, 3, 4}, vua)}, {"du", tensor_value(kUint16, {3, 1}, vud)},
                     {"ab", tensor_value(kBool, {2, 3, 4}, vba8)}, {"db", tensor_value(kBool, {3, 1}, vbd8)},
                     {"ad", tensor_value(kDouble, {2, 3, 4}, vda)}, {"dd", tensor_value(kDouble, {3, 1}, vdd)}});
  ASSERT_EQ(out.size(), 8u);
  for (const auto& o : out) EXPECT_EQ(o.t.shape, (Shape{2, 3, 4}));
  EXPECT_EQ(out[1].t.dtype, kBool);
  EXPECT_EQ(out[2].t.dtype, kUint16);
  std::vector<double> mod, less, shift, bxor, lxor, fmod_d, sub, mx;
  for (int64_t i = 0; i < kA; ++i) {
    const int x = va[i], d = vd[d_index(i)];
    int r = d == -1 ? 0 : x % d;  // x % -1 is 0 (computing it overflows for -128)
    if (r != 0 && ((r < 0) != (d < 0))) r += d;
    mod.push_back(r);
    less.push_back(x < d ? 1 : 0);
    const unsigned s = vud[d_index(i)];
    shift.push_back(s >= 16 ? 0 : static_cast<uint16_t>(vua[i] >> s));
    bxor.push_back(static_cast<int8_t>(x ^ d));
    lxor.push_back(vba[i] != vbd[d_index(i)] ? 1 : 0);
    fmod_d.push_back(std::fmod(vda[i], vdd[d_index(i)]));
    sub.push_back(static_cast<int8_t>(static_cast<uint8_t>(x - d)));
    mx.push_back(std::max(vda[i], vdd[d_index(i)]));
  }
  EXPECT_EQ(values(out[0]), mod);
  EXPECT_EQ(values(out[1]), less);
  EXPECT_EQ(values(out[2]), shift);
  EXPECT_EQ(values(out[3]), bxor);
  EXPECT_EQ(values(out[4]), lxor);
  EXPECT_EQ(values(out[5]), fmod_d);
  EXPECT_EQ(values(out[6]), sub);
  EXPECT_EQ(values(out[7]), mx);
}

TEST_F(ExecBroadcastTypes, WhereEveryElementSize) {
  auto m = new_model(18);
  GraphBuilder b(*m);
  Value* c = b.input("c", kBool, {3, 1});
  Value* x1 = b.input("x1", kUint8, {2, 3, 4});
  Value* y1 = b.input("y1", kUint8, {4});
  Value* x2 = b.input("x2", kInt16, {2, 3, 4});
  Value* y2 = b.input("y2", kInt16, {4});
  Value* x8 = b.input("x8", kInt64, {2, 3, 4});
  Value* y8 = b.input("y8", kInt64, {4});
  b.output(b.op("Where", {c, x1, y1}));
  b.output(b.op("Where", {c, x2, y2}));
  b.output(b.op("Where", {c, x8, y8}));
  Interpreter in(*m);
  std::vector<uint8_t> vc = {1, 0, 1};
  std::vector<uint8_t> v1(kA), w1 = {200, 201, 202, 203};
  std::vector<int16_t> v2(kA), w2 = {-7, -8, -9, -10};
  std::vector<int64_t> v8(kA), w8 = {int64_t{1} << 40, -3, 5, -(int64_t{1} << 50)};
  for (int64_t i = 0; i < kA; ++i) {
    v1[i] = static_cast<uint8_t>(i);
    v2[i] = static_cast<int16_t>(1000 * i - 9000);
    v8[i] = (int64_t{1} << 45) + i;
  }
  auto out = in.run({{"c", tensor_value(kBool, {3, 1}, vc)}, {"x1", tensor_value(kUint8, {2, 3, 4}, v1)},
                     {"y1", tensor_value(kUint8, {4}, w1)}, {"x2", tensor_value(kInt16, {2, 3, 4}, v2)},
                     {"y2", tensor_value(kInt16, {4}, w2)}, {"x8", tensor_value(kInt64, {2, 3, 4}, v8)},
                     {"y8", tensor_value(kInt64, {4}, w8)}});
  ASSERT_EQ(out.size(), 3u);
  for (int64_t i = 0; i < kA; ++i) {
    const bool take_x = vc[d_index(i)] != 0;
    EXPECT_EQ(out[0].t.data<uint8_t>()[i], take_x ? v1[i] : w1[i % 4]) << i;
    EXPECT_EQ(out[1].t.data<int16_t>()[i], take_x ? v2[i] : w2[i % 4]) << i;
    EXPECT_EQ(out[2].t.data<int64_t>()[i], take_x ? v8[i] : w8[i % 4]) << i;
  }
}

// Reduce kinds through the general walk (integer inputs, and LogSumExp, which the float fast
// paths do not take), over the middle axis of [2, 3, 4].
TEST_F(ExecBroadcastTypes, ReduceKindsGeneralWalk) {
  auto m = new_model(18);
  GraphBuilder b(*m);
  Value* xi = b.input("xi", kInt32, {2, 3, 4});
  Value* xf = b.input("xf", kFloat, {2, 3, 4});
  Value* axes = b.constant_i64("axes", {1}, {1});
  b.output(b.op("ReduceMax", {xi, axes}, {b.i("keepdims", 0)}));
  b.output(b.op("ReduceProd", {xi, axes}, {b.i("keepdims", 0)}));
  b.output(b.op("ReduceL1", {xi, axes}, {b.i("keepdims", 0)}));
  b.output(b.op("ReduceLogSumExp", {xf, axes}, {b.i("keepdims", 0)}));
  b.output(b.op("ReduceMean", {xi, axes}, {b.i("keepdims", 0)}));
  Interpreter in(*m);
  std::vector<int32_t> vi(kA);
  std::vector<float> vf(kA);
  for (int64_t i = 0; i < kA; ++i) {
    vi[i] = static_cast<int32_t>((i * 7) % 11) - 5;
    vf[i] = static_cast<float>(i) * 0.25f - 2.f;
  }
  auto out = in.run({{"xi", tensor_value(kInt32, {2, 3, 4}, vi)}, {"xf", tensor_value(kFloat, {2, 3, 4}, vf)}});
  ASSERT_EQ(out.size(), 5u);
  std::vector<double> mx, prod, l1, lse, mean;
  for (int64_t o = 0; o < 2; ++o)
    for (int64_t k = 0; k < 4; ++k) {
      double m_ = -INFINITY, p = 1, s1 = 0, sum = 0, fm = -INFINITY;
      for (int64_t j = 0; j < 3; ++j) {
        const double v = vi[(o * 3 + j) * 4 + k];
        m_ = std::max(m_, v), p *= v, s1 += std::fabs(v), sum += v;
        fm = std::max(fm, static_cast<double>(vf[(o * 3 + j) * 4 + k]));
      }
      double e = 0;
      for (int64_t j = 0; j < 3; ++j) e += std::exp(static_cast<double>(vf[(o * 3 + j) * 4 + k]) - fm);
      mx.push_back(m_), prod.push_back(p), l1.push_back(s1);
      lse.push_back(static_cast<float>(std::log(e) + fm));
      mean.push_back(static_cast<int32_t>(sum / 3));
    }
  EXPECT_EQ(values(out[0]), mx);
  EXPECT_EQ(values(out[1]), prod);
  EXPECT_EQ(values(out[2]), l1);
  EXPECT_EQ(values(out[3]), lse);
  EXPECT_EQ(values(out[4]), mean);
}
