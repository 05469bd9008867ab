// C ABI of the passes: listing, running one pass, the optimization pipeline and its report.
#include <cstdio>
#include <cstring>
#include <string>

#include "declarations/declarations.h"
#include "api/guard.h"
#include "api/handles.h"
#include "api/options.h"
#include "api/pass_report.h"
#include "passes/pipeline.h"

using namespace ofg;
using namespace ofg::api;


namespace {

std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> out;
  size_t p = 0;
  while (p <= list.size() && !list.empty()) {
    size_t q = list.find(',', p);
    if (q == std::string::npos) q = list.size();
    std::string name = list.substr(p, q - p);
    if (name.empty()) fail(Status::kInvalidArgument, "empty pass name in '" + list + "'");
    out.push_back(name);
    p = q + 1;
  }
  return out;
}

bool flag(const ofg_options* o, const char* key) {
  if (!o) return false;
  const std::string& v = o->get(key, "0");
  if (v != "0" && v != "1") fail(Status::kInvalidArgument, std::string("option '") + key + "' takes 0 or 1, got '" + v + "'");
  return v == "1";
}

passes::PipelineOptions pipeline_options(ofg_model* model, const ofg_options* o) {
  passes::PipelineOptions po;
  if (!o) return po;
  po.only = split_names(o->get("optimize.passes", ""));
  for (const std::string& s : split_names(o->get("optimize.skip", ""))) {
    if (!passes::find_pass(s)) fail(Status::kInvalidArgument, "optimize.skip: unknown pass '" + s + "'");
    po.skip.insert(s);
  }
  const std::string& iters = o->get("optimize.max_iterations", "8");
  if (iters.empty() || iters.size() > 6 || iters.find_first_not_of("0123456789") != std::string::npos || std::stoi(iters) < 1)
    fail(Status::kInvalidArgument, "optimize.max_iterations takes a positive count, got '" + iters + "'");
  po.max_iterations = std::stoi(iters);
  if (o->has("optimize.max_rewrites")) {
    // A budget to bisect a wrong result to one rewrite: the report lists the rewrites made.
    const std::string& n = o->get("optimize.max_rewrites", "");
    if (n.empty() || n.size() > 15 || n.find_first_not_of("0123456789") != std::string::npos)
      fail(Status::kInvalidArgument, "optimize.max_rewrites takes a count >= 0, got '" + n + "'");
    po.max_rewrites = std::stoll(n);
  }
  // How many bytes constant folding may add (net) per folded node: a fold that writes a new
  // tensor beside one that stays (a tied weight read transposed and as it is) costs its size.
  if (o->has("optimize.fold_budget")) po.pass_options["fold_constants.budget_bytes"] = o->get("optimize.fold_budget", "");
  po.list_rewrites = flag(o, "optimize.list_rewrites");
  po.provenance = flag(o, "optimize.provenance");  // the report's "provenance" (ir/provenance.h)
  po.keep_names = flag(o, "optimize.keep_names");
  po.check_each_pass = flag(o, "optimize.check_each_pass");
  po.not_applied = o->get("optimize.explain", "1") != "0";  // the report's "not_applied"
  po.progress = progress_hook(o);
  if (flag(o, "optimize.verify_each_pass")) {
    // Each class 1/2 pass is checked by executing the model before and after it on the same
    // seeded inputs ("verify.*" options); a drift rolls the pass back.
    verify::Options vo = verify_options(o, "ofg_optimize");
    add_given_inputs(o, *model->model, "ofg_optimize", vo);
    vo.log = log_hook(o);
    po.verify = [vo](const Model& before, const Model& after, std::string& detail) {
      // verify_models only reads the models; it takes them non-const for the executor's API.
      verify::Report r = verify::verify_models(const_cast<Model&>(before), const_cast<Model&>(after), vo);
      for (const verify::OutputDiff& d : r.outputs) {
        if (d.passed()) continue;
        char buf[256];
        std::snprintf(buf, sizeof buf, "output '%s': %s max abs diff %.3g, max rel diff %.3g, %zu mismatches",
                      d.name.c_str(), d.problem.c_str(), d.max_abs, d.max_rel, d.mismatches);
        detail = buf;
        break;
      }
      return r.passed;
    };
  }
  return po;
}

}  // namespace

