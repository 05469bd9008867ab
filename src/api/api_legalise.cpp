// C ABI of legalisation for a target profile: ofg_legalize_for_target legalises a copy of the
// model (src/targets/legalise.h), verifies the copy against the model as given by executing both
// (unless "convert.verify" is 0, the key opset conversion uses), and only then puts the copy in
// the handle: on any failure the caller's model is unchanged.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "api/guard.h"
#include "api/handles.h"
#include "api/options.h"
#include "ir/snapshot.h"
#include "targets/legalise.h"

using namespace ofg;
using namespace ofg::api;

extern "C" {

ofg_status ofg_legalize_for_target(ofg_model* model, const char* target, const ofg_options* options, char** out_json) {
  return api_call([&] {
    const char* kFn = "ofg_legalize_for_target";
    require(model, kFn, "model");
    require(target, kFn, "target");
    require(out_json, kFn, "out_json");
    const targets::Profile& profile = targets::find_profile(target);
    RunScope run_scope(options);
    bool verify = !options || options->get("convert.verify", "1") != "0";
    std::unique_ptr<Model> copy = copy_model(*model->model);
    targets::LegaliseResult r = targets::legalise(copy, profile);
    std::string verified = "not verified (convert.verify=0)";
    if (r.rewrites.empty() && r.opset_after == r.opset_before) {
      verified = "nothing rewritten";
    } else if (verify) {
      verify::Options vo = verify_options(options, kFn);
      add_given_inputs(options, *model->model, kFn, vo);
      vo.progress = progress_hook(options);
      vo.log = log_hook(options);
      verify::Report v;
      try {
        v = verify::verify_models(*model->model, *copy, vo);
      } catch (const Error& e) {
        if (e.status() != Status::kUnsupported) throw;
        fail(Status::kUnsupported, std::string(kFn) + ": the legalised model cannot be verified (convert.verify=0 "
                                                      "skips that; model unchanged): " + e.what());
      }
      double worst = 0;
      for (const verify::OutputDiff& d : v.outputs) {
        worst = std::max(worst, d.max_abs);
        if (d.passed()) continue;
        char buf[512];
        std::snprintf(buf, sizeof buf,
                      "%s: the model legalised for '%s' differs from the original: output '%s': %s max abs diff %.3g, "
                      "%zu mismatches (model unchanged)",
                      kFn, target, d.name.c_str(), d.problem.c_str(), d.max_abs, d.mismatches);
        fail(Status::kVerifyFailed, buf);
      }
      char buf[96];
      std::snprintf(buf, sizeof buf, "verified by execution (max abs diff %.3g)", worst);
      verified = buf;
    }
    std::string json = targets::legalise_json(r, verified);
    char* p = static_cast<char*>(std::malloc(json.size() + 1));
    if (!p) throw std::bad_alloc();
    std::memcpy(p, json.c_str(), json.size() + 1);
    model->forget_runs();
    model->model = std::move(copy);
    model->histogram.clear();
    *out_json = p;
  });
}

}  // extern "C"
