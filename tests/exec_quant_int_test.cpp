// ConvInteger, QLinearConv, MatMulInteger and QLinearMatMul against the interpreter's former
// implementation, kept here as the oracle: a direct N-d convolution and a triple-loop product in
// exact arithmetic, then the requantization formula of the ONNX reference (product in double,
// rounded to float, ties to even, saturated).
#include <gtest/gtest.h>

#include "kernels/kernels.h"
#include "kernels/parallel.h"

#include <cmath>
#include <random>

#include "exec/interp.h"
#include "ir/builder.h"
#include "support/exec_support.h"

using namespace ofg;
using namespace ofg::exec;

namespace {

struct IntTensor {
  int32_t dtype = kUint8;
  Shape shape;
  std::vector<int32_t> v;
  RTensor tensor() const {
    RTensor t = RTensor::alloc(dtype, shape);
    for (size_t i = 0; i < v.size(); ++i) t.data<uint8_t>()[i] = static_cast<uint8_t>(v[i]);
    return t;
  }
};

IntTensor random_int(int32_t dtype, Shape shape, std::mt19937& rng) {
  IntTensor t{dtype, shape, {}};
  const int64_t n = shape_numel(shape);
  for (int64_t i = 0; i < n; ++i) t.v.push_back(dtype == kInt8 ? static_cast<int>(rng() % 256) - 128 : static_cast<int>(rng() % 256));
  return t;
}

struct ConvCase {
  Shape x, w;
  int64_t group = 1;
  std::vector<int64_t> strides, dilations, pads;
  int32_t xt = kUint8, wt = kUint8;
  bool per_channel_wz = false;
  std::string auto_pad;
};

// The former int_conv: direct loops over every output, channel and tap (pads already resolved).
std::vector<int64_t> reference_conv(const ConvCase& cc, const IntTensor& x, int32_t xz, const IntTensor& w,
                                    const std::vector<int32_t>& wz, const std::vector<int64_t>& pads, Shape& os) {
  const int r = static_cast<int>(cc.x.size()) - 2;
  Shape in(cc.x.begin() + 2, cc.x.end()), k(cc.w.begin() + 2, cc.w.end()), out(r);
  for (int a = 0; a < r; ++a)
    out[a] = (in[a] + pads[a] + pads[a + r] - ((k[a] - 1) * cc.dilations[a] + 1)) / cc.strides[a] + 1;
  const int64_t N = cc.x[0], C = cc.x[1], OC = cc.w[0], Cg = C / cc.group, OCg = OC / cc.group;
  os = {N, OC};
  for (int64_t v : out) os.push_back(v);
  auto st = [](const Shape& s) {
    std::vector<int64_t> v(s.size(), 1);
    for (int i = static_cast<int>(s.size()) - 2; i >= 0; --i) v[i] = v[i + 1] * s[i + 1];
    return v;
  };
  const int64_t in_n = shape_numel(in), out_n = shape_numel(out), kn = shape_numel(k);
  auto ist = st(in), ost = st(out), kst = st(k);
  std::vector<int64_t> y(static_cast<size_t>(N * OC * out_n));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oc = 0; oc < OC; ++oc)
      for (int64_t o = 0; o < out_n; ++o) {
        int64_t acc = 0;
        for (int64_t ci = 0; ci < Cg; ++ci)
          for (int64_t q = 0; q < kn; ++q) {
            int64_t off = 0;
            bool ok = true;
            for (int a = 0; a < r && ok; ++a) {
              int64_t ia = ((o / ost[a]) % out[a]) * cc.strides[a] - pads[a] + ((q / kst[a]) % k[a]) * cc.dilations[a];
              ok = ia >= 0 && ia < in[a];
              off += ia * ist[a];
            }
            if (!ok) continue;
            acc += int64_t{x.v[static_cast<size_t>((n * C + oc / OCg * Cg + ci) * in_n + off)] - xz} *
                   (w.v[static_cast<size_t>((oc * Cg + ci) * kn + q)] - wz[static_cast<size_t>(oc)]);
          }
        y[static_cast<size_t>((n * OC + oc) * out_n + o)] = acc;
      }
  return y;
}

int64_t requant(int64_t acc, double mult, int32_t zp, int32_t dtype) {
  const double lo = dtype == kInt8 ? -128 : 0, hi = dtype == kInt8 ? 127 : 255;
  const double v = std::nearbyint(static_cast<float>(static_cast<double>(acc) * mult)) + zp;
  return static_cast<int64_t>(std::min(std::max(v, lo), hi));
}

