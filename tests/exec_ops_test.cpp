// Interpreter tests on toy graphs: values per op family, opset differences, buffer release,
// control flow, the unsupported-op error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "exec/interp.h"
#include "ir/builder.h"
#include "ir/error.h"
#include "support/exec_support.h"
#include "kernels/kernels.h"
#include "support/model_test.h"

using namespace ofg;
using namespace ofg::exec;

namespace {

using ofg::test::tensor_f;

using ExecControl = ofg::test::ModelTest;
using ExecErrors = ofg::test::ModelTest;
using ExecOps = ofg::test::ModelTest;
using ExecPlan = ofg::test::ModelTest;

std::vector<float> values(const RValue& v) {
  const RTensor& t = v.t;
  std::vector<float> out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(static_cast<float>(get_f64(t, i)));
  return out;
}

}  // namespace

TEST_F(ExecOps, BroadcastArithmeticAndUnary) {
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2, 3});
  Value* y = b.input("y", kFloat, {3});
  Value* s = b.op("Add", {x, y});
  Value* r = b.op("Relu", {b.op("Sub", {s, b.constant("c", {}, {4.f})})});
  b.output(r);
  Interpreter in(*m);
  auto out = in.run({{"x", tensor_f({2, 3}, {1, 2, 3, 4, 5, 6})}, {"y", tensor_f({3}, {0, 1, 2})}});
  EXPECT_EQ(out[0].t.shape, (Shape{2, 3}));
  EXPECT_EQ(values(out[0]), (std::vector<float>{0, 0, 1, 0, 2, 4}));
}

// The registry's index: entries of one op in registration order with their opset ranges, the
// default domain under both of its names, other domains apart, rules and traits per op.
TEST(ExecRegistry, FindsEntriesByDomainOpAndOpset) {
  const Registry& r = Registry::instance();
  const OpEntry* clip9 = r.find("", "Clip", 9);
  const OpEntry* clip13 = r.find("ai.onnx", "Clip", 13);
  ASSERT_NE(clip9, nullptr);
  ASSERT_NE(clip13, nullptr);
  EXPECT_EQ(clip9->until, 10);
  EXPECT_EQ(clip13->since, 11);
  EXPECT_EQ(r.find("", "Scatter", 11), nullptr);  // Scatter is registered for opsets 9 and 10 only
  EXPECT_NE(r.find("", "Scatter", 10), nullptr);
  EXPECT_EQ(r.find("com.example", "Relu", 13), nullptr);
  EXPECT_NE(r.find("ai.onnxforge", "FusedConv", 1), nullptr);
  EXPECT_EQ(r.find("", "FusedConv", 13), nullptr);
  EXPECT_EQ(r.find("", "NoSuchOp", 13), nullptr);
  EXPECT_NE(r.rule("", "Reshape"), nullptr);
  EXPECT_EQ(r.rule("", "Tan"), nullptr);
  EXPECT_TRUE(r.traits("", "RandomNormal") & kRandom);
  EXPECT_TRUE(r.traits("", "Expand") & kMayGrow);
  EXPECT_EQ(r.traits("", "Relu"), 0u);
}

// The broadcast kernels hold 8 dims: a higher rank takes the generic loop (float and int64),
// with the same numpy broadcasting.
TEST_F(ExecOps, BinaryOpsAboveKernelRank) {
  std::vector<DimSpec> dims(9, 1);
  dims.back() = 2;
  Value* x = b.input("x", kFloat, dims);
  Value* y = b.op("Add", {x, b.initializer("c", {2}, {10, 20})});
  Value* n = b.op("Mul", {b.op("Cast", {x}, {b.i("to", kInt64)}), b.initializer_i64("k", {2, 1}, {3, -1})});
  b.output(y);
  b.output(n);
  Interpreter in(*m);
  auto out = in.run({{"x", tensor_f({1, 1, 1, 1, 1, 1, 1, 1, 2}, {1, 2})}});
  EXPECT_EQ(out[0].t.shape, (Shape{1, 1, 1, 1, 1, 1, 1, 1, 2}));
  EXPECT_EQ(values(out[0]), (std::vector<float>{11, 22}));
  EXPECT_EQ(out[1].t.shape, (Shape{1, 1, 1, 1, 1, 1, 1, 2, 2}));
  const int64_t* p = out[1].t.data<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(p, p + 4), (std::vector<int64_t>{3, 6, -1, -2}));
}

TEST_F(ExecOps, MatMulGemmAndSoftmax) {
  Value* a = b.input("a", kFloat, {2, 3});
  Value* w = b.initializer("w", {3, 2}, {1, 0, 0, 1, 1, 1});
  Value* mm = b.op("MatMul", {a, w});
  Value* g = b.op("Gemm", {a, w, b.initializer("bias", {2}, {10, 20})}, {b.f("alpha", 2.f)});
  Value* sm = b.op("Softmax", {mm}, {b.i("axis", -1)});
  b.output(mm);
  b.output(g);
  b.output(sm);
  Interpreter in(*m);
  auto out = in.run({{"a", tensor_f({2, 3}, {1, 2, 3, 4, 5, 6})}});
  EXPECT_EQ(values(out[0]), (std::vector<float>{4, 5, 10, 11}));
  EXPECT_EQ(values(out[1]), (std::vector<float>{18, 30, 30, 42}));
  auto sv = values(out[2]);
  EXPECT_NEAR(sv[0], 1.f / (1.f + std::exp(1.f)), 1e-6);
  EXPECT_NEAR(sv[0] + sv[1], 1.f, 1e-6);
}

