// C ABI of opset conversion: ofg_convert_opset converts a copy of the model, verifies the copy
// against the original by executing both (unless "convert.verify" is 0), and only then puts the
// copy in the handle: on any failure the caller's model is unchanged.
#include <chrono>
#include <memory>
#include <string>

#include "api/guard.h"
#include "api/handles.h"
#include "api/options.h"
#include "api/pass_report.h"
#include "api/verify_copy.h"
#include "convert/adapter.h"
#include "convert/opset_convert.h"
#include "ir/snapshot.h"

using namespace ofg;
using namespace ofg::api;

namespace {

// The note of the report: what was checked and what was left alone.
std::string summary(const convert::OpsetReport& r, const std::string& verified) {
  std::string s = "opset " + std::to_string(r.from) + " -> " + std::to_string(r.to) + ": " +
                  std::to_string(r.adapted.size()) + " node(s) adapted by " +
                  std::to_string(convert::adapters().size()) + " adapter rows; " + verified;
  if (!r.other_domains.empty()) {
    s += "; other domains left as they are:";
    for (const std::string& d : r.other_domains) s += " " + d;
  }
  return s;
}

}  // namespace

extern "C" {

ofg_status ofg_convert_opset(ofg_model* model, int64_t target_opset, const ofg_options* options,
                             ofg_pass_report** report) {
  return api_call([&] {
    require(model, "ofg_convert_opset", "model");
    RunScope run_scope(options);
    bool verify = !options || options->get("convert.verify", "1") != "0";
    auto start = std::chrono::steady_clock::now();
    std::unique_ptr<Model> copy = copy_model(*model->model);
    convert::OpsetReport r = convert::convert_opset(*copy, target_opset);
    std::string verified = "not verified (convert.verify=0)";
    if (verify && r.from != r.to && r.from != 0) {
      verified = verify_rewritten_copy(options, "ofg_convert_opset", *model->model, *copy, "converted model",
                                       "model converted to opset " + std::to_string(target_opset));
    } else if (r.from == r.to || r.from == 0) {
      verified = r.from == 0 ? "no default-domain opset imported: nothing to convert" : "nothing to convert";
    }
    auto out = std::make_unique<ofg_pass_report>();
    passes::PipelineReport& pr = out->report;
    passes::PassRecord rec;
    rec.name = "convert_opset";
    rec.stats.nodes_before = r.nodes_before;
    rec.stats.nodes_after = r.nodes_after;
    rec.stats.changes = static_cast<int64_t>(r.adapted.size());
    rec.note = summary(r, verified);
    pr.nodes_before = r.nodes_before;
    pr.nodes_after = r.nodes_after;
    pr.iterations = 1;
    for (const convert::AdaptedNode& a : r.adapted)
      pr.rewrites.push_back({"convert_opset", "opset " + std::to_string(a.from) + " -> " + std::to_string(a.to), a.node,
                             a.op, a.what});
    pr.rewrites_made = static_cast<int64_t>(r.adapted.size());
    pr.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    rec.stats.milliseconds = pr.milliseconds;
    pr.records.push_back(rec);
    model->forget_runs();
    model->model = std::move(copy);
    model->histogram.clear();
    if (report) *report = out.release();
  });
}

}  // extern "C"