extern "C" {

size_t ofg_pass_count(void) { return passes::registry().size(); }

const char* ofg_pass_name(size_t i) { return i < passes::registry().size() ? passes::registry()[i].name : nullptr; }

const char* ofg_pass_description(size_t i) {
  return i < passes::registry().size() ? passes::registry()[i].description : nullptr;
}

int32_t ofg_pass_class(size_t i) { return i < passes::registry().size() ? passes::registry()[i].accuracy_class : -1; }

int32_t ofg_pass_in_default_pipeline(size_t i) {
  return i < passes::registry().size() && passes::registry()[i].in_default_pipeline ? 1 : 0;
}

void ofg_pass_report_free(ofg_pass_report* report) { delete report; }

ofg_status ofg_pass_report_count(const ofg_pass_report* report, size_t* out) {
  return count_call("ofg_pass_report_count", report, "report", out, "out",
                    [](const ofg_pass_report& x) { return x.report.records.size(); });
}

ofg_status ofg_pass_report_entry(const ofg_pass_report* report, size_t index, ofg_pass_entry* out) {
  auto records = [](const ofg_pass_report& x) -> const auto& { return x.report.records; };
  return entry_call("ofg_pass_report_entry", report, "report", index, out, sizeof(ofg_pass_entry), records,
                    [&](const passes::PassRecord& r) {
    ofg_pass_entry e;
    e.struct_size = out->struct_size;
    e.name = r.name.c_str();
    e.accuracy_class = r.accuracy_class;
    e.iteration = r.iteration;
    e.milliseconds = r.stats.milliseconds;
    e.changes = r.stats.changes;
    e.nodes_removed = r.stats.nodes_removed;
    e.nodes_added = r.stats.nodes_added;
    e.nodes_before = r.stats.nodes_before;
    e.nodes_after = r.stats.nodes_after;
    e.bytes_before = r.stats.bytes_before;
    e.bytes_after = r.stats.bytes_after;
    e.rolled_back = r.rolled_back ? 1 : 0;
    e.note = r.note.c_str();
    std::memcpy(out, &e, sizeof e);
  });
}

ofg_status ofg_pass_report_totals(const ofg_pass_report* report, int64_t* nodes_before, int64_t* nodes_after,
                                  uint64_t* bytes_before, uint64_t* bytes_after, double* milliseconds,
                                  int32_t* iterations) {
  return api_call([&] {
    require(report, "ofg_pass_report_totals", "report");
    const passes::PipelineReport& r = report->report;
    if (nodes_before) *nodes_before = r.nodes_before;
    if (nodes_after) *nodes_after = r.nodes_after;
    if (bytes_before) *bytes_before = r.bytes_before;
    if (bytes_after) *bytes_after = r.bytes_after;
    if (milliseconds) *milliseconds = r.milliseconds;
    if (iterations) *iterations = r.iterations;
  });
}

const char* ofg_pass_report_json(const ofg_pass_report* report) {
  if (!report) return nullptr;
  auto* r = const_cast<ofg_pass_report*>(report);
  if (r->json.empty()) r->json = r->report.to_json();
  return r->json.c_str();
}

ofg_status ofg_run_pass(ofg_model* model, const char* pass, const ofg_options* options, ofg_pass_report** report) {
  return api_call([&] {
    require(model, "ofg_run_pass", "model");
    require(pass, "ofg_run_pass", "pass");
    RunScope run_scope(options);
    const passes::PassInfo* info = passes::find_pass(pass);
    if (!info) fail(Status::kInvalidArgument, std::string("ofg_run_pass: unknown pass '") + pass + "'");
    passes::PipelineOptions po;
    po.only = {pass};
    po.max_iterations = 1;
    po.sweep_unused_weights = false;
    po.check_each_pass = flag(options, "optimize.check_each_pass");
    auto out = std::make_unique<ofg_pass_report>();
    model->forget_runs();
    out->report = passes::optimize(model->model, po);
    model->histogram.clear();
    if (report) *report = out.release();
  });
}

ofg_status ofg_optimize(ofg_model* model, const ofg_options* options, ofg_pass_report** report) {
  return api_call([&] {
    require(model, "ofg_optimize", "model");
    RunScope run_scope(options);
    passes::PipelineOptions po = pipeline_options(model, options);
    if (options && options->has("optimize.input_shapes")) {
      model->forget_runs();
      declarations::fix_input_shapes(*model->model, options->get("optimize.input_shapes", ""));
    }
    auto out = std::make_unique<ofg_pass_report>();
    model->forget_runs();
    out->report = passes::optimize(model->model, po);
    // Fixed input shapes reach the declared outputs and the value_info kept.
    if (options && options->has("optimize.input_shapes")) declarations::refresh_declared_shapes(*model->model);
    model->histogram.clear();
    if (auto log = log_hook(options))
      for (const passes::PassRecord& r : out->report.records)
        if (r.rolled_back)
          log(2, "optimize: pass '" + r.name + "' (round " + std::to_string(r.iteration + 1) +
                     ") was rolled back: verification found drifting outputs: " + r.note);
    if (report) *report = out.release();
  });
}

}  // extern "C"