TEST_F(ExecOps, ClipAttributesBeforeOpset11InputsAfter) {
  for (int opset : {6, 13}) {
    auto m = new_model(opset);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, {4});
    Value* y = opset < 11 ? b.op("Clip", {x}, {b.f("min", -1.f), b.f("max", 1.f)})
                          : b.op("Clip", {x, b.constant("lo", {}, {-1.f}), b.constant("hi", {}, {1.f})});
    b.output(y);
    Interpreter in(*m);
    auto out = in.run({{"x", tensor_f({4}, {-3, -0.5f, 0.5f, 3})}});
    EXPECT_EQ(values(out[0]), (std::vector<float>{-1, -0.5f, 0.5f, 1})) << "opset " << opset;
  }
}

TEST_F(ExecOps, ShapeChainReshapeGatherConcat) {
  Value* x = b.input("x", kFloat, {"batch", 2, 3});
  Value* shp = b.op("Shape", {x});
  Value* d0 = b.op("Gather", {shp, b.constant_i64("i0", {1}, {0})});
  Value* cat = b.op("Concat", {d0, b.constant_i64("m1", {1}, {-1})}, {b.i("axis", 0)});
  Value* r = b.op("Reshape", {x, cat});
  Value* t = b.op("Transpose", {r}, {b.ints("perm", {1, 0})});
  Value* sl = b.op("Slice", {t, b.constant_i64("st", {1}, {1}), b.constant_i64("en", {1}, {100}), b.constant_i64("ax", {1}, {0})});
  b.output(sl);
  Interpreter in(*m);
  auto out = in.run({{"x", tensor_f({1, 2, 3}, {1, 2, 3, 4, 5, 6})}});
  EXPECT_EQ(out[0].t.shape, (Shape{5, 1}));
  EXPECT_EQ(values(out[0]), (std::vector<float>{2, 3, 4, 5, 6}));
}

TEST_F(ExecOps, ReduceMeanAxesAttributeAndInput) {
  for (int opset : {13, 18}) {
    auto m = new_model(opset);
    GraphBuilder b(*m);
    Value* x = b.input("x", kFloat, {2, 2});
    Value* y = opset < 18 ? b.op("ReduceMean", {x}, {b.ints("axes", {1}), b.i("keepdims", 0)})
                          : b.op("ReduceMean", {x, b.constant_i64("axes", {1}, {1})}, {b.i("keepdims", 0)});
    b.output(y);
    Interpreter in(*m);
    auto out = in.run({{"x", tensor_f({2, 2}, {1, 3, 5, 7})}});
    EXPECT_EQ(values(out[0]), (std::vector<float>{2, 6})) << "opset " << opset;
  }
}

TEST_F(ExecOps, ConvAndPoolThroughKernels) {
  Value* x = b.input("x", kFloat, {1, 1, 3, 3});
  Value* w = b.initializer("w", {1, 1, 2, 2}, {1, 1, 1, 1});
  Value* c = b.op("Conv", {x, w});
  Value* p = b.op("MaxPool", {x}, {b.ints("kernel_shape", {2, 2}), b.ints("strides", {2, 2}), b.i("ceil_mode", 1)});
  b.output(c);
  b.output(p);
  Interpreter in(*m);
  auto out = in.run({{"x", tensor_f({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})}});
  EXPECT_EQ(values(out[0]), (std::vector<float>{12, 16, 24, 28}));
  EXPECT_EQ(out[1].t.shape, (Shape{1, 1, 2, 2}));
  EXPECT_EQ(values(out[1]), (std::vector<float>{5, 6, 8, 9}));
}

// One weight initializer used by a stride-1 and a stride-2 3x3 conv: on the SIMD tables the two
// have different packed forms (Winograd and GEMM panels), so the interpreter's cache of packed
// weights must keep them apart. Checked against the scalar reference, twice (the second run
// reuses the cached packs).
TEST_F(ExecOps, SharedConvWeightsWithDifferentStrides) {
  const int64_t C = 64, H = 6;  // enough input channels for Winograd on every table
  Value* x = b.input("x", kFloat, {1, C, H, H});
  std::vector<float> wv(C * C * 9), xv(C * H * H);
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<float>((i * 37) % 17) / 17.f - 0.5f;
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>((i * 11) % 13) / 13.f - 0.5f;
  Value* w = b.initializer("w", {C, C, 3, 3}, wv);
  Value* c1 = b.op("Conv", {x, w}, {b.ints("pads", {1, 1, 1, 1})});
  Value* c2 = b.op("Conv", {x, w}, {b.ints("pads", {1, 1, 1, 1}), b.ints("strides", {2, 2})});
  b.output(c1);
  b.output(c2);
  ExecCache cache;
  Interpreter in(*m, &cache);
  for (size_t stride : {1, 2}) {
    kernels::Conv2DParams p;
    p.C_in = p.C_out = C; p.H = p.W = H; p.kH = p.kW = 3;
    p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
    p.stride_h = p.stride_w = stride;
    kernels::conv2d_fill_output_size(p);
    std::vector<float> want(C * p.H_out * p.W_out);
    kernels::scalar_table().conv2d(p, xv.data(), wv.data(), want.data());
    for (int run = 0; run < 2; ++run) {
      auto out = in.run({{"x", tensor_f({1, C, H, H}, xv)}});
      const auto got = values(out[stride - 1]);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], want[i], 1e-4f) << "stride " << stride << " run " << run << " at " << i;
    }
  }
}

