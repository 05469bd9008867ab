// Pad (row runs and constant rows, exec/ops/slice.cpp) against a per-element reference written
// here from the spec: random ranks 1-4, pads of both signs (a negative pad crops), every mode,
// float and int8 data, empty results.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "exec/interp.h"
#include "ir/builder.h"
#include "support/exec_support.h"

using namespace ofg;
using namespace ofg::exec;

namespace {


// The input index output index `o` of an axis of size `d` reads, or -1 for the constant.
int64_t source_index(int64_t o, int64_t begin, int64_t d, const std::string& mode) {
  int64_t v = o - begin;
  if (v >= 0 && v < d) return v;
  if (mode == "constant" || d == 0) return -1;
  if (mode == "edge") return v < 0 ? 0 : d - 1;
  if (mode == "wrap") return ((v % d) + d) % d;
  if (d == 1) return 0;  // reflect
  const int64_t period = 2 * (d - 1);
  v = ((v % period) + period) % period;
  return v >= d ? period - v : v;
}

std::vector<double> reference(const std::vector<double>& x, const Shape& xs, const std::vector<int64_t>& pads,
                              const std::string& mode, double value, Shape& out_shape) {
  const size_t r = xs.size();
  out_shape.assign(r, 0);
  for (size_t i = 0; i < r; ++i) out_shape[i] = xs[i] + pads[i] + pads[i + r];
  int64_t n = 1;
  for (int64_t d : out_shape) n *= d;
  std::vector<double> y(static_cast<size_t>(std::max<int64_t>(n, 0)));
  for (int64_t k = 0; k < n; ++k) {
    int64_t rem = k, off = 0, stride = 1;
    bool constant = false;
    for (size_t i = r; i-- > 0;) {
      const int64_t o = rem % out_shape[i];
      rem /= out_shape[i];
      const int64_t v = source_index(o, pads[i], xs[i], mode);
      constant |= v < 0;
      off += v * stride;
      stride *= xs[i];
    }
    y[static_cast<size_t>(k)] = constant ? value : x[static_cast<size_t>(off)];
  }
  return y;
}

void check(int32_t dtype, const Shape& xs, const std::vector<int64_t>& pads,
           const std::string& mode, uint32_t seed) {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", dtype, std::vector<DimSpec>(xs.begin(), xs.end()));
  Value* p = b.initializer_i64("pads", {static_cast<int64_t>(pads.size())}, pads);
  std::vector<Value*> ins = {x, p};
  const double value = dtype == kFloat ? 1.5 : -7;
  if (mode == "constant") {
    if (dtype == kFloat) ins.push_back(b.constant("v", {}, {static_cast<float>(value)}));
    else ins.push_back(b.op("Cast", {b.constant("v", {}, {static_cast<float>(value)})}, {b.i("to", dtype)}));
  }
  b.output(b.op("Pad", ins, {b.s("mode", mode)}));
  int64_t n = 1;
  for (int64_t d : xs) n *= d;
  std::mt19937 rng(seed);
  std::vector<double> xv(static_cast<size_t>(n));
  for (double& v : xv) v = static_cast<double>(static_cast<int>(rng() % 200) - 100);
  RTensor xt = RTensor::alloc(dtype, xs);
  for (int64_t i = 0; i < n; ++i) set_f64(xt, i, xv[static_cast<size_t>(i)]);
  Interpreter in(*m);
  auto out = in.run({{"x", RValue::tensor(xt)}});
  Shape want_shape;
  std::vector<double> want = reference(xv, xs, pads, mode, value, want_shape);
  ASSERT_EQ(out[0].t.shape, want_shape);
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(get_f64(out[0].t, static_cast<int64_t>(i)), want[i]) << "element " << i;
}

}  // namespace

TEST(ExecPad, MatchesThePerElementReference) {
  std::mt19937 rng(7);
  const char* modes[] = {"constant", "edge", "reflect", "wrap"};
  int cases = 0;
  for (int round = 0; round < 120; ++round) {
    const size_t r = 1 + rng() % 4;
    Shape xs(r);
    for (int64_t& d : xs) d = 1 + static_cast<int64_t>(rng() % 5);
    const std::string mode = modes[rng() % 4];
    std::vector<int64_t> pads(2 * r);
    for (size_t i = 0; i < 2 * r; ++i) {
      const int64_t d = xs[i % r];
      // reflect needs pads below the axis size; a crop never removes the whole axis here
      const int64_t hi = mode == "reflect" ? d - 1 : 4;
      pads[i] = static_cast<int64_t>(rng() % static_cast<uint32_t>(hi + 1));
      if (mode == "constant" && rng() % 4 == 0) pads[i] = -static_cast<int64_t>(rng() % static_cast<uint32_t>((d + 1) / 2));
    }
    const int32_t dtype = round % 3 == 0 ? kInt8 : kFloat;
    SCOPED_TRACE("round " + std::to_string(round) + " mode " + mode);
    check(dtype, xs, pads, mode, static_cast<uint32_t>(round));
    ++cases;
  }
  EXPECT_EQ(cases, 120);
}

TEST(ExecPad, CropToNothingGivesAnEmptyTensor) {
  check(kFloat, {2, 3}, {0, -2, 0, -1}, "constant", 1);
}
