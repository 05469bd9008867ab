// Pass rollback and ofg_model_clone copy a model without a save/parse round trip (src/ir/snapshot.h);
// this measures both against that round trip, on the same model in the same run.
//   bench_snapshot [--benchmark_repetitions=5] MODEL
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "ir/snapshot.h"
#include "onnx/serialize.h"
#include "passes/pipeline.h"

namespace {

std::unique_ptr<ofg::Model> g_model;  // loaded and optimized once (computed weights pending)

// What rollback did before: serialize the model and parse the bytes again.
void BM_SaveParseRoundTrip(benchmark::State& state) {
  for (auto _ : state) {
    ofg::MallocBuffer b = ofg::save_model_memory(*g_model);
    ofg::LoadOptions lo;
    lo.copy_buffer = true;
    auto copy = ofg::load_model_memory(b.data(), b.size(), lo);
    benchmark::DoNotOptimize(copy.get());
  }
}

// Rollback now: the structure is copied, the bytes are shared.
void BM_Snapshot(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(ofg::snapshot_model(*g_model).get());
}

// ofg_model_clone: independent of the original (own bytes copied, computed weights computed).
void BM_CopyModel(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(ofg::copy_model(*g_model).get());
}

BENCHMARK(BM_SaveParseRoundTrip)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Snapshot)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CopyModel)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_snapshot [benchmark flags] MODEL\n");
    return 2;
  }
  g_model = ofg::load_model_file(argv[1], ofg::LoadOptions{});
  ofg::passes::optimize(g_model, ofg::passes::PipelineOptions{});
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