Value* int_init(GraphBuilder& b, const std::string& name, const IntTensor& t) {
  std::vector<uint8_t> bytes(t.v.begin(), t.v.end());
  return b.initializer(name, t.dtype, t.shape, bytes.data(), bytes.size());
}

std::vector<int64_t> ints_of(const RTensor& t) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(static_cast<int64_t>(get_f64(t, i)));
  return v;
}

// Runs ConvInteger and QLinearConv (per-channel weight scale, bias, uint8 and int8 outputs) on a
// case and compares both with the reference.
void check_conv(const ConvCase& cc, unsigned seed) {
  std::mt19937 rng(seed);
  const IntTensor x = random_int(cc.xt, cc.x, rng), w = random_int(cc.wt, cc.w, rng);
  const int64_t OC = cc.w[0];
  const IntTensor xz = random_int(cc.xt, {}, rng);
  IntTensor wz = random_int(cc.wt, {cc.per_channel_wz ? OC : 1}, rng);
  std::vector<int32_t> wzv(static_cast<size_t>(OC));
  for (int64_t oc = 0; oc < OC; ++oc) wzv[static_cast<size_t>(oc)] = wz.v[cc.per_channel_wz ? static_cast<size_t>(oc) : 0];
  // Resolve auto_pad like the op (only SAME_UPPER is used here).
  std::vector<int64_t> pads = cc.pads;
  const size_t r = cc.x.size() - 2;
  if (cc.auto_pad == "SAME_UPPER") {
    pads.assign(2 * r, 0);
    for (size_t a = 0; a < r; ++a) {
      const int64_t out = (cc.x[a + 2] + cc.strides[a] - 1) / cc.strides[a];
      const int64_t total = std::max<int64_t>(0, (out - 1) * cc.strides[a] + (cc.w[a + 2] - 1) * cc.dilations[a] + 1 - cc.x[a + 2]);
      pads[a] = total / 2;
      pads[a + r] = total - pads[a];
    }
  }
  Shape os;
  const std::vector<int64_t> want = reference_conv(cc, x, xz.v[0], w, wzv, pads, os);

  std::vector<Attribute> attrs;
  auto model = new_model(13);
  GraphBuilder b(*model);
  Value* xi = b.input("x", cc.xt, std::vector<DimSpec>(cc.x.begin(), cc.x.end()));
  Value* wi = int_init(b, "w", w);
  Value* xzi = int_init(b, "xz", xz);
  Value* wzi = int_init(b, "wz", wz);
  auto conv_attrs = [&] {
    std::vector<Attribute> a = {b.i("group", cc.group), b.ints("strides", cc.strides), b.ints("dilations", cc.dilations)};
    if (cc.auto_pad.empty()) a.push_back(b.ints("pads", cc.pads));
    else a.push_back(b.s("auto_pad", cc.auto_pad));
    return a;
  };
  b.output(b.op("ConvInteger", {xi, wi, xzi, wzi}, conv_attrs()));
  // QLinearConv takes one weight zero point per tensor or per channel too; scales per channel.
  std::vector<float> ws(static_cast<size_t>(OC));
  std::vector<int32_t> bias(static_cast<size_t>(OC));
  for (int64_t oc = 0; oc < OC; ++oc) {
    ws[static_cast<size_t>(oc)] = 0.001f * static_cast<float>(1 + rng() % 50);
    bias[static_cast<size_t>(oc)] = static_cast<int32_t>(rng() % 20001) - 10000;
  }
  const float xs = 0.02f, ys = 0.37f;
  Value* xsi = b.constant("xs", {}, {xs});
  Value* wsi = b.constant("ws", {OC}, ws);
  Value* ysi = b.constant("ys", {}, {ys});
  Value* bi = b.initializer("bias", kInt32, {OC}, bias.data(), bias.size() * sizeof(int32_t));
  const uint8_t yz_u8 = 121;
  const int8_t yz_s8 = -7;
  Value* yzu = b.initializer("yzu", kUint8, {}, &yz_u8, 1);
  Value* yzs = b.initializer("yzs", kInt8, {}, &yz_s8, 1);
  b.output(b.op("QLinearConv", {xi, xsi, xzi, wi, wsi, wzi, ysi, yzu, bi}, conv_attrs()));
  b.output(b.op("QLinearConv", {xi, xsi, xzi, wi, wsi, wzi, ysi, yzs}, conv_attrs()));
  Interpreter in(*model);
  auto out = in.run({{"x", RValue::tensor(x.tensor())}});
  ASSERT_EQ(out[0].t.shape, os);
  EXPECT_EQ(ints_of(out[0].t), want);
  const int64_t sp = shape_numel(os) / (os[0] * OC);
  std::vector<int64_t> want_u, want_s;
  for (size_t i = 0; i < want.size(); ++i) {
    const size_t oc = i / static_cast<size_t>(sp) % static_cast<size_t>(OC);
    const double mult = static_cast<float>(static_cast<double>(xs) * ws[oc] / ys);
    want_u.push_back(requant(want[i] + bias[oc], mult, yz_u8, kUint8));
    want_s.push_back(requant(want[i], mult, yz_s8, kInt8));
  }
  EXPECT_EQ(ints_of(out[1].t), want_u);
  EXPECT_EQ(ints_of(out[2].t), want_s);
}

