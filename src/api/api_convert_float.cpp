// C ABI of precision conversion: ofg_convert_float and its "convert.*" options.
#include <cstring>
#include <chrono>
#include <set>
#include <memory>

#include "api/guard.h"
#include "api/handles.h"
#include "api/options.h"
#include "convert/mixed_precision.h"
#include "ir/graph_ops.h"
#include "ir/snapshot.h"
#include "passes/pipeline.h"

using namespace ofg;
using namespace ofg::api;

// The same layout as api_passes.cpp's definition (one report type for passes and conversion).
struct ofg_pass_report {
  passes::PipelineReport report;
  std::string json;
};

namespace ofg::api {

namespace {
const char* const kConvertKeys[] = {"convert.float", "convert.keep_io_types", "convert.block_ops",
                                    "convert.block_nodes", "convert.verify"};

std::set<std::string> split_list(const std::string& list, const char* key) {
  std::set<std::string> out;
  size_t p = 0;
  while (!list.empty() && p <= list.size()) {
    size_t q = std::min(list.find(',', p), list.size());
    std::string name = list.substr(p, q - p);
    if (name.empty()) fail(Status::kInvalidArgument, std::string(key) + ": empty name in '" + list + "'");
    out.insert(name);
    p = q + 1;
  }
  return out;
}
}  // namespace

bool is_convert_float_option(const char* key) {
  for (const char* k : kConvertKeys)
    if (std::strcmp(k, key) == 0) return true;
  return false;
}

void validate_convert_float_option(const std::string& key, const std::string& v) {
  auto bad = [&](const char* what) {
    fail(Status::kInvalidArgument, "ofg_options_set: '" + key + "' takes " + what + ", got '" + v + "'");
  };
  if (key == "convert.float" && v != "float16" && v != "bfloat16") bad("float16 or bfloat16");
  if ((key == "convert.keep_io_types" || key == "convert.verify") && v != "0" && v != "1") bad("0 or 1");
  if (key == "convert.block_ops" || key == "convert.block_nodes") split_list(v, key.c_str());
}

}  // namespace ofg::api

namespace {

uint64_t initializer_bytes(const Model& m) {
  uint64_t b = 0;
  for_each_graph(m.graph, [&](Graph* g) {
    for (Value* v : g->initializers)
      if (v->initializer) b += v->initializer->data.size;
  });
  return b;
}

int64_t node_total(const Model& m) {
  int64_t n = 0;
  for_each_graph(m.graph, [&](Graph* g) { n += g->node_count; });
  return n;
}

}  // namespace

extern "C" {

ofg_status ofg_convert_float(ofg_model* model, const ofg_options* options, ofg_pass_report** report) {
  return api_call([&] {
    require(model, "ofg_convert_float", "model");
    RunScope run_scope(options);
    auto get = [&](const char* k, const char* d) { return options ? options->get(k, d) : std::string(d); };
    convert::ConvertOptions o;
    const std::string target = get("convert.float", "float16");
    o.target = target == "bfloat16" ? kBfloat16 : kFloat16;
    o.keep_io_types = get("convert.keep_io_types", "1") == "1";
    o.verify = get("convert.verify", "1") == "1";
    o.block_ops = split_list(get("convert.block_ops", ""), "convert.block_ops");
    o.block_nodes = split_list(get("convert.block_nodes", ""), "convert.block_nodes");
    o.log = log_hook(options);
    if (o.verify) {
      o.vo = verify_options(options, "ofg_convert_float");
      add_given_inputs(options, *model->model, "ofg_convert_float", o.vo);
      o.vo.log = o.log;
    }
    auto start = std::chrono::steady_clock::now();
    convert::ConvertReport cr;
    const int64_t nodes_before = node_total(*model->model);
    const uint64_t bytes_before = initializer_bytes(*model->model);
    model->forget_runs();
    std::unique_ptr<Model> out = convert::convert_float(*model->model, o, cr);
    // The converted model reads the original's weights (snapshot): it keeps the original alive.
    keep_alive(*out, std::move(model->model));
    model->model = std::move(out);
    model->histogram.clear();
    auto r = std::make_unique<ofg_pass_report>();
    passes::PassRecord rec;
    rec.name = "convert_float";
    rec.stats.nodes_before = nodes_before;
    rec.stats.nodes_after = node_total(*model->model);
    rec.stats.bytes_before = bytes_before;
    rec.stats.bytes_after = initializer_bytes(*model->model);
    rec.stats.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    rec.stats.changes = static_cast<int64_t>(cr.last.nodes_converted);
    r->report.nodes_before = rec.stats.nodes_before;
    r->report.nodes_after = rec.stats.nodes_after;
    r->report.bytes_before = rec.stats.bytes_before;
    r->report.bytes_after = rec.stats.bytes_after;
    r->report.milliseconds = rec.stats.milliseconds;
    r->report.iterations = cr.rounds;
    r->report.records.push_back(rec);
    // The report's JSON is the conversion's own: what stayed float32 and why, what was clamped,
    // and the final verification.
    r->json = cr.to_json(o.target, o.keep_io_types);
    if (report) *report = r.release();
  });
}

}  // extern "C"