// A fire module: two convolutions (one heading a fused Conv -> Relu chain) whose outputs only a
// Concat reads. From the second run on, the convolutions write straight into their parts of the
// Concat's output; the values are the same as without fusion or placement, run after run, and a
// run with another input size falls back to copying (then places again for that size).
TEST_F(ExecOps, ConcatInputsWrittenInPlace) {
  const int64_t C = 8;
  Value* x = b.input("x", kFloat, {1, C, "h", "w"});
  std::vector<float> w1(16 * C), w3(12 * C * 9);
  for (size_t i = 0; i < w1.size(); ++i) w1[i] = static_cast<float>((i * 37) % 17) / 17.f - 0.5f;
  for (size_t i = 0; i < w3.size(); ++i) w3[i] = static_cast<float>((i * 29) % 23) / 23.f - 0.5f;
  Value* e1 = b.op("Relu", {b.op("Conv", {x, b.initializer("w1", {16, C, 1, 1}, w1)})});
  Value* e3 = b.op("Conv", {x, b.initializer("w3", {12, C, 3, 3}, w3)}, {b.ints("pads", {1, 1, 1, 1})});
  b.output(b.op("Concat", {e1, e3}, {b.i("axis", 1)}));
  auto input = [&](int64_t h) {
    std::vector<float> xv(C * h * 6);
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>((i * 11) % 13) / 13.f - 0.5f;
    return std::vector<std::pair<std::string, RValue>>{{"x", tensor_f({1, C, h, 6}, xv)}};
  };
  Interpreter plain(*m);
  plain.set_plan_fusion(false);
  ExecCache cache;
  Interpreter in(*m, &cache);
  struct Run {
    int64_t h;
    size_t placed;
  };
  for (const Run& r : {Run{5, 0}, Run{5, 2}, Run{5, 2}, Run{7, 0}, Run{7, 2}}) {
    const auto want = values(plain.run(input(r.h))[0]);
    const auto out = in.run(input(r.h));
    EXPECT_EQ(out[0].t.shape, (Shape{1, 28, r.h, 6}));
    EXPECT_EQ(values(out[0]), want) << "h " << r.h;
    EXPECT_EQ(in.stats().placed_outputs, r.placed) << "h " << r.h;
  }
}

// No placement: an input also read elsewhere, an input read twice by its Concat, a Concat over
// an axis with a larger dim before it (its parts are not contiguous); values as copied.
TEST_F(ExecOps, ConcatInputsNotPlacedWhenShared) {
  Value* x = b.input("x", kFloat, {2, 3, 4, 4});
  std::vector<float> wv(3 * 3);
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<float>(i) / 9.f - 0.4f;
  Value* w = b.initializer("w", {3, 3, 1, 1}, wv);
  Value* a = b.op("Conv", {x, w});
  Value* c = b.op("Conv", {x, w});
  Value* d = b.op("Conv", {x, w});
  b.output(b.op("Concat", {a, c}, {b.i("axis", 1)}));  // batch 2: parts not contiguous
  b.output(b.op("Concat", {d, d}, {b.i("axis", 3)}));  // d read twice
  b.output(b.op("Neg", {a}));                          // a read elsewhere too
  std::vector<float> xv(2 * 3 * 16);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i % 7) - 3.f;
  Interpreter plain(*m);
  const auto want = plain.run({{"x", tensor_f({2, 3, 4, 4}, xv)}});
  Interpreter in(*m);
  for (int run = 0; run < 3; ++run) {
    const auto out = in.run({{"x", tensor_f({2, 3, 4, 4}, xv)}});
    for (size_t o = 0; o < out.size(); ++o) EXPECT_EQ(values(out[o]), values(want[o])) << "output " << o;
    EXPECT_EQ(in.stats().placed_outputs, 0u) << "run " << run;
  }
}

