// Einsum on float32 operands that form a batched matrix product runs as transposes and sgemm
// (exec/ops/linalg.cpp); every other equation, and float64, takes the double-precision walk. The
// walk is the oracle here: the same equation on the same values as float64 gives the exact
// products, which the float32 result must match within sgemm's rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "exec/interp.h"
#include "ir/builder.h"
#include "support/exec_support.h"

using namespace ofg;
using namespace ofg::exec;

namespace {

struct Case {
  std::string equation;
  std::vector<Shape> shapes;
  Shape want;  // the output's shape
};

std::vector<RValue> run_einsum(const Case& k, int32_t dtype, const std::vector<std::vector<double>>& values) {
  auto m = new_model(12);
  GraphBuilder b(*m);
  std::vector<Value*> ins;
  std::vector<std::pair<std::string, RValue>> feeds;
  for (size_t i = 0; i < k.shapes.size(); ++i) {
    const std::string name = "x" + std::to_string(i);
    ins.push_back(b.input(name, dtype, std::vector<DimSpec>(k.shapes[i].begin(), k.shapes[i].end())));
    RTensor t = RTensor::alloc(dtype, k.shapes[i]);
    for (size_t j = 0; j < values[i].size(); ++j) set_f64(t, static_cast<int64_t>(j), values[i][j]);
    feeds.emplace_back(name, RValue::tensor(t));
  }
  b.output(b.op("Einsum", ins, {b.s("equation", k.equation)}));
  Interpreter in(*m);
  return in.run(feeds);
}

void check(const Case& k, uint32_t seed) {
  SCOPED_TRACE(k.equation);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<std::vector<double>> values;
  for (const Shape& s : k.shapes) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    std::vector<double> v(static_cast<size_t>(n));
    for (double& x : v) x = u(rng);  // float32 values: both runs see the same numbers
    values.push_back(v);
  }
  const RTensor want = run_einsum(k, kDouble, values)[0].t;
  const RTensor got = run_einsum(k, kFloat, values)[0].t;
  ASSERT_EQ(want.shape, k.want);
  ASSERT_EQ(got.shape, k.want);
  ASSERT_EQ(got.dtype, kFloat);
  // Sums of at most 64 products of values in [-1, 1]: float32 accumulation stays within 1e-5.
  for (int64_t i = 0; i < want.numel(); ++i)
    ASSERT_NEAR(get_f64(got, i), get_f64(want, i), 1e-5) << "element " << i;
}

}  // namespace

TEST(ExecEinsum, MatrixProductFormsMatchTheDoubleWalk) {
  const std::vector<Case> cases = {
      {"ij,jk->ik", {{5, 7}, {7, 3}}, {5, 3}},
      {"ij,kj->ik", {{5, 7}, {3, 7}}, {5, 3}},               // B transposed
      {"ji,jk->ik", {{7, 5}, {7, 3}}, {5, 3}},               // A transposed
      {"ik,kj->ji", {{4, 6}, {6, 9}}, {9, 4}},               // output transposed
      {"bij,bjk->bik", {{3, 4, 5}, {3, 5, 6}}, {3, 4, 6}},
      {"bhid,bhjd->bhij", {{2, 3, 8, 16}, {2, 3, 9, 16}}, {2, 3, 8, 9}},  // attention scores
      {"bhij,bhjd->bhid", {{2, 3, 8, 9}, {2, 3, 9, 16}}, {2, 3, 8, 16}},
      {"...ij,...jk->...ik", {{2, 3, 4, 5}, {2, 3, 5, 2}}, {2, 3, 4, 2}},
      {"abc,cd->abd", {{2, 3, 4}, {4, 5}}, {2, 3, 5}},        // two row axes
      {"abcd,cdf->abf", {{2, 3, 4, 5}, {4, 5, 6}}, {2, 3, 6}},  // two contracted axes
      {"i,i->", {{17}, {17}}, {}},                             // inner product
      {"i,j->ij", {{4}, {6}}, {4, 6}},                         // outer product: K = 1
      {"ij,ij->ij", {{3, 5}, {3, 5}}, {3, 5}},                 // elementwise: all batch
      {"bn,anm,bm->ba", {{2, 3}, {4, 3, 5}, {2, 5}}, {2, 4}},  // three operands: the walk
      {"ii,ij->ij", {{4, 4}, {4, 3}}, {4, 3}},                 // a diagonal: the walk
      {"ij,jk->i", {{3, 4}, {4, 5}}, {3}},                     // a sum over one operand: the walk
      {"ij,jk->ik", {{1, 4}, {4, 5}}, {1, 5}},
      {"bij,jk->bik", {{1, 3, 4}, {4, 2}}, {1, 3, 2}},
  };
  uint32_t seed = 1;
  for (const Case& k : cases) check(k, seed++);
}

TEST(ExecEinsum, EmptyAxesGiveZerosOrEmptyTensors) {
  check({"ij,jk->ik", {{3, 0}, {0, 4}}, {3, 4}}, 1);  // nothing to contract: zeros
  check({"ij,jk->ik", {{0, 5}, {5, 4}}, {0, 4}}, 2);
  check({"bij,bjk->bik", {{0, 2, 3}, {0, 3, 2}}, {0, 2, 2}}, 3);
}

TEST(ExecEinsum, BroadcastSizeOneAxisTakesTheWalk) {
  // b is 1 in A and 3 in B: broadcast, which the product form declines.
  check({"bij,bjk->bik", {{1, 2, 3}, {3, 3, 2}}, {3, 2, 2}}, 4);
}
