// C ABI of the interpreter and of verification: tensors, ofg_run, ofg_verify and its report.
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "declarations/declarations.h"
#include "api/guard.h"
#include "api/handles.h"
#include "api/options.h"
#include "exec/interp.h"
#include "api/run.h"
#include "passes/pipeline.h"
#include "verify/given_inputs.h"
#include "verify/values.h"
#include "verify/verify.h"

using namespace ofg;
using namespace ofg::api;

namespace {

double parse_double(const ofg_options* o, const char* key, double dflt) {
  if (!o || !o->has(key)) return dflt;
  const std::string& v = o->get(key, "");
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end) fail(Status::kInvalidArgument, std::string("option '") + key + "' takes a number, got '" + v + "'");
  return d;
}

void fill_diff(const verify::OutputDiff& d, ofg_diff* out) {
  ofg_diff r{};
  r.struct_size = out->struct_size;
  r.name = d.name.c_str();
  r.max_abs = d.max_abs;
  r.max_rel = d.max_rel;
  r.mismatches = d.mismatches;
  r.worst_index = d.worst_index;
  r.elements = d.elements;
  r.problem = d.problem.empty() ? nullptr : d.problem.c_str();
  r.passed = d.passed() ? 1 : 0;
  r.first_mismatch = d.mismatches ? d.first_mismatch : 0;
  r.atol = d.atol;
  r.rtol = d.rtol;
  r.referee = d.referee.empty() ? nullptr : d.referee.c_str();
  r.outside_tolerance = d.referee_used ? d.outside_tolerance : d.mismatches;
  r.referee_reference_error = d.ref_err64;
  r.referee_candidate_error = d.cand_err64;
  std::memcpy(out, &r, std::min<size_t>(out->struct_size, sizeof r));
}

}  // namespace

namespace ofg::api {

ofg_tensor* wrap_tensor(const exec::RTensor& t, const std::string& name) {
  auto* h = new ofg_tensor();
  // Views of model weights must not outlive the model: always own the bytes.
  h->t = t.hold ? t : t.clone();
  h->name = name;
  return h;
}

std::function<bool(uint32_t, uint32_t)> progress_hook(const ofg_options* options) {
  if (!options || !options->progress) return {};
  auto fn = options->progress;
  void* user = options->progress_user;
  return [fn, user](uint32_t done, uint32_t total) { return fn(user, done, total) == 0; };
}

std::function<void(int, const std::string&)> log_hook(const ofg_options* options) {
  if (!options || !options->log) return {};
  auto fn = options->log;
  void* user = options->log_user;
  return [fn, user](int level, const std::string& message) { fn(user, level, message.c_str()); };
}

void hand_out(const std::string& bytes, void** data, size_t* size) {
  void* p = std::malloc(bytes.size() ? bytes.size() : 1);
  if (!p) throw std::bad_alloc();
  std::memcpy(p, bytes.data(), bytes.size());
  *data = p;
  *size = bytes.size();
}

void hand_out_pb(const char* fn, const verify::Value& v, const char* name, void** data, size_t* size) {
  require(data, fn, "data");
  require(size, fn, "size");
  hand_out(verify::write_value_pb(v, name ? name : ""), data, size);
}

std::vector<verify::GivenInputs> given_inputs(const ofg_options* options, const Model& reference, const char* caller) {
  if (!options) return {};
  std::vector<std::pair<std::string, std::string>> files;  // verify.input.NAME -> (NAME, path)
  for (auto& kv : options->values)
    if (kv.first.rfind("verify.input.", 0) == 0) files.emplace_back(kv.first.substr(13), kv.second);
  return verify::read_given_inputs(reference, options->get("verify.test_data", ""), files, caller);
}

void add_given_inputs(const ofg_options* options, const Model& reference, const char* caller, verify::Options& o) {
  o.given = given_inputs(options, reference, caller);
  verify::dims_of_given(reference, o.given, o.dims);
}

verify::Options verify_options(const ofg_options* options, const char* caller) {
    verify::Options o;
    o.samples = static_cast<uint32_t>(parse_double(options, "verify.samples", 1));
    o.seed = static_cast<uint64_t>(parse_double(options, "verify.seed", 0));
    o.atol = parse_double(options, "verify.atol", 1e-4);
    o.rtol = parse_double(options, "verify.rtol", 1e-3);
    // Tolerances not set follow each output's element type (verify::tolerance_for).
    o.atol_set = options && options->has("verify.atol");
    o.rtol_set = options && options->has("verify.rtol");
    o.float64_referee = !options || options->get("verify.float64_referee", "1") != "0";
    o.int_high = static_cast<int64_t>(parse_double(options, "verify.int_high", 4));
    if (o.int_high < 1) fail(Status::kInvalidArgument, std::string(caller) + ": verify.int_high must be >= 1");
    o.max_tries = static_cast<int>(parse_double(options, "verify.max_tries", 32));
    if (o.max_tries < 1) fail(Status::kInvalidArgument, std::string(caller) + ": verify.max_tries must be >= 1");
    // Shapes an optimize run fixes are the shapes both models get.
    for (const char* key : {"optimize.input_shapes", "verify.input_shapes"})
      if (options && options->has(key))
        for (auto& [name, dims] : declarations::parse_input_shapes(options->get(key, ""))) o.input_shapes[name] = dims;
    if (options)
      for (auto& kv : options->values)
        if (kv.first.rfind("verify.dim.", 0) == 0) {
          double v = parse_double(options, kv.first.c_str(), 1);
          if (v < 0) fail(Status::kInvalidArgument, std::string(caller) + ": " + kv.first + " must be >= 0");
          o.dims[kv.first.substr(11)] = static_cast<int64_t>(v);
        }
  return o;
}

}  // namespace ofg::api