// Convolutions with few output positions per image (1-D convs of a 4-frame chunk, strided, 2-D
// with 2x3 outputs; batch 2) run as the transposed product with the weights packed as a Gemm's B:
// against the scalar reference, with and without a cache, and a Conv -> Relu chain fused and node
// by node gives the same bits. Grouped weights take the usual path (same check).
TEST_F(ExecOps, ConvWithFewOutputPositions) {
  struct Case {
    int64_t c_in, c_out, h, w, k, stride, pad, group;
  };
  for (const Case& cs : {Case{20, 24, 1, 4, 3, 1, 1, 1}, Case{17, 32, 1, 8, 3, 2, 1, 1}, Case{16, 40, 4, 5, 3, 2, 1, 1},
                         Case{16, 16, 1, 4, 3, 1, 1, 4}}) {
    auto model = new_model(13);
    GraphBuilder gb(*model);
    const bool one_d = cs.h == 1;
    Value* x = one_d ? gb.input("x", kFloat, {2, cs.c_in, cs.w}) : gb.input("x", kFloat, {2, cs.c_in, cs.h, cs.w});
    const int64_t cg = cs.c_in / cs.group;
    std::vector<float> wv(cs.c_out * cg * cs.k * (one_d ? 1 : cs.k)), bv(cs.c_out), xv(2 * cs.c_in * cs.h * cs.w);
    for (size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<float>((i * 37) % 17) / 17.f - 0.5f;
    for (size_t i = 0; i < bv.size(); ++i) bv[i] = static_cast<float>(i % 5) / 5.f - 0.3f;
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>((i * 11) % 13) / 13.f - 0.5f;
    std::vector<int64_t> wdims = one_d ? std::vector<int64_t>{cs.c_out, cg, cs.k} : std::vector<int64_t>{cs.c_out, cg, cs.k, cs.k};
    Value* w = gb.initializer("w", wdims, wv);
    Value* b = gb.initializer("b", {cs.c_out}, bv);
    const std::vector<int64_t> pads = one_d ? std::vector<int64_t>{cs.pad, cs.pad} : std::vector<int64_t>{cs.pad, cs.pad, cs.pad, cs.pad};
    const std::vector<int64_t> strides = one_d ? std::vector<int64_t>{cs.stride} : std::vector<int64_t>{cs.stride, cs.stride};
    Value* conv = gb.op("Conv", {x, w, b}, {gb.ints("pads", pads), gb.ints("strides", strides), gb.i("group", cs.group)});
    gb.output(gb.op("Relu", {conv}));
    kernels::Conv2DParams p;
    p.N = 2; p.C_in = cs.c_in; p.C_out = cs.c_out; p.H = cs.h; p.W = cs.w; p.group = cs.group;
    p.kH = one_d ? 1 : cs.k; p.kW = cs.k; p.stride_h = one_d ? 1 : cs.stride; p.stride_w = cs.stride;
    p.pad_top = p.pad_bottom = one_d ? 0 : cs.pad; p.pad_left = p.pad_right = cs.pad;
    kernels::conv2d_fill_output_size(p);
    p.bias = bv.data();
    std::vector<float> want(2 * cs.c_out * p.H_out * p.W_out);
    kernels::scalar_table().conv2d(p, xv.data(), wv.data(), want.data());
    for (float& v : want) v = std::max(v, 0.f);
    const Shape xs = one_d ? Shape{2, cs.c_in, cs.w} : Shape{2, cs.c_in, cs.h, cs.w};
    std::vector<float> fused_bits;
    for (bool fuse : {true, false}) {
      ExecCache cache;
      Interpreter in(*model, &cache);
      in.set_plan_fusion(fuse);
      for (int run = 0; run < 2; ++run) {
        const auto got = values(in.run({{"x", tensor_f(xs, xv)}})[0]);
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < got.size(); ++i)
          ASSERT_NEAR(got[i], want[i], 1e-4f) << "c_in " << cs.c_in << " fuse " << fuse << " run " << run << " at " << i;
        if (fuse) fused_bits = got;
        else EXPECT_EQ(got, fused_bits) << "c_in " << cs.c_in;
      }
    }
  }
}


// scales (constant: their packed conv weights are cached, keyed apart by node), and by one whose
// scale is a graph input (not constant: never cached, so a new scale on the second run must show).
// Each conv against the scalar reference on its dequantized weights, on two runs.
TEST_F(ExecOps, DequantizedConvWeightsCachedOnlyWhenConstant) {
  const int64_t C = 8, H = 6;
  Value* x = b.input("x", kFloat, {1, C, H, H});
  Value* s_in = b.input("s", kFloat, {});
  std::vector<int8_t> wq(C * C * 9);
  std::vector<float> xv(C * H * H);
  for (size_t i = 0; i < wq.size(); ++i) wq[i] = static_cast<int8_t>(static_cast<int>((i * 37) % 255) - 127);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>((i * 11) % 13) / 13.f - 0.5f;
  Value* w = b.initializer("wq", kInt8, {C, C, 3, 3}, wq.data(), wq.size());
  const float scales[2] = {0.01f, 0.03f};
  const std::vector<Attribute> pads = {b.ints("pads", {1, 1, 1, 1})};
  for (int i = 0; i < 2; ++i)
    b.output(b.op("Conv", {x, b.op("DequantizeLinear", {w, b.constant("s" + std::to_string(i), {}, {scales[i]})})}, pads));
  b.output(b.op("Conv", {x, b.op("DequantizeLinear", {w, s_in})}, pads));
  ExecCache cache;
  Interpreter in(*m, &cache);
  kernels::Conv2DParams p;
  p.C_in = p.C_out = C; p.H = p.W = H; p.kH = p.kW = 3;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  kernels::conv2d_fill_output_size(p);
  auto reference = [&](float scale) {
    std::vector<float> wf(wq.size()), want(C * p.H_out * p.W_out);
    for (size_t i = 0; i < wq.size(); ++i) wf[i] = static_cast<float>(wq[i]) * scale;
    kernels::scalar_table().conv2d(p, xv.data(), wf.data(), want.data());
    return want;
  };
  for (float run_scale : {0.02f, 0.05f}) {
    auto out = in.run({{"x", tensor_f({1, C, H, H}, xv)}, {"s", tensor_f({}, {run_scale})}});
    for (int o = 0; o < 3; ++o) {
      const auto got = values(out[o]), want = reference(o < 2 ? scales[o] : run_scale);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-4f) << "conv " << o << " scale " << run_scale << " at " << i;
    }
  }
  // The two constant DequantizeLinear outputs are kept, and each conv over them packed once (a
  // table without a packed form, such as the scalar one, packs nothing).
  EXPECT_EQ(cache.kept_count(), 2u);
  EXPECT_EQ(cache.size(), kernels::active_table().conv2d_packed_size(p) ? 2u : 0u);
}

// Runs m without a cache, then `runs` times with `cache`: every output of every cached run is the
// uncached run's bit for bit; after_run(run) then checks what the cache holds.
template <class AfterRun>
void expect_cached_runs_match(Model& m, const std::vector<std::pair<std::string, RValue>>& in, ExecCache& cache,
                              int runs, AfterRun&& after_run) {
  Interpreter plain(m);
  const auto want = plain.run(in);
  Interpreter cached(m, &cache);
  for (int run = 0; run < runs; ++run) {
    const auto got = cached.run(in);
    ASSERT_EQ(got.size(), want.size());
    for (size_t o = 0; o < want.size(); ++o) EXPECT_EQ(values(got[o]), values(want[o])) << "output " << o << " run " << run;
    after_run(run);
  }
}

