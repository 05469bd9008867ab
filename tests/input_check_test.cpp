// Given inputs are checked at the door (src/exec/input_check.h): through every C ABI entry that
// takes them (ofg_run, ofg_run_values, ofg_verify with verify.input.NAME or verify.test_data), a
// tensor whose element type, rank or fixed size contradicts the declared input is
// OFG_ERR_INVALID_ARGUMENT naming the input and both types, never an error of the first node
// that trips over it ("shapes cannot be broadcast ... (invalid model)", issue 20 defect 7).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "onnx/serialize.h"
#include "onnxforge.h"
#include "support/options_support.h"
#include "support/test_support.h"

namespace ofg {
namespace {

// y = x + b with x declared float32[1,3,4,4] (fixed), and z = Add(p, q) with p[N,2], q[N,2]:
// a symbol shared by two inputs. Loaded through the C ABI like a user's file.
ofg_model* load_add_model() {
  auto m = new_model(13);
  GraphBuilder b(*m);
  Value* x = b.input("x", kFloat, {1, 3, 4, 4});
  Value* bias = b.initializer("b", {1, 3, 4, 4}, std::vector<float>(48, 1.0f));
  b.output(b.op("Add", {x, bias}, {}, "y"));
  Value* p = b.input("p", kFloat, {"N", 2});
  Value* q = b.input("q", kFloat, {"N", 2});
  b.output(b.op("Add", {p, q}, {}, "z"));
  MallocBuffer bytes = save_model_memory(*m);
  // The buffer is freed on return: the model must hold its own copy.
  ofg_options* copy = ofg::test::options_with({{"load.copy_buffer", "1"}});
  ofg_model* out = nullptr;
  EXPECT_EQ(ofg_load_from_memory(bytes.data(), bytes.size(), copy, &out), OFG_OK) << ofg_last_error();
  ofg_options_free(copy);
  return out;
}

ofg_tensor* floats(std::vector<int64_t> dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  std::vector<float> v(n, 0.5f);
  ofg_tensor* t = nullptr;
  EXPECT_EQ(ofg_tensor_create(1, dims.data(), dims.size(), v.data(), n * sizeof(float), &t), OFG_OK);
  return t;
}

// ofg_run with the named tensors (taken over: freed here); the status, the message in `error`.
ofg_status run(ofg_model* m, std::vector<std::pair<const char*, ofg_tensor*>> given, std::string* error) {
  std::vector<const char*> names;
  std::vector<ofg_tensor*> values;
  for (auto& [n, t] : given) {
    names.push_back(n);
    values.push_back(t);
  }
  size_t n_out = 0;
  ofg_tensor** outs = nullptr;
  ofg_status s = ofg_run(m, nullptr, values.size(), names.data(), values.data(), &n_out, &outs);
  *error = s == OFG_OK ? "" : ofg_last_error();
  if (s == OFG_OK) ofg_tensors_free(outs, n_out);
  for (ofg_tensor* t : values) ofg_tensor_free(t);
  return s;
}

TEST(InputCheck, RunRefusesAShapeThatContradictsTheDeclaredInput) {
  ofg_model* m = load_add_model();
  ASSERT_NE(m, nullptr);
  std::string error;
  // The defect-7 case: a rank-3 tensor for a rank-4 input of an Add.
  EXPECT_EQ(run(m, {{"x", floats({1, 3, 5})}, {"p", floats({2, 2})}, {"q", floats({2, 2})}}, &error),
            OFG_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(error, "input 'x': given float32[1,3,5] but the model declares float32[1,3,4,4]");
  EXPECT_EQ(error.find("broadcast"), std::string::npos);
  // A fixed dim of another size.
  EXPECT_EQ(run(m, {{"x", floats({1, 3, 4, 5})}, {"p", floats({2, 2})}, {"q", floats({2, 2})}}, &error),
            OFG_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(error, "input 'x': given float32[1,3,4,5] but the model declares float32[1,3,4,4]");
  // Another element type.
  {
    std::vector<int64_t> dims = {1, 3, 4, 4};
    std::vector<int64_t> v(48, 1);
    ofg_tensor* t = nullptr;
    ASSERT_EQ(ofg_tensor_create(7, dims.data(), dims.size(), v.data(), v.size() * 8, &t), OFG_OK);
    EXPECT_EQ(run(m, {{"x", t}, {"p", floats({2, 2})}, {"q", floats({2, 2})}}, &error), OFG_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(error, "input 'x': given int64[1,3,4,4] but the model declares float32[1,3,4,4]");
  }
  // Symbolic dims take any size, but one size per symbol across the inputs.
  EXPECT_EQ(run(m, {{"x", floats({1, 3, 4, 4})}, {"p", floats({5, 2})}, {"q", floats({5, 2})}}, &error), OFG_OK)
      << error;
  EXPECT_EQ(run(m, {{"x", floats({1, 3, 4, 4})}, {"p", floats({5, 2})}, {"q", floats({1, 2})}}, &error),
            OFG_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(error,
            "input 'q': given float32[1,2] but input 'p' is given float32[5,2], and the model names both sizes 'N' "
            "(p float32[N,2], q float32[N,2])");
  // An unknown name lists the inputs there are.
  EXPECT_EQ(run(m, {{"xx", floats({1, 3, 4, 4})}}, &error), OFG_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(error, "the model has no input named 'xx' (its inputs: x, p, q)");
  ofg_model_free(m);
}

TEST(InputCheck, RunValuesAndVerifyUseTheSameCheck) {
  ofg_model* m = load_add_model();
  ASSERT_NE(m, nullptr);
  // ofg_run_values: a tensor value of the wrong shape.
  ofg_tensor* bad = floats({1, 3, 5});
  ofg_value* v = nullptr;
  ASSERT_EQ(ofg_value_from_tensor(bad, &v), OFG_OK) << ofg_last_error();
  ofg_tensor_free(bad);
  const char* name = "x";
  size_t n_out = 0;
  ofg_value** outs = nullptr;
  EXPECT_EQ(ofg_run_values(m, nullptr, 1, &name, &v, &n_out, &outs), OFG_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ofg_last_error(), "input 'x': given float32[1,3,5] but the model declares float32[1,3,4,4]");
  ofg_value_free(v);

  // ofg_verify with verify.input.x from a file: the message names the file.
  const std::string path = test::temp_dir() + "/x_bad.pb";
  ofg_tensor* t = floats({1, 3, 5});
  void* data = nullptr;
  size_t size = 0;
  ASSERT_EQ(ofg_tensor_save_pb(t, "x", &data, &size), OFG_OK);
  test::write_file(path, std::vector<uint8_t>(static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + size));
  ofg_buffer_free(data);
  ofg_tensor_free(t);
  ofg_options* o = nullptr;
  ASSERT_EQ(ofg_options_create(&o), OFG_OK);
  ASSERT_EQ(ofg_options_set(o, "verify.input.x", path.c_str()), OFG_OK);
  ofg_report* r = nullptr;
  EXPECT_EQ(ofg_verify(m, m, o, &r), OFG_ERR_INVALID_ARGUMENT);
  const std::string error = ofg_last_error();
  EXPECT_NE(error.find(path + ": input 'x': given float32[1,3,5] but the model declares float32[1,3,4,4]"),
            std::string::npos)
      << error;
  EXPECT_EQ(error.find("broadcast"), std::string::npos) << error;
  ofg_report_free(r);
  // An unknown name in verify.input.NAME lists the model's inputs.
  ofg_options_free(o);
  ASSERT_EQ(ofg_options_create(&o), OFG_OK);
  ASSERT_EQ(ofg_options_set(o, "verify.input.nosuch", path.c_str()), OFG_OK);
  EXPECT_EQ(ofg_verify(m, m, o, &r), OFG_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ofg_last_error()).find("the model has no input 'nosuch' (its inputs: x, p, q)"), std::string::npos)
      << ofg_last_error();
  ofg_options_free(o);
  ofg_model_free(m);
}

}  // namespace
}  // namespace ofg
