// Replays saved fuzz inputs through the same call sequence the fuzz targets run
// (tests/fuzz/fuzz_sequence.h): the shared reproducers of the outside fuzzing run
// ($ONNXFORGE_DATA/fuzz-findings) and the project's own (tests/fuzz/regressions). One test per
// file, so under ctest (one process per test) a crash fails only the test of that input. A
// pass means: no crash and no sanitizer report; any status the library returns is accepted.
#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "fuzz/fuzz_sequence.h"
#include "support/test_support.h"

namespace {

struct Input {
  std::string dir, file;
};

std::vector<std::string> onnx_files(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > 5 && n.compare(n.size() - 5, 5, ".onnx") == 0) out.push_back(n);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::string shared_dir() {
  std::string data = ofg::test::data_dir();
  return data.empty() ? "" : data + "/fuzz-findings";
}
std::string regressions_dir() { return std::string(OFG_SOURCE_DIR) + "/tests/fuzz/regressions"; }

std::vector<Input> all_inputs() {
  std::vector<Input> v;
  std::string shared = shared_dir();
  if (!shared.empty())
    for (auto& f : onnx_files(shared)) v.push_back({shared, f});
  for (auto& f : onnx_files(regressions_dir())) v.push_back({regressions_dir(), f});
  return v;
}

// gtest names allow only [A-Za-z0-9_].
std::string test_name(const testing::TestParamInfo<Input>& info) {
  std::string n = (info.param.dir == regressions_dir() ? "own_" : "shared_") + info.param.file;
  n.resize(n.size() - 5);
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

class FuzzFinding : public testing::TestWithParam<Input> {};

TEST_P(FuzzFinding, RunsWithoutCrash) {
  std::vector<uint8_t> bytes = ofg::test::read_file(GetParam().dir + "/" + GetParam().file);
  ofg_fuzz::run_sequence(bytes.data(), bytes.size(), ofg_fuzz::kAll);
  SUCCEED();
}

INSTANTIATE_TEST_SUITE_P(Inputs, FuzzFinding, testing::ValuesIn(all_inputs()), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FuzzFinding);

TEST(FuzzFindings, SharedReproducersPresent) {
  if (shared_dir().empty() || onnx_files(shared_dir()).empty())
    GTEST_SKIP() << "no fuzz-findings folder in the data folder (set ONNXFORGE_DATA): shared reproducers not run";
  EXPECT_GT(onnx_files(shared_dir()).size(), 0u);
}

}  // namespace