// Weights from Constant nodes (as some exporters write them, inside subgraphs too) are packed once
// and kept in the run's cache like initializers: a Conv and a MatMul on Constant weights give the
// run without a cache bit for bit, on two runs; the Constant value itself, as a graph output, is
// the tensor's values.
TEST_F(ExecOps, ConstantNodeWeightsArePackedLikeInitializers) {
  const int64_t C = 8, H = 5, K = 24;
  Value* x = b.input("x", kFloat, {1, C, H, H});
  Value* v = b.input("v", kFloat, {3, K});
  std::vector<float> wv(C * C * 9), mv(K * K), xv(C * H * H), vv(3 * K);
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<float>((i * 37) % 17) / 17.f - 0.5f;
  for (size_t i = 0; i < mv.size(); ++i) mv[i] = static_cast<float>((i * 29) % 23) / 23.f - 0.5f;
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>((i * 11) % 13) / 13.f - 0.5f;
  for (size_t i = 0; i < vv.size(); ++i) vv[i] = static_cast<float>((i * 5) % 7) / 7.f - 0.5f;
  Value* w = b.constant("w", {C, C, 3, 3}, wv);
  Value* mw = b.constant("m", {K, K}, mv);
  b.output(b.op("Conv", {x, w}, {b.ints("pads", {1, 1, 1, 1})}));
  b.output(b.op("MatMul", {v, mw}));
  b.output(mw);
  const std::vector<std::pair<std::string, RValue>> in = {{"x", tensor_f({1, C, H, H}, xv)}, {"v", tensor_f({3, K}, vv)}};
  ExecCache cache;
  expect_cached_runs_match(*m, in, cache, 2, [](int) {});
  Interpreter plain(*m);
  EXPECT_EQ(values(plain.run(in)[2]), mv);  // the Constant value itself
  // The packed weights are in the cache, keyed by the Constant tensors' bytes (a table without
  // packed forms, such as the scalar one, packs nothing).
  const kernels::KernelTable& kt = kernels::active_table();
  kernels::Conv2DParams cp;
  cp.C_in = cp.C_out = C; cp.H = cp.W = H; cp.kH = cp.kW = 3;
  cp.pad_top = cp.pad_left = cp.pad_bottom = cp.pad_right = 1;
  kernels::conv2d_fill_output_size(cp);
  EXPECT_EQ(cache.size(), (kt.conv2d_packed_size(cp) ? 1u : 0u) + (kt.sgemm_packed_b_size(K, K) ? 1u : 0u));
}

// Nodes that compute from constants only (exports slice and concatenate weights, build masks
// and shapes from Constant nodes) run once: their outputs are kept in the run's cache and later
// runs take them. Nodes reading an input, random ones and ones with subgraphs are not kept; the
// outputs are the uncached run's bit for bit, run after run.
TEST_F(ExecOps, NodesOfConstantsOnlyRunOnce) {
  const int64_t K = 8;
  Value* x = b.input("x", kFloat, {2, K});
  Value* cond = b.input("cond", kBool, {});
  std::vector<float> wv(2 * K * K);
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<float>((i * 13) % 11) / 11.f - 0.5f;
  Value* w = b.initializer("w", {2 * K, K}, wv);
  Value* start = b.constant_i64("start", {1}, {K});
  Value* end = b.constant_i64("end", {1}, {2 * K});
  Value* half = b.op("Slice", {w, start, end});                  // constant: kept
  Value* scaled = b.op("Mul", {half, b.constant("two", {}, {2.f})});  // constant: kept
  Value* y = b.op("MatMul", {x, b.op("Transpose", {scaled})});   // Transpose kept, MatMul reads x
  Value* drop = b.op("Dropout", {scaled, b.constant("ratio", {}, {0.5f}), cond});  // training_mode from an input
  b.output(y);
  b.output(b.op("Shape", {drop}));
  const std::vector<std::pair<std::string, RValue>> in = {{"x", tensor_f({2, K}, std::vector<float>(2 * K, 0.25f))},
                                                           {"cond", ofg::test::tensor_value<bool>(kBool, {}, {false})}};
  ExecCache cache;
  expect_cached_runs_match(*m, in, cache, 3,
                           [&](int run) { EXPECT_EQ(cache.kept_count(), 3u) << "Slice, Mul and Transpose, run " << run; });
}

// Constant nodes (value tensors and value_ints alike) run on the first run only: their outputs
// stay resident in the interpreter and later runs skip them, with or without a cache; with a
// cache, nodes computed from constants only become resident too. Outputs are the same run after
// run, a Constant output that is a graph output included.
TEST_F(ExecOps, ResidentNodesRunOnce) {
  Value* x = b.input("x", kFloat, {2, 3});
  Value* c = b.constant("c", {3}, {1.f, 2.f, 3.f});
  Value* shape = b.op("Constant", {}, {b.ints("value_ints", {3, 2})});
  Value* twice = b.op("Mul", {c, b.constant("two", {}, {2.f})});  // from constants only
  b.output(b.op("Reshape", {b.op("Add", {x, twice}), shape}));
  b.output(c);
  const std::vector<float> xv = {0.f, 1.f, 2.f, 3.f, 4.f, 5.f};
  const std::vector<float> want = {2.f, 5.f, 8.f, 5.f, 8.f, 11.f};
  for (bool cached : {false, true}) {
    ExecCache cache;
    Interpreter in(*m, cached ? &cache : nullptr);
    for (int run = 0; run < 3; ++run) {
      const auto out = in.run({{"x", tensor_f({2, 3}, xv)}});
      ASSERT_EQ(out.size(), 2u);
      EXPECT_EQ(out[0].t.shape, (Shape{3, 2}));
      EXPECT_EQ(values(out[0]), want) << "cached " << cached << " run " << run;
      EXPECT_EQ(values(out[1]), (std::vector<float>{1.f, 2.f, 3.f}));
      // Three Constant nodes; the Mul of two of them with a cache.
      const size_t resident = run == 0 ? 0u : cached ? 4u : 3u;
      EXPECT_EQ(in.stats().nodes_resident, resident) << "cached " << cached << " run " << run;
      EXPECT_EQ(in.stats().nodes_run + in.stats().nodes_resident, 6u);
    }
  }
}