extern "C" {

ofg_status ofg_tensor_create(int32_t elem_type, const int64_t* dims, size_t rank, const void* data, size_t nbytes,
                             ofg_tensor** out) {
  return api_call([&] {
    require(out, "ofg_tensor_create", "out");
    if (rank > 0) require(dims, "ofg_tensor_create", "dims");
    if (!exec::is_supported_type(elem_type))
      fail(Status::kUnsupported, std::string("ofg_tensor_create: element type ") + dtype_name(elem_type) + " is not supported");
    if (rank > 16) fail(Status::kLimit, "ofg_tensor_create: rank above 16");
    exec::Shape s(dims, dims + rank);
    for (int64_t d : s)
      if (d < 0) fail(Status::kInvalidArgument, "ofg_tensor_create: negative dimension");
    exec::RTensor t = exec::RTensor::alloc(elem_type, s);
    if (nbytes != t.nbytes())
      fail(Status::kInvalidArgument, "ofg_tensor_create: nbytes is " + std::to_string(nbytes) + ", the shape needs " +
                                         std::to_string(t.nbytes()));
    if (nbytes) {
      require(data, "ofg_tensor_create", "data");
      std::memcpy(t.ptr, data, nbytes);
    }
    auto* h = new ofg_tensor();
    h->t = std::move(t);
    *out = h;
  });
}

void ofg_tensor_free(ofg_tensor* tensor) { delete tensor; }

void ofg_tensors_free(ofg_tensor** tensors, size_t count) { delete_handles(tensors, count); }

int32_t ofg_tensor_elem_type(const ofg_tensor* t) { return t ? t->t.dtype : 0; }
size_t ofg_tensor_rank(const ofg_tensor* t) { return t ? t->t.shape.size() : 0; }
const int64_t* ofg_tensor_dims(const ofg_tensor* t) { return t ? t->t.shape.data() : nullptr; }
const void* ofg_tensor_data(const ofg_tensor* t) { return t ? t->t.ptr : nullptr; }
size_t ofg_tensor_nbytes(const ofg_tensor* t) { return t ? t->t.nbytes() : 0; }
const char* ofg_tensor_name(const ofg_tensor* t) { return t ? t->name.c_str() : ""; }

ofg_status ofg_tensor_load_pb(const void* data, size_t size, ofg_tensor** out) {
  return api_call([&] {
    require(out, "ofg_tensor_load_pb", "out");
    if (size) require(data, "ofg_tensor_load_pb", "data");
    verify::Value v = verify::read_tensor_pb(Bytes{static_cast<const uint8_t*>(data), size}, "ofg_tensor_load_pb");
    auto h = std::make_unique<ofg_tensor>();
    h->t = std::move(v.tensor);
    h->name = std::move(v.name);
    *out = h.release();
  });
}

ofg_status ofg_tensor_save_pb(const ofg_tensor* tensor, const char* name, void** data, size_t* size) {
  return api_call([&] {
    require(tensor, "ofg_tensor_save_pb", "tensor");
    verify::Value v;
    v.tensor = tensor->t;
    hand_out_pb("ofg_tensor_save_pb", v, name, data, size);
  });
}

ofg_status ofg_run(const ofg_model* model, const ofg_options* options, size_t n_inputs, const char* const* names,
                   const ofg_tensor* const* inputs, size_t* n_outputs, ofg_tensor*** outputs) {
  return api_call([&] {
    run_model(
        "ofg_run", model, options, n_inputs, names, inputs, n_outputs, outputs,
        [](const ofg_tensor& t) { return exec::RValue::tensor(t.t); },
        [&](const ValueInfo& vi, const exec::RValue& r) {
          std::string name(model->model->str(vi.value->name));
          if (r.kind != exec::RValue::kTensor)
            fail(Status::kUnsupported, "ofg_run: output '" + name + "' is a sequence or optional; only tensors are returned");
          return std::unique_ptr<ofg_tensor>(wrap_tensor(r.t, name));
        });
  });
}

ofg_status ofg_tensor_compare(const ofg_tensor* actual, const ofg_tensor* expected, double atol, double rtol, ofg_diff* out) {
  return api_call([&] {
    require(actual, "ofg_tensor_compare", "actual");
    require(expected, "ofg_tensor_compare", "expected");
    require(out, "ofg_tensor_compare", "out");
    if (out->struct_size < offsetof(ofg_diff, passed) + sizeof(int32_t))
      fail(Status::kInvalidArgument, "ofg_tensor_compare: out->struct_size is too small");
    // The strings must outlive the call: keep the last comparison's text per thread.
    thread_local verify::OutputDiff last;
    last = verify::compare(actual->t, expected->t, atol, rtol);
    fill_diff(last, out);
  });
}

ofg_status ofg_verify(const ofg_model* reference, const ofg_model* candidate, const ofg_options* options, ofg_report** report) {
  return api_call([&] {
    require(reference, "ofg_verify", "reference");
    require(candidate, "ofg_verify", "candidate");
    require(report, "ofg_verify", "report");
    RunScope run_scope(options);
    verify::Options o = verify_options(options, "ofg_verify");
    add_given_inputs(options, *reference->model, "ofg_verify", o);
    o.progress = progress_hook(options);
    o.log = log_hook(options);
    auto r = std::make_unique<ofg_report>();
    // verify_models and the interpreter only read the models (they take them non-const for the
    // executor's API; weights derived lazily are materialised into mutable caches).
    r->report = verify::verify_models(*reference->model, *candidate->model, o);
    *report = r.release();
  });
}

void ofg_report_free(ofg_report* report) { delete report; }

ofg_status ofg_report_passed(const ofg_report* report, int32_t* passed) {
  return api_call([&] {
    require(report, "ofg_report_passed", "report");
    require(passed, "ofg_report_passed", "passed");
    *passed = report->report.passed ? 1 : 0;
  });
}

ofg_status ofg_report_output_count(const ofg_report* report, size_t* count) {
  return count_call("ofg_report_output_count", report, "report", count, "count",
                    [](const ofg_report& x) { return x.report.outputs.size(); });
}

ofg_status ofg_report_input_count(const ofg_report* report, size_t* count) {
  return count_call("ofg_report_input_count", report, "report", count, "count",
                    [](const ofg_report& x) { return x.report.inputs.size(); });
}

ofg_status ofg_report_input(const ofg_report* report, size_t index, ofg_input_info* out) {
  auto inputs = [](const ofg_report& x) -> const auto& { return x.report.inputs; };
  return entry_call("ofg_report_input", report, "report", index, out, offsetof(ofg_input_info, source) + sizeof(out->source),
                    inputs, [&](const verify::InputInfo& in) {
    ofg_input_info r{};
    r.struct_size = out->struct_size;
    r.name = in.name.c_str();
    r.elem_type = in.elem_type;
    r.rank = in.shape.size();
    r.dims = in.shape.data();
    r.source = in.source.c_str();
    std::memcpy(out, &r, std::min<size_t>(out->struct_size, sizeof r));
  });
}

const char* ofg_report_note(const ofg_report* report) { return report ? report->report.note.c_str() : ""; }

const char* ofg_report_json(const ofg_report* report) {
  if (!report) return nullptr;
  auto* r = const_cast<ofg_report*>(report);
  try {
    if (r->json.empty()) r->json = r->report.to_json();
  } catch (...) {
    return nullptr;
  }
  return r->json.c_str();
}

ofg_status ofg_report_output(const ofg_report* report, size_t index, ofg_diff* out) {
  auto outputs = [](const ofg_report& x) -> const auto& { return x.report.outputs; };
  return entry_call("ofg_report_output", report, "report", index, out, offsetof(ofg_diff, passed) + sizeof(int32_t),
                    outputs, [&](const verify::OutputDiff& d) { fill_diff(d, out); });
}

}  // extern "C"
