// Versions, status, last error, options, load and save.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "declarations/declarations.h"
#include "api/guard.h"
#include "ir/demo_model.h"
#include "ir/snapshot.h"
#include "api/handles.h"
#include "api/options.h"
#include "onnx/serialize.h"
#include "onnx/temp_file.h"
#include "passes/pipeline.h"

namespace ofg::api {
namespace {

// More threads than this is a typo, not a machine.
constexpr unsigned long kMaxRunThreads = 1024;
thread_local std::string g_last_error;

bool is_count(const std::string& v, bool allow_zero) {
  if (v.empty() || v.size() > 19 || v.find_first_not_of("0123456789") != std::string::npos) return false;
  return allow_zero || v.find_first_not_of('0') != std::string::npos;
}

// Checks a value when it is set, so a typo fails at ofg_options_set and not in the middle of
// the call that reads it. Keys not named here take any string.
void validate_option(const std::string& key, const std::string& v) {
  auto bad = [&](const char* what) {
    fail(Status::kInvalidArgument, "ofg_options_set: '" + key + "' takes " + what + ", got '" + v + "'");
  };
  static const char* const flags[] = {"load.copy_buffer", "save.external_data", "save.durable",
                                      "optimize.check_each_pass", "optimize.verify_each_pass", "optimize.explain",
                                      "optimize.list_rewrites", "optimize.provenance", "optimize.keep_names",
                                      "verify.float64_referee",
                                      // shared by ofg_convert_opset and the float conversion
                                      "convert.verify"};
  static const char* const counts[] = {"optimize.max_iterations", "verify.samples", "verify.max_tries",
                                       "verify.int_high"};
  for (const char* k : flags)
    if (key == k && v != "0" && v != "1") bad("0 or 1");
  for (const char* k : counts)
    if (key == k && (!is_count(v, false) || v.size() > 9)) bad("a positive count");
  if ((key == "save.external_threshold" || key == "verify.seed") && !is_count(v, true)) bad("a non-negative integer");
  if (key == "optimize.max_rewrites" && (!is_count(v, true) || v.size() > 15)) bad("a count >= 0");
  if (key == "optimize.fold_budget" && (!is_count(v, true) || v.size() > 15)) bad("a byte count >= 0");
  if (key == "run.max_tensor_bytes" && (!is_count(v, false) || v.size() > 19)) bad("a positive byte count");
  if (key == "run.threads" && (!is_count(v, true) || v.size() > 4 || std::stoul(v) > kMaxRunThreads))
    bad("a thread count from 0 (the machine's cores) to 1024");
  if (key.rfind("verify.dim.", 0) == 0 && (!is_count(v, true) || v.size() > 18)) bad("a non-negative size");
  if (key == "verify.atol" || key == "verify.rtol") {
    char* end = nullptr;
    double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end || !std::isfinite(d) || d < 0) bad("a finite number >= 0");
  }
  if (key == "optimize.input_shapes" || key == "verify.input_shapes") declarations::parse_input_shapes(v);
  // Precision conversion (ofg_convert_float, src/api/api_convert_float.cpp).
  validate_convert_float_option(key, v);
  if (key == "optimize.passes" || key == "optimize.skip") {
    size_t p = 0;
    while (!v.empty() && p <= v.size()) {
      size_t q = std::min(v.find(',', p), v.size());
      std::string name = v.substr(p, q - p);
      if (!passes::find_pass(name)) fail(Status::kInvalidArgument, "ofg_options_set: '" + key + "': unknown pass '" + name + "'");
      p = q + 1;
    }
  }
}

bool parse_flag(const ofg_options* o, const char* key) {
  if (!o) return false;
  return o->get(key, "0") == "1";
}
}  // namespace

void set_last_error(const std::string& message) { g_last_error = message; }
void clear_last_error() { g_last_error.clear(); }

LoadOptions load_options(const ofg_options* o) {
  LoadOptions l;
  if (!o) return l;
  l.copy_buffer = parse_flag(o, "load.copy_buffer");
  l.external_data_dir = o->get("load.external_data_dir", "");
  return l;
}