// A Reshape target computed from the input's shape (Shape -> Gather -> Unsqueeze -> Concat, as
// exports with dynamic axes write it) is remembered: a run with the same input shape takes the
// three nodes' outputs; a run with another shape computes them again, then they are remembered
// for that shape. A node reading the input's data (the Add) runs on every run.
TEST_F(ExecOps, ShapeComputationsRecalledWhileShapesStay) {
  Value* x = b.input("x", kFloat, {"n", 4});
  Value* batch = b.op("Gather", {b.op("Shape", {x}), b.constant_i64("zero", {}, {0})});
  Value* target = b.op("Concat", {b.op("Unsqueeze", {batch, b.constant_i64("axes", {1}, {0})}),
                                  b.constant_i64("rest", {1}, {-1})},
                       {b.i("axis", 0)});
  b.output(b.op("Reshape", {b.op("Add", {x, x}), target}));
  Interpreter in(*m);
  struct Case {
    int64_t n;
    size_t recalled;
  };
  for (const Case& c : {Case{2, 0}, Case{2, 3}, Case{3, 0}, Case{3, 3}, Case{2, 0}}) {
    std::vector<float> xv(static_cast<size_t>(c.n * 4));
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i);
    const auto out = in.run({{"x", tensor_f({c.n, 4}, xv)}});
    EXPECT_EQ(out[0].t.shape, (Shape{c.n, 4})) << "n " << c.n;
    std::vector<float> want(xv.size());
    for (size_t i = 0; i < xv.size(); ++i) want[i] = 2.f * xv[i];
    EXPECT_EQ(values(out[0]), want);
    EXPECT_EQ(in.stats().nodes_recalled, c.recalled) << "n " << c.n;
  }
}

// Not remembered: nodes reading data (a Gather of the input's values), random nodes, nodes whose
// shape input comes from data.
TEST_F(ExecOps, DataDependentNodesAreNotRecalled) {
  Value* x = b.input("x", kInt64, {2});
  Value* shape_of_x = b.op("Shape", {x});
  Value* picked = b.op("Gather", {x, b.constant_i64("zero", {}, {0})});  // data of x
  b.output(b.op("Add", {shape_of_x, picked}));
  Interpreter in(*m);
  for (int64_t first : {5, 7, 9}) {
    const auto out = in.run({{"x", ofg::test::tensor_value<int64_t>(kInt64, {2}, {first, 1})}});
    EXPECT_EQ(out[0].t.data<int64_t>()[0], 2 + first);
    EXPECT_EQ(in.stats().nodes_recalled, 0u);
  }
}

// A Constant node without a value attribute is never resident: it fails on every run.
TEST_F(ExecOps, BrokenConstantFailsEveryRun) {
  Value* x = b.input("x", kFloat, {2});
  b.output(b.op("Add", {x, b.op("Constant", {}, {b.i("not_a_value", 1)})}));
  Interpreter in(*m);
  for (int run = 0; run < 2; ++run) {
    try {
      in.run({{"x", tensor_f({2}, {1.f, 2.f})}});
      FAIL() << "run " << run << " should fail";
    } catch (const ofg::Error& e) {
      EXPECT_NE(std::string(e.what()).find("Constant"), std::string::npos) << e.what();
    }
  }
}

// Gemm with weights (B an initializer, stored K x N or N x K) and alpha 1 packs B once into the
// run's cache; with C and beta the product is the uncached run's bit for bit, on every run.
TEST_F(ExecOps, GemmWithConstantWeightsPackedOnce) {
  const int64_t M = 3, K = 300, N = 37;
  Value* a = b.input("a", kFloat, {M, K});
  std::vector<float> wv(K * N), bias(N), av(M * K);
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<float>((i * 37) % 17) / 17.f - 0.5f;
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(i) / 7.f;
  for (size_t i = 0; i < av.size(); ++i) av[i] = static_cast<float>((i * 11) % 13) / 13.f - 0.5f;
  Value* w_kn = b.initializer("w_kn", {K, N}, wv);
  Value* w_nk = b.initializer("w_nk", {N, K}, wv);
  Value* cb = b.initializer("c", {N}, bias);
  b.output(b.op("Gemm", {a, w_kn, cb}, {b.f("beta", 0.5f)}));
  b.output(b.op("Gemm", {a, w_nk, cb}, {b.i("transB", 1)}));
  b.output(b.op("Gemm", {a, w_nk}, {b.i("transB", 1), b.f("alpha", 2.f)}));  // alpha: not packed
  const std::vector<std::pair<std::string, RValue>> in = {{"a", tensor_f({M, K}, av)}};
  ExecCache cache;
  expect_cached_runs_match(*m, in, cache, 2, [&](int run) {
    EXPECT_EQ(cache.size(), kernels::active_table().sgemm_packed_b_size(K, N) ? 2u : 0u)
        << "the two packed forms of B (none for a table without them), run " << run;
  });
  Interpreter plain(*m);
  const auto want = plain.run(in);
  // The transposed weights against the definition.
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) s += double(av[i * K + k]) * wv[j * K + k];
      EXPECT_NEAR(values(want[1])[i * N + j], s + bias[j], 1e-4) << i << "," << j;
    }
}

