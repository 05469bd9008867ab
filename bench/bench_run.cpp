// Times ofg_run on one model through the public C ABI, the way an application would call it:
// load once, read the inputs from .pb files, warm up, then time each run separately and report
// the median (the mean would be dragged by the noise of other jobs sharing the machine).
//
// usage: bench_run MODEL.onnx INPUT.pb [INPUT.pb ...] [--runs N] [--warmup N] [--threads N] [--json]
//                  [--hash-each-run]
// Inputs are bound to the graph inputs by the name stored in each .pb file.
// --threads sets the option run.threads; the default is 1, so figures are one-thread figures
// unless asked otherwise (0: the machine's cores). The output line also gives a hash of the
// output bytes, so runs with different thread counts can be checked to agree bit for bit.
// The outputs of the first and the last run are hashed (and must agree); those of the runs in
// between are freed unread, as they would be inside a model: reading them pulls every output line
// into the calling thread's cache, and with several threads the next run's workers then take
// each line back from that core (on the 2-core machine of 2026-11-29 a 0.06 ms MaxPool on two
// threads took 0.24 ms with each run's output hashed). --hash-each-run hashes every run's outputs,
// to measure that cost.
#include <onnxforge.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

// CPU time of this process: on a machine shared with other jobs it is close to what the wall
// time would be on an idle core, so it is reported next to the wall time.
double cpu_ms() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_run: %s\n", what.c_str());
  std::exit(2);
}

void check(ofg_status s, const char* what) {
  if (s != OFG_OK) die(std::string(what) + ": " + ofg_last_error());
}

std::vector<char> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) die("cannot open " + path);
  return std::vector<char>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// FNV-1a over every output's bytes, in order.
uint64_t hash_outputs(ofg_tensor* const* outs, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) {
    const auto* p = static_cast<const unsigned char*>(ofg_tensor_data(outs[i]));
    for (size_t k = 0, e = ofg_tensor_nbytes(outs[i]); k < e; ++k) h = (h ^ p[k]) * 0x100000001b3ull;
  }
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model_path;
  std::vector<std::string> input_paths;
  int runs = 10, warmup = 2;
  std::string threads = "1";
  bool json = false, hash_each_run = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) runs = std::atoi(argv[++i]);
    else if (a == "--warmup" && i + 1 < argc) warmup = std::atoi(argv[++i]);
    else if (a == "--threads" && i + 1 < argc) threads = argv[++i];
    else if (a == "--json") json = true;
    else if (a == "--hash-each-run") hash_each_run = true;
    else if (model_path.empty()) model_path = a;
    else input_paths.push_back(a);
  }
  if (model_path.empty() || input_paths.empty() || runs < 1)
    die("usage: bench_run MODEL.onnx INPUT.pb [INPUT.pb ...] [--runs N] [--warmup N] [--threads N] [--json]");

  ofg_options* options = nullptr;
  check(ofg_options_create(&options), "ofg_options_create");
  check(ofg_options_set(options, "run.threads", threads.c_str()), "--threads");
  ofg_model* model = nullptr;
  check(ofg_load(model_path.c_str(), nullptr, &model), "ofg_load");

  std::vector<ofg_tensor*> inputs;
  std::vector<std::string> names;
  for (const std::string& p : input_paths) {
    std::vector<char> bytes = read_file(p);
    ofg_tensor* t = nullptr;
    check(ofg_tensor_load_pb(bytes.data(), bytes.size(), &t), "ofg_tensor_load_pb");
    const char* name = ofg_tensor_name(t);
    if (!name || !*name) die(p + " has no tensor name to bind it to a graph input");
    inputs.push_back(t);
    names.push_back(name);
  }
  std::vector<const char*> name_ptrs;
  for (auto& n : names) name_ptrs.push_back(n.c_str());

  std::vector<double> ms, cpu;
  uint64_t output_hash = 0, first_hash = 0;
  auto run_once = [&](bool hash) {
    size_t n_out = 0;
    ofg_tensor** outs = nullptr;
    const double c0 = cpu_ms();
    auto t0 = std::chrono::steady_clock::now();
    check(ofg_run(model, options, inputs.size(), name_ptrs.data(), inputs.data(), &n_out, &outs), "ofg_run");
    auto t1 = std::chrono::steady_clock::now();
    const double c1 = cpu_ms();
    if (hash || hash_each_run) output_hash = hash_outputs(outs, n_out);
    ofg_tensors_free(outs, n_out);
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    cpu.push_back(c1 - c0);
  };

  for (int i = 0; i < warmup; ++i) {
    run_once(i == 0);
    if (i == 0) first_hash = output_hash;
  }
  ms.clear();
  cpu.clear();
  for (int i = 0; i < runs; ++i) {
    run_once((warmup == 0 && i == 0) || i + 1 == runs);
    if (warmup == 0 && i == 0) first_hash = output_hash;
  }
  if (output_hash != first_hash) die("the outputs of the first and the last run differ");
  const double median = median_of(ms), median_cpu = median_of(cpu);

  if (json) {
    std::printf("{\"median_ms\": %.4f, \"median_cpu_ms\": %.4f, \"threads\": \"%s\", \"outputs_fnv\": \"%016llx\", "
                "\"runs_ms\": [",
                median, median_cpu, threads.c_str(), static_cast<unsigned long long>(output_hash));
    for (size_t i = 0; i < ms.size(); ++i) std::printf("%s%.4f", i ? ", " : "", ms[i]);
    std::printf("]}\n");
  } else {
    std::printf("%s: median %.3f ms wall, %.3f ms cpu over %d runs (%d warm-up), threads %s, outputs %016llx\n",
                model_path.c_str(), median, median_cpu, runs, warmup, threads.c_str(),
                static_cast<unsigned long long>(output_hash));
  }
  for (ofg_tensor* t : inputs) ofg_tensor_free(t);
  ofg_model_free(model);
  ofg_options_free(options);
  return 0;
}
