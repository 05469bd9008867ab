// What the opaque handles of the C ABI hold.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "exec/interp.h"
#include "ir/ir.h"
#include "onnxforge.h"
#include "verify/verify.h"

struct ofg_options {
  std::map<std::string, std::string> values;
  // Callbacks (ofg_options_set_progress / ofg_options_set_log); used only during the call that
  // was given these options.
  int32_t (*progress)(void* user, uint32_t done, uint32_t total) = nullptr;
  void* progress_user = nullptr;
  void (*log)(void* user, int32_t level, const char* message) = nullptr;
  void* log_user = nullptr;
  bool has(const char* key) const { return values.count(key) != 0; }
  // By value: the fallback is often a temporary.
  std::string get(const char* key, const std::string& fallback) const {
    auto it = values.find(key);
    return it == values.end() ? fallback : it->second;
  }
};

struct ofg_model {
  std::unique_ptr<ofg::Model> model;
  // What ofg_run derives from the weights (packed conv weights, aligned copies), kept across runs.
  // Reset before anything that may change or replace the model.
  // Mutable: running a const model fills it, and it never changes what the model computes.
  mutable std::unique_ptr<ofg::exec::ExecCache> exec_cache;
  // The interpreter of ofg_run, kept across runs for its execution plans (which views reach
  // which node, what to free when); it uses exec_cache. Reset with it by forget_runs().
  mutable std::unique_ptr<ofg::exec::Interpreter> interp;
  void forget_runs() const {
    interp.reset();
    exec_cache.reset();
  }
  // Cached answers whose strings the C caller may hold until the model changes.
  struct HistogramEntry {
    std::string domain, op_type;
    size_t count;
  };
  std::vector<HistogramEntry> histogram;
};

struct ofg_tensor {
  ofg::exec::RTensor t;  // always an owned, dense copy
  std::string name;
};

struct ofg_report {
  ofg::verify::Report report;
  std::string json;  // made on first request
};

namespace ofg::verify {
struct Value;
}  // namespace ofg::verify

namespace ofg::api {

// Frees an array of handles made by the library (ofg_tensors_free, ofg_values_free).
template <class Handle>
void delete_handles(Handle** handles, size_t count) {
  if (!handles) return;
  for (size_t i = 0; i < count; ++i) delete handles[i];
  delete[] handles;
}
// A malloc'd copy of `bytes` into *data and *size (the caller frees it with ofg_buffer_free).
void hand_out(const std::string& bytes, void** data, size_t* size);
// ofg_tensor_save_pb / ofg_value_save_pb: v as its .pb message, handed out (checks data and size).
void hand_out_pb(const char* fn, const verify::Value& v, const char* name, void** data, size_t* size);
// A new handle owning a copy of `t` (views of model weights must not outlive the model).
ofg_tensor* wrap_tensor(const exec::RTensor& t, const std::string& name);

}  // namespace ofg::api
