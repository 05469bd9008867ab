// optimize.verify_each_pass: every class 1/2 pass is checked by execution and rolled back when
// the outputs drift beyond the verify tolerances.
#include <gtest/gtest.h>

#include <string>

#include "onnxforge.h"

namespace {

struct PipelineRun {
  int rolled_back = 0;
  std::string rolled_back_names;
  size_t batchnorms_left = 0;
};

PipelineRun optimize_demo(const char* atol, const char* rtol) {
  PipelineRun r;
  ofg_model* m = nullptr;
  EXPECT_EQ(ofg_model_create_demo(&m), OFG_OK);
  ofg_options* o = nullptr;
  EXPECT_EQ(ofg_options_create(&o), OFG_OK);
  EXPECT_EQ(ofg_options_set(o, "optimize.verify_each_pass", "1"), OFG_OK);
  EXPECT_EQ(ofg_options_set(o, "verify.atol", atol), OFG_OK);
  EXPECT_EQ(ofg_options_set(o, "verify.rtol", rtol), OFG_OK);
  ofg_pass_report* rep = nullptr;
  EXPECT_EQ(ofg_optimize(m, o, &rep), OFG_OK) << ofg_last_error();
  size_t n = 0;
  ofg_pass_report_count(rep, &n);
  for (size_t i = 0; i < n; ++i) {
    ofg_pass_entry e{};
    e.struct_size = sizeof e;
    EXPECT_EQ(ofg_pass_report_entry(rep, i, &e), OFG_OK);
    if (e.rolled_back) {
      ++r.rolled_back;
      r.rolled_back_names += std::string(e.name) + " ";
      EXPECT_NE(std::string(e.note).find("max abs diff"), std::string::npos) << e.note;
      EXPECT_GT(e.accuracy_class, 0);
    }
  }
  size_t entries = 0;
  ofg_model_op_histogram_count(m, &entries);
  for (size_t i = 0; i < entries; ++i) {
    const char *domain, *op;
    size_t count;
    ofg_model_op_histogram_entry(m, i, &domain, &op, &count);
    if (std::string(op) == "BatchNormalization") r.batchnorms_left = count;
  }
  // Whatever was kept still computes what the demo computes.
  ofg_model* reference = nullptr;
  EXPECT_EQ(ofg_model_create_demo(&reference), OFG_OK);
  ofg_report* vr = nullptr;
  EXPECT_EQ(ofg_verify(reference, m, nullptr, &vr), OFG_OK);
  int32_t passed = 0;
  ofg_report_passed(vr, &passed);
  EXPECT_EQ(passed, 1);
  ofg_report_free(vr);
  ofg_model_free(reference);
  ofg_pass_report_free(rep);
  ofg_options_free(o);
  ofg_model_free(m);
  return r;
}

TEST(VerifyEachPass, WithinToleranceNothingIsRolledBack) {
  PipelineRun r = optimize_demo("1e-4", "1e-3");
  EXPECT_EQ(r.rolled_back, 0) << r.rolled_back_names;
  EXPECT_EQ(r.batchnorms_left, 0u);
}

TEST(VerifyEachPass, ZeroToleranceRollsBackTheRoundingPasses) {
  // Folding BatchNormalization into Conv changes float rounding, so with no tolerance at all the
  // executed comparison must catch it and undo the fusion.
  PipelineRun r = optimize_demo("0", "0");
  EXPECT_GT(r.rolled_back, 0);
  EXPECT_NE(r.rolled_back_names.find("fuse_conv_batchnorm"), std::string::npos) << r.rolled_back_names;
  EXPECT_EQ(r.batchnorms_left, 2u);
}

TEST(VerifyEachPass, BadToleranceIsAnError) {
  ofg_model* m = nullptr;
  ASSERT_EQ(ofg_model_create_demo(&m), OFG_OK);
  ofg_options* o = nullptr;
  ASSERT_EQ(ofg_options_create(&o), OFG_OK);
  ASSERT_EQ(ofg_options_set(o, "optimize.verify_each_pass", "1"), OFG_OK);
  ofg_status s = ofg_options_set(o, "verify.atol", "abc");
  if (s == OFG_OK) {
    ofg_pass_report* rep = nullptr;
    EXPECT_EQ(ofg_optimize(m, o, &rep), OFG_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(ofg_last_error()).find("verify.atol"), std::string::npos) << ofg_last_error();
  } else {
    EXPECT_EQ(s, OFG_ERR_INVALID_ARGUMENT);
  }
  ofg_options_free(o);
  ofg_model_free(m);
}

}  // namespace
