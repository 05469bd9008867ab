// The shared guards of the interpreter: checked size arithmetic, the float -> integer
// conversion, the tensor budget (run.max_tensor_bytes) and the OpCtx validation helpers, plus a
// few ops that used to trust their inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "exec/interp.h"
#include "ir/builder.h"
#include "ir/error.h"
#include "onnxforge.h"
#include "support/exec_support.h"
#include "support/model_test.h"

using namespace ofg;
using namespace ofg::exec;

namespace {

// Runs `f` and returns the status of the Error it throws (kOk when it throws none).
template <class F>
Status status_of(F&& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.status();
  }
  return Status::kOk;
}

using ofg::test::i64_tensor;

using OpValidation = ofg::test::ModelTest;

}  // namespace

TEST(SaturateCast, NanIsZeroAndOutOfRangeSaturates) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  EXPECT_EQ(saturate_cast<int64_t>(nan), 0);
  EXPECT_EQ(saturate_cast<int64_t>(inf), INT64_MAX);
  EXPECT_EQ(saturate_cast<int64_t>(-inf), INT64_MIN);
  EXPECT_EQ(saturate_cast<int64_t>(1e30), INT64_MAX);
  EXPECT_EQ(saturate_cast<int64_t>(-1e30), INT64_MIN);
  EXPECT_EQ(saturate_cast<int64_t>(9223372036854775808.0), INT64_MAX);  // 2^63, just past the range
  EXPECT_EQ(saturate_cast<int32_t>(2147483647.5), INT32_MAX);
  EXPECT_EQ(saturate_cast<int32_t>(-2147483649.0), INT32_MIN);
  EXPECT_EQ(saturate_cast<uint8_t>(300.7), 255);
  EXPECT_EQ(saturate_cast<uint8_t>(-5.0), 0);
  EXPECT_EQ(saturate_cast<uint64_t>(-1.0), 0u);
  EXPECT_EQ(saturate_cast<uint64_t>(inf), UINT64_MAX);
  EXPECT_EQ(saturate_cast<int8_t>(-3.9), -3);  // truncates toward zero inside the range
  EXPECT_EQ(saturate_cast<int16_t>(3.9), 3);
  EXPECT_EQ(saturate_cast<bool>(nan), true);  // bool: nonzero is true
  EXPECT_EQ(saturate_cast<bool>(0.0), false);
  EXPECT_FLOAT_EQ(saturate_cast<float>(1.5), 1.5f);
}

TEST(SaturateCast, CastTensorAndGetI64UseIt) {
  RTensor f = RTensor::alloc(kFloat, {3});
  f.data<float>()[0] = std::nanf("");
  f.data<float>()[1] = std::numeric_limits<float>::infinity();
  f.data<float>()[2] = -1e20f;
  RTensor y = cast_tensor(f, kInt32);
  EXPECT_EQ(y.data<int32_t>()[0], 0);
  EXPECT_EQ(y.data<int32_t>()[1], INT32_MAX);
  EXPECT_EQ(y.data<int32_t>()[2], INT32_MIN);
  EXPECT_EQ(get_i64(f, 0), 0);
  EXPECT_EQ(get_i64(f, 1), INT64_MAX);
  RTensor u = RTensor::alloc(kUint8, {1});
  set_f64(u, 0, 1000.0);
  EXPECT_EQ(u.data<uint8_t>()[0], 255);
}

TEST(CheckedArithmetic, OverflowIsALimitError) {
  EXPECT_EQ(checked_mul(1 << 20, 1 << 20), int64_t{1} << 40);
  EXPECT_EQ(checked_add(INT64_MAX - 1, 1), INT64_MAX);
  EXPECT_EQ(status_of([] { checked_mul(int64_t{1} << 32, int64_t{1} << 32); }), Status::kLimit);
  EXPECT_EQ(status_of([] { checked_add(INT64_MAX, 1); }), Status::kLimit);
  EXPECT_EQ(shape_numel({2, 3, 4}), 24);
  EXPECT_EQ(shape_numel({}), 1);
  EXPECT_EQ(shape_numel({0, INT64_MAX}), 0);
  EXPECT_EQ(status_of([] { shape_numel({INT64_MAX / 2, 3}); }), Status::kLimit);
}

TEST(TensorBudget, AllocationsOverTheLimitFail) {
  EXPECT_EQ(max_tensor_bytes(), default_max_tensor_bytes());
  // In 64 bits: 4 GiB is 0 in a 32-bit size_t. There the default is also at most half the
  // address space.
  EXPECT_LE(uint64_t{default_max_tensor_bytes()}, uint64_t{4} << 30);
  EXPECT_LE(default_max_tensor_bytes(), SIZE_MAX / 2);
  EXPECT_GT(default_max_tensor_bytes(), size_t{0});
  {
    TensorBudgetScope budget(1024);
    EXPECT_EQ(max_tensor_bytes(), 1024u);
    EXPECT_EQ(RTensor::alloc(kFloat, {256}).nbytes(), 1024u);  // exactly the limit is fine
    std::string msg;
    EXPECT_EQ(status_of([] { RTensor::alloc(kFloat, {257}); }, &msg), Status::kLimit);
    EXPECT_NE(msg.find("1028 bytes"), std::string::npos) << msg;
    EXPECT_NE(msg.find("run.max_tensor_bytes"), std::string::npos) << msg;
    {
      TensorBudgetScope inner(0);  // 0: the default again
      EXPECT_EQ(max_tensor_bytes(), default_max_tensor_bytes());
    }
    EXPECT_EQ(max_tensor_bytes(), 1024u);
  }
  EXPECT_EQ(max_tensor_bytes(), default_max_tensor_bytes());
  // Sizes whose byte count does not fit at all, and negative dims.
  EXPECT_EQ(status_of([] { RTensor::alloc(kDouble, {int64_t{1} << 61}); }), Status::kLimit);
  EXPECT_EQ(status_of([] { RTensor::alloc(kFloat, {2, -1}); }), Status::kInvalidModel);
  EXPECT_EQ(check_tensor_bytes(10, 8, "x"), 80u);
}

