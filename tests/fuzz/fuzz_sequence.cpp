#include "fuzz_sequence.h"

#include <cstdio>
#include <cstdlib>
#include <initializer_list>

#include "onnxforge.h"

namespace ofg_fuzz {
namespace {

// Verification executes both models; keep it to inputs the fuzzer can run thousands of per second.
constexpr size_t kMaxVerifyNodes = 64;

void query(const ofg_model* m) {
  int64_t ir = 0;
  ofg_model_ir_version(m, &ir);
  const char *pn = nullptr, *pv = nullptr;
  ofg_model_producer(m, &pn, &pv);
  size_t n = 0;
  ofg_model_opset_count(m, &n);
  for (size_t i = 0; i < n; ++i) {
    const char* d = nullptr;
    int64_t v = 0;
    ofg_model_opset(m, i, &d, &v);
  }
  for (int32_t kind : {OFG_INPUT, OFG_OUTPUT}) {
    size_t count = 0;
    ofg_model_io_count(m, kind, &count);
    for (size_t i = 0; i < count; ++i) {
      ofg_value_desc d{};
      d.struct_size = sizeof d;
      if (ofg_model_io(m, kind, i, &d) != OFG_OK) continue;
      for (int32_t k = 0; k < d.rank; ++k) {
        int64_t value = 0;
        const char* sym = nullptr;
        ofg_model_io_dim(m, kind, i, static_cast<size_t>(k), &value, &sym);
      }
    }
  }
  size_t nodes = 0, hist = 0, inits = 0;
  uint64_t bytes = 0;
  ofg_model_node_count(m, 1, &nodes);
  ofg_model_op_histogram_count(m, &hist);
  for (size_t i = 0; i < hist; ++i) {
    const char *d = nullptr, *op = nullptr;
    size_t c = 0;
    ofg_model_op_histogram_entry(m, i, &d, &op, &c);
  }
  ofg_model_initializer_stats(m, &inits, &bytes);
}

constexpr int64_t kMaxVerifyInputElements = 65536;

// At most kMaxVerifyNodes nodes and inputs of at most kMaxVerifyInputElements elements each
// (dims that are not fixed counted as 2, verification's default).
bool small_enough_to_run(const ofg_model* m) {
  size_t nodes = 0, inputs = 0;
  if (ofg_model_node_count(m, 1, &nodes) != OFG_OK || nodes > kMaxVerifyNodes) return false;
  if (ofg_model_io_count(m, OFG_INPUT, &inputs) != OFG_OK) return false;
  for (size_t i = 0; i < inputs; ++i) {
    ofg_value_desc d{};
    d.struct_size = sizeof d;
    if (ofg_model_io(m, OFG_INPUT, i, &d) != OFG_OK) return false;
    int64_t elements = 1;
    for (int32_t k = 0; k < d.rank; ++k) {
      int64_t v = -1;
      if (ofg_model_io_dim(m, OFG_INPUT, i, static_cast<size_t>(k), &v, nullptr) != OFG_OK) return false;
      if (v < 0) v = 2;
      if (v > kMaxVerifyInputElements) return false;
      elements *= v;
      if (elements > kMaxVerifyInputElements) return false;
    }
  }
  return true;
}

}  // namespace

void run_sequence(const uint8_t* data, size_t size, unsigned steps) {
  ofg_options* o = nullptr;
  if (ofg_options_create(&o) != OFG_OK) std::abort();
  ofg_options_set(o, "load.copy_buffer", "1");
  ofg_options_set(o, "optimize.max_iterations", "4");
  ofg_options_set(o, "verify.samples", "1");
  // Tensors an input asks for stay well under libFuzzer's malloc limit (2 GB by default): a
  // larger request is the library's OFG_ERR_LIMIT, not an out-of-memory report.
  ofg_options_set(o, "run.max_tensor_bytes", "268435456");
  ofg_model* original = nullptr;
  if (ofg_load_from_memory(data, size, o, &original) != OFG_OK) {
    ofg_options_free(o);
    return;
  }
  query(original);
  ofg_model* reloaded = nullptr;
  if (steps & kOptimize) {
    ofg_model* work = nullptr;
    void* bytes = nullptr;
    size_t n = 0;
    // A second copy to optimize, so that verify can compare against the untouched original.
    if (ofg_load_from_memory(data, size, o, &work) == OFG_OK && ofg_optimize(work, o, nullptr) == OFG_OK &&
        ofg_save_to_memory(work, o, &bytes, &n) == OFG_OK) {
      if (ofg_load_from_memory(bytes, n, o, &reloaded) != OFG_OK) {
        std::fprintf(stderr, "fuzz: a model the library saved does not load again: %s\n", ofg_last_error());
        std::abort();
      }
      query(reloaded);
    }
    ofg_buffer_free(bytes);
    ofg_model_free(work);
  }
  if ((steps & kVerify) && small_enough_to_run(original)) {
    ofg_report* r = nullptr;
    ofg_verify(original, reloaded ? reloaded : original, o, &r);
    ofg_report_free(r);
  }
  ofg_model_free(reloaded);
  ofg_model_free(original);
  ofg_options_free(o);
}

}  // namespace ofg_fuzz
