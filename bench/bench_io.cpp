// Load and save against the floor of plain file I/O on the same bytes, in the same run.
//   bench_io [--benchmark_repetitions=10] MODEL? (default: the largest model of the shared data)
// Ratios are computed from the medians by bench/io_ratios.py.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "ofg_onnx.pb.h"
#include "onnx/serialize.h"

namespace {

std::string g_model;
std::string g_out;

std::vector<char> read_all(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY);
  struct stat st;
  fstat(fd, &st);
  std::vector<char> buf(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < buf.size()) {
    ssize_t n = read(fd, buf.data() + got, buf.size() - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  close(fd);
  return buf;
}

void write_all(const std::string& path, const char* data, size_t size) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n <= 0) break;
    data += n;
    size -= static_cast<size_t>(n);
  }
  close(fd);  // no fsync: onnxforge's save does not fsync either unless asked (save.durable)
}

// Floor: read the file into memory.
void BM_ReadFile(benchmark::State& state) {
  for (auto _ : state) {
    std::vector<char> b = read_all(g_model);
    benchmark::DoNotOptimize(b.data());
  }
}

// Reference: what a full protobuf-lite parse of in-memory bytes costs (copies every tensor).
void BM_ProtobufLiteParse(benchmark::State& state) {
  std::vector<char> b = read_all(g_model);
  for (auto _ : state) {
    ofg_onnx::ModelProto m;
    m.ParseFromArray(b.data(), static_cast<int>(b.size()));
    benchmark::DoNotOptimize(&m);
  }
}

void BM_Load(benchmark::State& state) {
  for (auto _ : state) {
    auto m = ofg::load_model_file(g_model, {});
    benchmark::DoNotOptimize(m.get());
  }
}

// Load, then read one byte of every page of every initializer: what a consumer that uses all
// the weights pays on top of the (lazy) mapped load.
void BM_LoadTouchWeights(benchmark::State& state) {
  for (auto _ : state) {
    auto m = ofg::load_model_file(g_model, {});
    unsigned sum = 0;
    for (ofg::Value* v : m->graph->initializers) {
      const ofg::Bytes& d = v->initializer->data;
      for (size_t i = 0; i < d.size; i += 4096) sum += d.data[i];
    }
    benchmark::DoNotOptimize(sum);
  }
}

// Floor: read the file and write the same bytes.
void BM_ReadWrite(benchmark::State& state) {
  for (auto _ : state) {
    std::vector<char> b = read_all(g_model);
    write_all(g_out, b.data(), b.size());
  }
}

void BM_LoadSave(benchmark::State& state) {
  for (auto _ : state) {
    auto m = ofg::load_model_file(g_model, {});
    ofg::save_model_file(*m, g_out, {});
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (argc > 1) g_model = argv[1];
  if (g_model.empty()) {
    const char* data = std::getenv("ONNXFORGE_DATA");
    g_model = std::string(data && *data ? data : OFG_SOURCE_DIR "/../shared") + "/models/resnet18_dirty/model.onnx";
  }
  if (access(g_model.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "bench_io: no model at %s (give a path or set ONNXFORGE_DATA)\n", g_model.c_str());
    return 2;
  }
  char tmpl[] = "/tmp/ofg-bench-XXXXXX";
  g_out = std::string(mkdtemp(tmpl)) + "/out.onnx";
  benchmark::RegisterBenchmark("ReadFile", BM_ReadFile)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("Load", BM_Load)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("LoadTouchWeights", BM_LoadTouchWeights)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("ProtobufLiteParse", BM_ProtobufLiteParse)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("ReadWrite", BM_ReadWrite)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("LoadSave", BM_LoadSave)->Unit(benchmark::kMillisecond);
  benchmark::RunSpecifiedBenchmarks();
  unlink(g_out.c_str());
  rmdir(tmpl);
  return 0;
}