TEST(ExecQuantInt, ConvMatchesDirectReference) {
  std::vector<ConvCase> cases = {
      {{1, 5, 9, 11}, {7, 5, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, kUint8, kUint8, true, ""},
      {{2, 3, 10, 9}, {4, 3, 3, 2}, 1, {2, 2}, {2, 1}, {0, 1, 2, 0}, kInt8, kInt8, false, ""},
      {{1, 6, 8, 37}, {6, 1, 3, 3}, 6, {1, 1}, {1, 1}, {1, 1, 1, 1}, kUint8, kInt8, true, ""},   // depthwise
      {{1, 6, 9, 40}, {6, 1, 3, 3}, 6, {2, 2}, {1, 2}, {1, 0, 1, 2}, kInt8, kUint8, false, ""},  // depthwise
      {{1, 5, 12, 48}, {5, 1, 3, 3}, 5, {2, 2}, {1, 1}, {1, 1, 1, 1}, kUint8, kInt8, true, ""},  // depthwise, OW 24
      {{1, 3, 11, 30}, {3, 1, 3, 3}, 3, {1, 1}, {2, 2}, {2, 2, 2, 2}, kInt8, kInt8, false, ""},  // depthwise dilated
      {{1, 3, 10, 33}, {3, 1, 3, 3}, 3, {3, 3}, {1, 1}, {1, 1, 1, 1}, kUint8, kUint8, true, ""},  // depthwise stride 3
      {{1, 4, 5, 5}, {4, 1, 3, 3}, 4, {1, 1}, {1, 1}, {20, 20, 20, 20}, kUint8, kUint8, false, ""},  // big pads
      {{1, 4, 7, 6}, {6, 2, 3, 3}, 2, {1, 2}, {1, 1}, {1, 1, 1, 1}, kUint8, kUint8, true, ""},  // grouped
      {{1, 8, 7, 13}, {5, 8, 1, 1}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, kUint8, kInt8, true, ""},  // pointwise
      {{1, 3, 6, 7}, {4, 3, 3, 3}, 1, {2, 1}, {1, 1}, {}, kUint8, kUint8, false, "SAME_UPPER"},
      {{1, 3, 7, 9}, {4, 3, 3, 3}, 1, {1, 1}, {2, 2}, {2, 2, 2, 2}, kUint8, kInt8, false, ""},   // dilated "same"
      {{1, 3, 7, 9}, {4, 3, 3, 3}, 1, {1, 1}, {2, 2}, {1, 0, 1, 4}, kInt8, kUint8, true, ""},    // shifts >= 0 only
      {{1, 2, 4, 1}, {3, 2, 1, 3}, 1, {1, 1}, {1, 1}, {0, 1, 0, 1}, kUint8, kUint8, false, ""},  // |shift| >= width
      {{2, 3, 17}, {4, 3, 3}, 1, {2}, {1}, {1, 1}, kInt8, kUint8, true, ""},                       // 1-D
      {{1, 2, 4, 5, 6}, {3, 2, 2, 2, 2}, 1, {1, 1, 1}, {1, 1, 1}, {1, 0, 1, 1, 1, 0}, kUint8, kInt8, false, ""},  // 3-D
      // Over more than one im2col block (of at most 4 MiB: K x 1820 columns at K = 2304).
      {{1, 256, 40, 50}, {5, 256, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, kUint8, kUint8, false, ""},
      {{1, 512, 64, 63}, {5, 512, 3, 3}, 1, {2, 2}, {1, 1}, {1, 1, 1, 1}, kInt8, kInt8, true, ""},  // strided
      // Stride 2 over an even width (the input split into phases): even and odd heights, dilated,
      // unpadded 2x2, grouped, and over two im2col blocks.
      {{1, 3, 10, 12}, {4, 3, 3, 3}, 1, {2, 2}, {1, 1}, {1, 1, 1, 1}, kUint8, kInt8, true, ""},
      {{1, 4, 9, 16}, {5, 4, 3, 3}, 1, {2, 2}, {1, 1}, {1, 1, 1, 1}, kInt8, kUint8, false, ""},
      {{1, 2, 11, 20}, {3, 2, 3, 3}, 1, {2, 2}, {2, 2}, {2, 2, 2, 2}, kUint8, kUint8, true, ""},
      {{1, 3, 8, 10}, {4, 3, 2, 2}, 1, {2, 2}, {1, 1}, {0, 0, 0, 0}, kInt8, kInt8, false, ""},
      {{2, 4, 8, 8}, {6, 2, 3, 3}, 2, {2, 2}, {1, 1}, {1, 1, 1, 1}, kUint8, kInt8, true, ""},
      {{1, 128, 64, 64}, {5, 128, 3, 3}, 1, {2, 2}, {1, 1}, {1, 1, 1, 1}, kUint8, kUint8, false, ""},
  };
  unsigned seed = 1;
  for (const ConvCase& cc : cases) {
    SCOPED_TRACE("case " + std::to_string(seed) + " x " + shape_str(cc.x) + " w " + shape_str(cc.w));
    check_conv(cc, seed++);
  }
  // Again on two threads with the splitting floors lowered, so that the depthwise channels, the
  // im2col column ranges and the pointwise product are all split between threads.
  ofg::kernels::ThreadsScope two(2);
  ofg::kernels::ParallelFloorsScope low(8, 1);
  seed = 1;
  for (const ConvCase& cc : cases) {
    SCOPED_TRACE("two threads, case " + std::to_string(seed) + " x " + shape_str(cc.x) + " w " + shape_str(cc.w));
    check_conv(cc, seed++);
  }
}

// The former int_matmul: a triple loop in exact arithmetic, batch dims broadcast.
TEST(ExecQuantInt, MatMulMatchesTripleLoop) {
  std::mt19937 rng(5);
  const int64_t M = 5, K = 37, N = 9;
  const IntTensor a = random_int(kUint8, {2, 1, M, K}, rng), bm = random_int(kInt8, {3, K, N}, rng);
  const IntTensor za = random_int(kUint8, {M}, rng), zb = random_int(kInt8, {N}, rng);
  auto model = new_model(13);
  GraphBuilder b(*model);
  Value* ai = b.input("a", kUint8, {2, 1, M, K});
  b.output(b.op("MatMulInteger", {ai, int_init(b, "b", bm), int_init(b, "za", za), int_init(b, "zb", zb)}));
  Interpreter in(*model);
  auto out = in.run({{"a", RValue::tensor(a.tensor())}});
  ASSERT_EQ(out[0].t.shape, (Shape{2, 3, M, N}));
  std::vector<int64_t> want;
  for (int64_t p = 0; p < 2; ++p)
    for (int64_t q = 0; q < 3; ++q)
      for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
          int64_t s = 0;
          for (int64_t k = 0; k < K; ++k)
            s += int64_t{a.v[static_cast<size_t>((p * M + m) * K + k)] - za.v[static_cast<size_t>(m)]} *
                 (bm.v[static_cast<size_t>((q * K + k) * N + n)] - zb.v[static_cast<size_t>(n)]);
          want.push_back(s);
        }
  EXPECT_EQ(ints_of(out[0].t), want);
}

// A 2-D weight B with a cache: packed once (where the table has a packed form) and kept, then
// every run, on one thread and split over two, gives the triple loop's values; both signednesses
// of B and zero points per column.
TEST(ExecQuantInt, MatMulWithConstantWeightsPackedOnceMatchesTripleLoop) {
  std::mt19937 rng(11);
  const int64_t M = 13, K = 70, N = 40;
  for (int32_t bt : {kInt8, kUint8}) {
    const int32_t at = bt == kInt8 ? kUint8 : kInt8;
    const IntTensor a = random_int(at, {2, M, K}, rng), bm = random_int(bt, {K, N}, rng);
    const IntTensor za = random_int(at, {}, rng), zb = random_int(bt, {N}, rng);
    auto model = new_model(13);
    GraphBuilder b(*model);
    Value* ai = b.input("a", at, {2, M, K});
    b.output(b.op("MatMulInteger", {ai, int_init(b, "b", bm), int_init(b, "za", za), int_init(b, "zb", zb)}));
    ExecCache cache;
    Interpreter in(*model, &cache);
    std::vector<int64_t> want;
    for (int64_t p = 0; p < 2; ++p)
      for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
          int64_t s = 0;
          for (int64_t k = 0; k < K; ++k)
            s += int64_t{a.v[static_cast<size_t>((p * M + m) * K + k)] - za.v[0]} *
                 (bm.v[static_cast<size_t>(k * N + n)] - zb.v[static_cast<size_t>(n)]);
          want.push_back(s);
        }
    EXPECT_EQ(ints_of(in.run({{"a", RValue::tensor(a.tensor())}})[0].t), want) << "first run, bt " << bt;
    const bool packs = kernels::active_table().igemm_packed_b_size(K, N) != 0;
    EXPECT_EQ(cache.size(), packs ? 1u : 0u) << "the packed weight is the cache's only entry";
    EXPECT_EQ(ints_of(in.run({{"a", RValue::tensor(a.tensor())}})[0].t), want) << "from the cache, bt " << bt;
    {
      ofg::kernels::ThreadsScope two(2);
      ofg::kernels::ParallelFloorsScope low(8, 1);
      EXPECT_EQ(ints_of(in.run({{"a", RValue::tensor(a.tensor())}})[0].t), want) << "two threads, bt " << bt;
    }
    EXPECT_EQ(cache.size(), packs ? 1u : 0u);
  }
}