TEST(OpCtxChecks, IndexAndSizeHelpers) {
  auto m = new_model(17);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {2});
  b.output(b.op("Identity", {x}));
  Interpreter interp(*m);
  OpCtx c{interp, *m, *m->graph->first, 17, {}, {}, nullptr};
  RValue v = RValue::tensor(RTensor::alloc(kFloat, {2, 3}));
  c.in = {&v, nullptr};
  EXPECT_EQ(c.index(-1, 5, "index"), 4);
  EXPECT_EQ(c.index(4, 5, "index"), 4);
  std::string msg;
  EXPECT_EQ(status_of([&] { c.index(5, 5, "index"); }, &msg), Status::kInvalidModel);
  EXPECT_NE(msg.find("index 5 is out of range [-5, 5)"), std::string::npos) << msg;
  EXPECT_EQ(status_of([&] { c.index(-6, 5, "index"); }), Status::kInvalidModel);
  EXPECT_EQ(c.size_value(7, "size", 7), 7);
  EXPECT_EQ(status_of([&] { c.size_value(-1, "size"); }), Status::kInvalidModel);
  EXPECT_EQ(c.t_rank(0, 2).rank(), 2);
  EXPECT_EQ(status_of([&] { c.t_rank(0, 3, 4); }, &msg), Status::kInvalidModel);
  EXPECT_NE(msg.find("must have rank 3..4, got shape [2,3]"), std::string::npos) << msg;
  EXPECT_EQ(status_of([&] { c.t_dims(0, {3, 2}); }), Status::kInvalidModel);
  EXPECT_EQ(status_of([&] { c.t_numel(0, 7); }), Status::kInvalidModel);
  EXPECT_EQ(status_of([&] { c.require_inputs(2); }), Status::kInvalidModel);
  EXPECT_EQ(status_of([&] { c.t(1); }), Status::kInvalidModel);
}

TEST_F(OpValidation, GatherIndexOutOfRangeNamesTheNode) {
  Value* data = b.initializer("data", {3}, {1, 2, 3});
  Value* idx = b.input("idx", kInt64, {1});
  b.output(b.op("GatherElements", {data, idx}));
  Interpreter interp(*m);
  std::string msg;
  EXPECT_EQ(status_of([&] { interp.run({{"idx", i64_tensor({1}, {3})}}); }, &msg), Status::kInvalidModel);
  EXPECT_NE(msg.find("op GatherElements"), std::string::npos) << msg;
  EXPECT_NE(msg.find("index 3 is out of range"), std::string::npos) << msg;
  auto out = interp.run({{"idx", i64_tensor({1}, {-1})}});
  EXPECT_EQ(get_f64(out[0].t, 0), 3.0);
}

TEST_F(OpValidation, DataDrivenSizesAreBudgeted) {
  Value* shape = b.input("shape", kInt64, {2});
  b.output(b.op("ConstantOfShape", {shape}));
  Interpreter interp(*m);
  {
    TensorBudgetScope budget(1 << 20);
    std::string msg;
    EXPECT_EQ(status_of([&] { interp.run({{"shape", i64_tensor({2}, {1024, 1024})}}); }, &msg), Status::kLimit);
    EXPECT_NE(msg.find("op ConstantOfShape"), std::string::npos) << msg;
    auto out = interp.run({{"shape", i64_tensor({2}, {256, 1024})}});
    EXPECT_EQ(out[0].t.numel(), 256 * 1024);
  }
  // Dims whose product overflows are a limit error too, not a wrapped size.
  EXPECT_EQ(status_of([&] { interp.run({{"shape", i64_tensor({2}, {int64_t{1} << 40, int64_t{1} << 40})}}); }),
            Status::kLimit);
  EXPECT_EQ(status_of([&] { interp.run({{"shape", i64_tensor({2}, {-1, 4})}}); }), Status::kInvalidModel);
}

TEST_F(OpValidation, RangeWithNanOrZeroDeltaFailsCleanly) {
  Value* d = b.input("d", kFloat, {});
  b.output(b.op("Range", {b.constant("s", {}, {0.f}), b.constant("l", {}, {10.f}), d}));
  Interpreter interp(*m);
  auto run = [&](float v) {
    RTensor t = RTensor::alloc(kFloat, {});
    t.data<float>()[0] = v;
    return interp.run({{"d", RValue::tensor(t)}});
  };
  EXPECT_EQ(run(2.f)[0].t.numel(), 5);
  EXPECT_EQ(status_of([&] { run(0.f); }), Status::kLimit);  // 10 / 0 = inf elements
  EXPECT_EQ(run(std::nanf(""))[0].t.numel(), 0);           // NaN count -> 0
}

TEST(OptionsApi, MaxTensorBytes) {
  ofg_options* o = nullptr;
  ASSERT_EQ(ofg_options_create(&o), OFG_OK);
  EXPECT_EQ(ofg_options_set(o, "run.max_tensor_bytes", "1048576"), OFG_OK);
  EXPECT_EQ(ofg_options_set(o, "run.max_tensor_bytes", "0"), OFG_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ofg_options_set(o, "run.max_tensor_bytes", "1MB"), OFG_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ofg_options_set(o, "run.max_tensor_bytes", ""), OFG_ERR_INVALID_ARGUMENT);
  ofg_options_free(o);
}
