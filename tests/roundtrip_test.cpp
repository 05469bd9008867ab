// Load -> save with no pass run gives back the same model: on the built-in demo, and on every
// model of the shared data (real architectures and the ONNX backend-test suites).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "ir/builder.h"
#include "ir/demo_model.h"
#include "ir/graph_ops.h"
#include "onnx/serialize.h"
#include "support/test_support.h"

using namespace ofg;

TEST(RoundTrip, DemoModelSavesLoadsAndSavesToTheSameBytes) {
  auto m = make_demo_model();
  ASSERT_EQ(check_consistency(*m), "");
  MallocBuffer first = save_model_memory(*m);
  auto again = load_model_memory(first.data(), first.size(), {});
  EXPECT_EQ(check_consistency(*again), "");
  MallocBuffer second = save_model_memory(*again);
  ASSERT_EQ(first.size(), second.size());
  EXPECT_EQ(0, std::memcmp(first.data(), second.data(), first.size()));
  EXPECT_EQ(again->graph->node_count, m->graph->node_count);
  EXPECT_EQ(again->graph->initializers.size, m->graph->initializers.size);
}

// ---------------------------------------------------------------- the shared data
#include <dirent.h>

#include "ofg_onnx.pb.h"

namespace {

std::vector<std::string> model_files(const std::string& suite_dir, bool flat) {
  std::vector<std::string> out;
  if (flat) {
    DIR* d = opendir(suite_dir.c_str());
    if (!d) return out;
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 5 && n.compare(n.size() - 5, 5, ".onnx") == 0) out.push_back(suite_dir + "/" + n);
    }
    closedir(d);
    std::sort(out.begin(), out.end());
    return out;
  }
  for (const std::string& f : ofg::test::folders_with(suite_dir, "model.onnx")) out.push_back(f + "/model.onnx");
  return out;
}

struct Suite {
  const char* name;
  const char* folder;  // below the data folder
  bool flat;           // models directly in the folder (the light suite)
};

class LosslessRoundTrip : public ::testing::TestWithParam<Suite> {};

TEST_P(LosslessRoundTrip, EveryModelSavesToAnEqualModelProto) {
  std::string data = ofg::test::data_dir();
  if (data.empty()) GTEST_SKIP() << "no data folder (set ONNXFORGE_DATA): round trip of the shared models not run";
  const Suite& suite = GetParam();
  std::vector<std::string> files = model_files(data + "/" + suite.folder, suite.flat);
  if (files.empty()) GTEST_SKIP() << "no models in " << suite.folder;
  size_t identical = 0, equal = 0;
  std::vector<std::string> failures;
  for (const std::string& path : files) {
    std::vector<uint8_t> original = ofg::test::read_file(path);
    std::unique_ptr<Model> m;
    try {
      m = load_model_file(path, {});
    } catch (const std::exception& e) {
      failures.push_back(path + ": load failed: " + e.what());
      continue;
    }
    std::string consistency = check_consistency(*m);
    if (!consistency.empty()) failures.push_back(path + ": inconsistent IR after load: " + consistency);
    MallocBuffer saved = save_model_memory(*m);
    if (saved.size() == original.size() && std::memcmp(saved.data(), original.data(), saved.size()) == 0) {
      ++identical;
      continue;
    }
    // Not the same bytes: the same message field by field? (protobuf-lite parses both; equal
    // messages serialize to equal bytes, unknown fields included.)
    ofg_onnx::ModelProto a, b;
    bool pa = a.ParseFromArray(original.data(), static_cast<int>(original.size()));
    bool pb = b.ParseFromArray(saved.data(), static_cast<int>(saved.size()));
    if (pa && pb && a.SerializeAsString() == b.SerializeAsString()) ++equal;
    else failures.push_back(path + ": saved model differs from the original (" + std::to_string(original.size()) +
                            " -> " + std::to_string(saved.size()) + " bytes)");
  }
  std::printf("[ round trip ] %s: %zu models, %zu byte-identical, %zu equal field by field, %zu failed\n", suite.name,
              files.size(), identical, equal, failures.size());
  for (size_t i = 0; i < failures.size() && i < 20; ++i) ADD_FAILURE() << failures[i];
  EXPECT_TRUE(failures.empty()) << failures.size() << " models did not round-trip";
}

INSTANTIATE_TEST_SUITE_P(SharedData, LosslessRoundTrip,
                         ::testing::Values(Suite{"models", "models", false},
                                           Suite{"node", "onnx-backend-tests/node", false},
                                           Suite{"pytorch_converted", "onnx-backend-tests/pytorch-converted", false},
                                           Suite{"pytorch_operator", "onnx-backend-tests/pytorch-operator", false},
                                           Suite{"simple", "onnx-backend-tests/simple", false},
                                           Suite{"light", "onnx-backend-tests/light", true}),
                         [](const ::testing::TestParamInfo<Suite>& info) { return std::string(info.param.name); });

}  // namespace