// A square weight used as is and through a Transpose (as exporters leave nn.Linear weights): the
// transposed copy and both packed forms are kept in the interpreter's cache, keyed apart. Both
// products against the definition, on two runs (the second from the cache), and the outputs
// stay valid after the interpreter and its cache are gone (the transpose output views an entry).
// Float reductions over trailing axes take a contiguous fast path, others the general walk: both
// against the definition (sums in double, rounded once), with keepdims and a leading axis.
TEST_F(ExecOps, FloatReductionsOverTrailingAndLeadingAxes) {
  Value* x = b.input("x", kFloat, {2, 3, 4});
  std::vector<float> xv(24);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>((i * 7) % 11) / 3.f - 1.f;
  b.output(b.op("ReduceMean", {x}, {b.ints("axes", {1, 2})}));
  b.output(b.op("ReduceSumSquare", {x}, {b.ints("axes", {-1}), b.i("keepdims", 0)}));
  b.output(b.op("ReduceL2", {x}, {b.ints("axes", {2})}));
  b.output(b.op("ReduceMean", {x}, {b.ints("axes", {0}), b.i("keepdims", 0)}));
  Interpreter in(*m);
  auto out = in.run({{"x", tensor_f({2, 3, 4}, xv)}});
  EXPECT_EQ(out[0].t.shape, (Shape{2, 1, 1}));
  EXPECT_EQ(out[1].t.shape, (Shape{2, 3}));
  EXPECT_EQ(out[2].t.shape, (Shape{2, 3, 1}));
  EXPECT_EQ(out[3].t.shape, (Shape{3, 4}));
  for (int n = 0; n < 2; ++n) {
    double s = 0;
    for (int i = 0; i < 12; ++i) s += xv[n * 12 + i];
    EXPECT_EQ(values(out[0])[n], static_cast<float>(s / 12)) << n;
    for (int r = 0; r < 3; ++r) {
      double q = 0;
      for (int i = 0; i < 4; ++i) q += double(xv[n * 12 + r * 4 + i]) * xv[n * 12 + r * 4 + i];
      EXPECT_EQ(values(out[1])[n * 3 + r], static_cast<float>(q)) << n << "," << r;
      EXPECT_EQ(values(out[2])[n * 3 + r], static_cast<float>(std::sqrt(q))) << n << "," << r;
    }
  }
  for (int i = 0; i < 12; ++i) EXPECT_EQ(values(out[3])[i], static_cast<float>((double(xv[i]) + xv[12 + i]) / 2)) << i;
}

TEST_F(ExecOps, MatMulWithConstantAndTransposedWeights) {
  const int64_t K = 19;
  Value* x = b.input("x", kFloat, {2, 3, K});
  std::vector<float> wv(K * K), xv(2 * 3 * K);
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<float>((i * 37) % 17) / 17.f - 0.5f;
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>((i * 11) % 13) / 13.f - 0.5f;
  Value* w = b.initializer("w", {K, K}, wv);
  Value* wt = b.op("Transpose", {w}, {b.ints("perm", {1, 0})});
  b.output(b.op("MatMul", {x, w}));
  b.output(b.op("MatMul", {x, wt}));
  b.output(wt);
  std::vector<std::vector<RValue>> outs;
  {
    ExecCache cache;
    Interpreter in(*m, &cache);
    for (int run = 0; run < 2; ++run) outs.push_back(in.run({{"x", tensor_f({2, 3, K}, xv)}}));
  }
  for (const auto& out : outs) {
    ASSERT_EQ(out[1].t.shape, (Shape{2, 3, K}));
    const auto direct = values(out[0]), through = values(out[1]), tw = values(out[2]);
    for (int64_t r = 0; r < 6; ++r)
      for (int64_t n = 0; n < K; ++n) {
        double d = 0, t = 0;
        for (int64_t k = 0; k < K; ++k) {
          d += double(xv[r * K + k]) * wv[k * K + n];
          t += double(xv[r * K + k]) * wv[n * K + k];
        }
        ASSERT_NEAR(direct[r * K + n], d, 1e-5) << r << "," << n;
        ASSERT_NEAR(through[r * K + n], t, 1e-5) << r << "," << n;
        ASSERT_EQ(tw[n * K + r % K], wv[(r % K) * K + n]);
      }
  }
}

TEST_F(ExecOps, IntegerAndBoolPaths) {
  Value* x = b.input("x", kInt64, {3});
  Value* y = b.op("Div", {x, b.constant_i64("two", {}, {2})});
  Value* eq = b.op("Equal", {y, b.constant_i64("one", {}, {1})});
  Value* w = b.op("Where", {eq, x, b.constant_i64("z", {}, {0})});
  b.output(w);
  Interpreter in(*m);
  RTensor t = RTensor::alloc(kInt64, {3});
  t.data<int64_t>()[0] = 2;
  t.data<int64_t>()[1] = -3;
  t.data<int64_t>()[2] = 3;
  auto out = in.run({{"x", RValue::tensor(t)}});
  ASSERT_EQ(out[0].t.dtype, kInt64);
  EXPECT_EQ(out[0].t.data<int64_t>()[0], 2);
  EXPECT_EQ(out[0].t.data<int64_t>()[1], 0);  // -3/2 truncates to -1
  EXPECT_EQ(out[0].t.data<int64_t>()[2], 3);
}

