// ofg_modelgen: differential testing of the optimizer on random valid models.
//
// Each seed gives one random model (tests/fuzz/modelgen.cpp). The model is loaded through the
// public API, optimized with the default pipeline, verified against the unoptimized model (two
// input sets each with the symbolic batch dim N = 2 and N = 3; verify's default tolerances),
// saved to memory, reloaded and verified again. Any difference or error is printed with its seed.
// One seed in four also runs the opt-in fuse_conv_relu, one in four first fixes N = 3 through
// optimize.input_shapes (then verifies at N = 3 only).
//
//   ofg_modelgen --seeds 0 2000         seeds [0, 2000) (what ctest runs: modelgen_seeds, a few s)
//   ofg_modelgen --seconds 60           as many seeds as fit in 60 s, starting at --start (CI smoke)
//   ofg_modelgen --seconds 3600 --start 100000 --blame --save-failing FAILDIR
//                                       a long run: name the first pass that breaks each failing
//                                       model and write it (unoptimized) as seed_N.onnx
//   ofg_modelgen --seed 1234 --write m.onnx --blame -v --dump
//                                       replay one seed: write its model, print its nodes and
//                                       recipes
//
//   ofg_modelgen --load FAILDIR/seed_N.onnx --seed N --blame --dump
//                                       recheck a saved model (seeds depend on the generator's
//                                       version: a saved file replays across versions)
//
// Long runs: pick a --start far from the ranges already run (tests/fuzz/MODELGEN.md keeps the
// log) so new seeds are explored; a single core does roughly 600-1000 models per second in Release.
// Exit status: 0 when every model passed, 1 when any failed, 2 on bad arguments.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>

#include "fuzz/modelgen.h"
#include "onnx/serialize.h"

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: ofg_modelgen [--seeds A B | --seed S | --seconds T [--start A]] [--blame] [-v] [--dump] [--stats] [--trace]\n"
               "                    [--save-failing DIR] [--write FILE] [--load FILE] [--max-steps K]\n");
  return 2;
}

// The target an option's name selects in a table of (name, target), or null.
template <class T, size_t N>
T* named(const std::pair<const char*, T*> (&table)[N], const std::string& name) {
  for (const auto& e : table)
    if (name == e.first) return e.second;
  return nullptr;
}

bool write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t first = 0, last = 100;
  double seconds = 0;
  bool verbose = false, dump = false, stats = false, trace = false;
  std::map<std::string, std::pair<size_t, size_t>> ops;  // op -> count before, after optimization
  std::string save_dir, write_path, load_path;
  ofg::modelgen::GenOptions gen;
  ofg::modelgen::CheckOptions check;
  // The options that set a flag and those that take a path.
  const std::pair<const char*, bool*> flags[] = {
      {"--blame", &check.blame}, {"-v", &verbose}, {"--trace", &trace}, {"--stats", &stats}, {"--dump", &dump}};
  const std::pair<const char*, std::string*> paths[] = {
      {"--save-failing", &save_dir}, {"--load", &load_path}, {"--write", &write_path}};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--seeds") {
      const char* x = next();
      const char* y = next();
      if (!x || !y) return usage();
      first = std::strtoull(x, nullptr, 10);
      last = std::strtoull(y, nullptr, 10);
    } else if (a == "--seed") {
      if (!(v = next())) return usage();
      first = std::strtoull(v, nullptr, 10);
      last = first + 1;
    } else if (a == "--seconds") {
      if (!(v = next())) return usage();
      seconds = std::atof(v);
      last = UINT64_MAX;
    } else if (a == "--start") {
      if (!(v = next())) return usage();
      first = std::strtoull(v, nullptr, 10);
    } else if (bool* flag = named(flags, a)) {
      *flag = true;
    } else if (std::string* path = named(paths, a)) {
      if (!(v = next())) return usage();
      *path = v;
    } else if (a == "--max-steps") {
      if (!(v = next())) return usage();
      gen.max_steps = std::atoi(v);
      if (gen.max_steps < gen.min_steps) gen.min_steps = gen.max_steps;
    } else {
      return usage();
    }
  }
  auto t0 = std::chrono::steady_clock::now();
  uint64_t models = 0, failures = 0;
  int64_t nodes_before = 0, nodes_after = 0;
  for (uint64_t seed = first; seed < last; ++seed) {
    if (seconds > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >= seconds)
      break;
    if (trace) std::fprintf(stderr, "seed %llu\n", static_cast<unsigned long long>(seed));  // names a seed that crashes
    ofg::modelgen::Generated g;
    std::vector<uint8_t> bytes;
    if (!load_path.empty()) {
      // A saved model (e.g. from --save-failing) checked as seed `first` would be.
      FILE* f = std::fopen(load_path.c_str(), "rb");
      if (!f) return usage();
      int c;
      while ((c = std::fgetc(f)) != EOF) bytes.push_back(static_cast<uint8_t>(c));
      std::fclose(f);
      g.model = ofg::load_model_memory(bytes.data(), bytes.size(), ofg::LoadOptions{});
      g.recipes = load_path;
      last = seed + 1;
    } else {
      g = ofg::modelgen::generate(seed, gen);
      bytes = ofg::modelgen::serialize(*g.model);
    }
    if (dump) std::printf("%s", ofg::modelgen::dump(*g.model).c_str());
    if (!write_path.empty() && !write_file(write_path, bytes))
      std::fprintf(stderr, "cannot write %s\n", write_path.c_str());
    ofg::modelgen::CheckOptions variant = ofg::modelgen::variant_for(seed, *g.model, check);
    ofg::modelgen::CheckResult r = ofg::modelgen::check_model(bytes, variant);
    ++models;
    for (const auto& e : r.ops_before) ops[e.first].first += e.second;
    for (const auto& e : r.ops_after) ops[e.first].second += e.second;
    nodes_before += r.nodes_before;
    nodes_after += r.nodes_after;
    if (verbose || !r.ok)
      std::printf("seed %llu: %s  nodes %lld -> %lld  check %s  recipes: %s\n", static_cast<unsigned long long>(seed),
                  r.ok ? "ok" : "FAIL", static_cast<long long>(r.nodes_before), static_cast<long long>(r.nodes_after),
                  ofg::modelgen::variant_name(variant), g.recipes.c_str());
    if (!r.ok) {
      ++failures;
      std::printf("  stage %s: %s\n", r.stage.c_str(), r.message.c_str());
      if (!r.blame.empty()) std::printf("  first failing pass: %s\n", r.blame.c_str());
      if (!save_dir.empty()) {
        std::string path = save_dir + "/seed_" + std::to_string(seed) + ".onnx";
        if (write_file(path, bytes)) std::printf("  model written to %s\n", path.c_str());
      }
      std::fflush(stdout);
    }
  }
  if (stats)
    for (const auto& e : ops) std::printf("  %-36s %8zu -> %8zu\n", e.first.c_str(), e.second.first, e.second.second);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("modelgen: %llu models (seeds from %llu), %llu failed, nodes %lld -> %lld after optimization, %.1f s\n",
              static_cast<unsigned long long>(models), static_cast<unsigned long long>(first),
              static_cast<unsigned long long>(failures), static_cast<long long>(nodes_before),
              static_cast<long long>(nodes_after), secs);
  return failures ? 1 : 0;
}