TEST(ExecQuantInt, QLinearMatMulRequantizesLikeTheReference) {
  std::mt19937 rng(9);
  const int64_t M = 4, K = 33, N = 17;
  for (int32_t odt : {kUint8, kInt8}) {
    const IntTensor a = random_int(kInt8, {M, K}, rng), bm = random_int(kUint8, {K, N}, rng);
    const IntTensor za = random_int(kInt8, {}, rng), zb = random_int(kUint8, {}, rng), yz = random_int(odt, {}, rng);
    const float as = 0.05f, bs = 0.013f, ys = 0.11f;
    auto model = new_model(13);
    GraphBuilder b(*model);
    Value* ai = b.input("a", kInt8, {M, K});
    b.output(b.op("QLinearMatMul", {ai, b.constant("as", {}, {as}), int_init(b, "za", za), int_init(b, "b", bm),
                                    b.constant("bs", {}, {bs}), int_init(b, "zb", zb), b.constant("ys", {}, {ys}),
                                    int_init(b, "yz", yz)}));
    Interpreter in(*model);
    auto out = in.run({{"a", RValue::tensor(a.tensor())}});
    // Two threads with floors low enough that the product and the requantization are split.
    std::vector<RValue> out2;
    {
      ofg::kernels::ThreadsScope two(2);
      ofg::kernels::ParallelFloorsScope low(8, 1);
      out2 = in.run({{"a", RValue::tensor(a.tensor())}});
    }
    const double mult = static_cast<float>(static_cast<double>(as) * bs / ys);
    std::vector<int64_t> want;
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        int64_t s = 0;
        for (int64_t k = 0; k < K; ++k)
          s += int64_t{a.v[static_cast<size_t>(m * K + k)] - za.v[0]} * (bm.v[static_cast<size_t>(k * N + n)] - zb.v[0]);
        want.push_back(requant(s, mult, yz.v[0], odt));
      }
    EXPECT_EQ(out[0].t.dtype, odt);
    EXPECT_EQ(ints_of(out[0].t), want);
    EXPECT_EQ(ints_of(out2[0].t), want);
  }
}

TEST(ExecQuantInt, ZeroPointOfAnotherTypeIsRejected) {
  auto model = new_model(13);
  GraphBuilder b(*model);
  Value* ai = b.input("a", kUint8, {2, 3});
  const int8_t w[6] = {1, 2, 3, 4, 5, 6};
  const int8_t z = 1;
  Value* bi = b.initializer("b", kInt8, {3, 2}, w, 6);
  b.output(b.op("MatMulInteger", {ai, bi, b.initializer("za", kInt8, {}, &z, 1)}));
  Interpreter in(*model);
  RTensor a = RTensor::alloc(kUint8, {2, 3});
  EXPECT_ANY_THROW(in.run({{"a", RValue::tensor(a)}}));
}

}  // namespace