TEST_F(ExecPlan, ReleasesIntermediatesAfterLastUse) {
  Value* x = b.input("x", kFloat, {1024});
  Value* v = x;
  for (int i = 0; i < 8; ++i) v = b.op("Relu", {v});
  b.output(v);
  Interpreter in(*m);
  in.set_plan_fusion(false);  // fused, the Relus would be one elementwise chain without intermediates
  std::vector<float> data(1024, 1.f);
  auto out = in.run({{"x", tensor_f({1024}, data)}});
  EXPECT_EQ(in.stats().nodes_run, 8u);
  EXPECT_EQ(in.stats().freed_values, 8u);  // the input and 7 intermediates, never the output
  // With release, at most two 4 KiB buffers are alive at once.
  EXPECT_LE(in.stats().peak_live_bytes, 2u * 4096u);
  EXPECT_EQ(values(out[0])[5], 1.f);
}

TEST_F(ExecControl, IfPicksBranchAndReadsOuterScope) {
  Value* c = b.input("c", kBool, {});
  Value* x = b.input("x", kFloat, {2});
  Graph* then_g = b.subgraph("then");
  {
    GraphBuilder tb(*m, then_g);
    tb.output(tb.op("Add", {x, x}));
  }
  Graph* else_g = b.subgraph("else");
  {
    GraphBuilder eb(*m, else_g);
    eb.output(eb.op("Neg", {x}));
  }
  recompute_captures(m->graph);
  Node* n = b.node("If", {c}, 1, {b.g("then_branch", then_g), b.g("else_branch", else_g)});
  b.output(n->outputs[0]);
  recompute_captures(m->graph);
  for (bool cond : {true, false}) {
    Interpreter in(*m);
    RTensor ct = RTensor::alloc(kBool, {});
    ct.data<bool>()[0] = cond;
    auto out = in.run({{"c", RValue::tensor(ct)}, {"x", tensor_f({2}, {1, 2})}});
    EXPECT_EQ(values(out[0]), cond ? (std::vector<float>{2, 4}) : (std::vector<float>{-1, -2}));
  }
}

TEST_F(ExecControl, LoopAccumulatesStateAndScanOutputs) {
  Value* x = b.input("x", kFloat, {1});
  Graph* body = b.subgraph("body");
  {
    GraphBuilder lb(*m, body);
    Value* cond = test::loop_inputs(lb);
    Value* acc = lb.input("acc", kFloat, {1});
    Value* next = lb.op("Add", {acc, acc});
    lb.output(lb.op("Identity", {cond}));
    lb.output(next);
    lb.output(lb.op("Identity", {next}));
  }
  Value* trip = b.constant_i64("trip", {}, {3});
  Node* n = b.node("Loop", {trip, nullptr, x}, 2, {b.g("body", body)});
  b.output(n->outputs[0]);
  b.output(n->outputs[1]);
  recompute_captures(m->graph);
  Interpreter in(*m);
  auto out = in.run({{"x", tensor_f({1}, {1})}});
  EXPECT_EQ(values(out[0]), (std::vector<float>{8}));
  EXPECT_EQ(out[1].t.shape, (Shape{3, 1}));
  EXPECT_EQ(values(out[1]), (std::vector<float>{2, 4, 8}));
}

TEST_F(ExecErrors, UnsupportedOpNamesOpDomainAndOpset) {
  Value* x = b.input("x", kFloat, {1});
  b.output(b.node("FancyOp", {x}, 1, {}, {}, "com.example")->outputs[0]);
  Interpreter in(*m);
  try {
    in.run({{"x", tensor_f({1}, {1})}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::kUnsupported);
    std::string msg = e.what();
    EXPECT_NE(msg.find("FancyOp"), std::string::npos) << msg;
    EXPECT_NE(msg.find("com.example"), std::string::npos) << msg;
    EXPECT_NE(msg.find("opset"), std::string::npos) << msg;
  }
}

// An initializer whose bytes sit at an odd address is copied into an aligned buffer once per
// cache, then reused as is; another type or shape over the same bytes gets its own entry.
TEST(ExecCacheConstants, UnalignedBytesCopiedOnceAndKeptApartByShape) {
  alignas(8) uint8_t raw[1 + 4 * sizeof(float)] = {};
  const float vals[4] = {1.5f, -2.f, 0.25f, 8.f};
  std::memcpy(raw + 1, vals, sizeof(vals));
  int64_t dims4[1] = {4}, dims22[2] = {2, 2};
  Tensor t;
  t.data_type = kFloat;
  t.dims = {dims4, 1};
  t.data = {raw + 1, sizeof(vals)};
  Tensor u = t;
  u.dims = {dims22, 2};
  ExecCache cache;
  const RTensor a = cache.constant(t), again = cache.constant(t), b = cache.constant(u);
  EXPECT_NE(a.ptr, raw + 1);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.ptr) % alignof(float), 0u);
  EXPECT_EQ(again.ptr, a.ptr);
  EXPECT_EQ(a.shape, (Shape{4}));
  EXPECT_EQ(b.shape, (Shape{2, 2}));
  EXPECT_NE(b.ptr, a.ptr);
  for (const RTensor* r : {&a, &again, &b})
    for (int i = 0; i < 4; ++i) EXPECT_EQ(r->data<float>()[i], vals[i]) << i;
}