SaveOptions save_options(const ofg_options* o) {
  SaveOptions s;
  if (!o) return s;
  // Unset: the layout of the input (and external data above 2 GiB); "0" explicitly: inline.
  std::string ext = o->get("save.external_data", "");
  s.external_data = ext == "1";
  s.inline_data = ext == "0";
  s.external_threshold = std::strtoull(o->get("save.external_threshold", "1024").c_str(), nullptr, 10);
  s.external_file_name = o->get("save.external_file", "");
  s.durable = parse_flag(o, "save.durable");
  s.log = log_hook(o);
  return s;
}

unsigned run_threads(const ofg_options* o) {
  if (!o) return 0;
  return static_cast<unsigned>(std::strtoul(o->get("run.threads", "0").c_str(), nullptr, 10));
}

size_t tensor_budget(const ofg_options* o) {
  if (!o) return 0;
  return static_cast<size_t>(std::strtoull(o->get("run.max_tensor_bytes", "0").c_str(), nullptr, 10));
}

}  // namespace ofg::api

using namespace ofg;
using namespace ofg::api;

extern "C" {

uint32_t ofg_version_number(void) { return OFG_VERSION_NUMBER; }

const char* ofg_version_string(void) {
#define OFG_STR2(x) #x
#define OFG_STR(x) OFG_STR2(x)
  return OFG_STR(OFG_VERSION_MAJOR) "." OFG_STR(OFG_VERSION_MINOR) "." OFG_STR(OFG_VERSION_PATCH);
}

const char* ofg_status_string(ofg_status status) {
  switch (status) {
    case OFG_OK: return "ok";
    case OFG_ERR_INVALID_ARGUMENT: return "invalid argument";
    case OFG_ERR_IO: return "input/output error";
    case OFG_ERR_PARSE: return "malformed ONNX protobuf";
    case OFG_ERR_INVALID_MODEL: return "invalid model";
    case OFG_ERR_UNSUPPORTED: return "unsupported";
    case OFG_ERR_NO_MEMORY: return "out of memory";
    case OFG_ERR_LIMIT: return "limit exceeded";
    case OFG_ERR_VERIFY_FAILED: return "verification failed";
    case OFG_ERR_CANCELLED: return "cancelled";
    case OFG_ERR_INTERNAL: return "internal error";
    case OFG_ERR_NO_VALID_INPUTS: return "cannot build inputs that the model accepts";
  }
  return "unknown status";
}

const char* ofg_last_error(void) { return g_last_error.c_str(); }

ofg_status ofg_options_create(ofg_options** out) {
  return api_call([&] {
    require(out, "ofg_options_create", "out");
    *out = new ofg_options();
  });
}

void ofg_options_free(ofg_options* options) { delete options; }

ofg_status ofg_options_set(ofg_options* options, const char* key, const char* value) {
  return api_call([&] {
    require(options, "ofg_options_set", "options");
    require(key, "ofg_options_set", "key");
    require(value, "ofg_options_set", "value");
    static const char* const known[] = {"load.copy_buffer", "load.external_data_dir", "save.external_data",
                                        "save.external_threshold", "save.external_file", "save.durable",
                                        // read by ofg_optimize / ofg_run_pass (src/api/api_passes.cpp)
                                        "optimize.passes", "optimize.skip", "optimize.input_shapes",
                                        "optimize.max_iterations", "optimize.check_each_pass", "optimize.explain",
                                        "optimize.verify_each_pass", "optimize.max_rewrites", "optimize.list_rewrites",
                                        "optimize.provenance", "optimize.keep_names",
                                        "optimize.fold_budget",
                                        // read by ofg_verify (src/api/api_exec.cpp)
                                        "verify.samples", "verify.seed", "verify.atol", "verify.rtol",
                                        "verify.int_high", "verify.max_tries", "verify.input_shapes",
                                        "verify.test_data", "verify.float64_referee",
                                        // read by every call that runs ops (src/api/api_core.cpp)
                                        "run.max_tensor_bytes", "run.threads",
                                        // read by ofg_convert_opset (api_convert_opset.cpp) and the
                                        // float conversion: verify the converted model by execution
                                        "convert.verify"};
    bool found = (std::strncmp(key, "verify.dim.", 11) == 0 && key[11] != '\0') ||
                 (std::strncmp(key, "verify.input.", 13) == 0 && key[13] != '\0');
    for (const char* k : known) found |= std::strcmp(k, key) == 0;
    // Precision conversion (ofg_convert_float): its keys and checks live beside it.
    found |= is_convert_float_option(key);
    if (!found) fail(Status::kInvalidArgument, std::string("ofg_options_set: unknown option '") + key + "'");
    std::string v = value;
    validate_option(key, v);
    options->values[key] = v;
  });
}

ofg_status ofg_options_set_progress(ofg_options* options, int32_t (*fn)(void* user, uint32_t done, uint32_t total),
                                    void* user) {
  return api_call([&] {
    require(options, "ofg_options_set_progress", "options");
    options->progress = fn;
    options->progress_user = fn ? user : nullptr;
  });
}

ofg_status ofg_options_set_log(ofg_options* options, void (*fn)(void* user, int32_t level, const char* message),
                               void* user) {
  return api_call([&] {
    require(options, "ofg_options_set_log", "options");
    options->log = fn;
    options->log_user = fn ? user : nullptr;
  });
}

ofg_status ofg_load(const char* utf8_path, const ofg_options* options, ofg_model** out) {
  return api_call([&] {
    require(utf8_path, "ofg_load", "utf8_path");
    require(out, "ofg_load", "out");
    auto handle = std::make_unique<ofg_model>();
    handle->model = load_model_file(utf8_path, load_options(options));
    *out = handle.release();
  });
}

ofg_status ofg_load_from_memory(const void* data, size_t size, const ofg_options* options, ofg_model** out) {
  return api_call([&] {
    require(data, "ofg_load_from_memory", "data");
    require(out, "ofg_load_from_memory", "out");
    auto handle = std::make_unique<ofg_model>();
    handle->model = load_model_memory(data, size, load_options(options));
    *out = handle.release();
  });
}

void ofg_model_free(ofg_model* model) { delete model; }

ofg_status ofg_model_create_demo(ofg_model** out) {
  return api_call([&] {
    require(out, "ofg_model_create_demo", "out");
    auto handle = std::make_unique<ofg_model>();
    handle->model = make_demo_model();
    *out = handle.release();
  });
}

ofg_status ofg_model_clone(const ofg_model* model, ofg_model** out) {
  return api_call([&] {
    require(model, "ofg_model_clone", "model");
    require(out, "ofg_model_clone", "out");
    // A copy of the structure; weights in the mapped file or the caller's buffer stay shared
    // (both models hold that backing), bytes of the original's own memory are copied.
    auto handle = std::make_unique<ofg_model>();
    handle->model = copy_model(*model->model);
    *out = handle.release();
  });
}

ofg_status ofg_save(const ofg_model* model, const char* utf8_path, const ofg_options* options) {
  return api_call([&] {
    require(model, "ofg_save", "model");
    require(utf8_path, "ofg_save", "utf8_path");
    save_model_file(*model->model, utf8_path, save_options(options));
  });
}

ofg_status ofg_save_to_memory(const ofg_model* model, const ofg_options* options, void** data, size_t* size) {
  return api_call([&] {
    require(model, "ofg_save_to_memory", "model");
    require(data, "ofg_save_to_memory", "data");
    require(size, "ofg_save_to_memory", "size");
    if (options && save_options(options).external_data)
      fail(Status::kInvalidArgument, "ofg_save_to_memory: external data needs a file; use ofg_save");
    MallocBuffer bytes = save_model_memory(*model->model);
    *size = bytes.size();
    *data = bytes.release();
  });
}

void ofg_buffer_free(void* data) { std::free(data); }

void ofg_remove_temporary_files(void) { remove_registered_temporary_files(); }

}  // extern "C"
