// C ABI of legalisation for a target profile: ofg_legalize_for_target legalises a copy of the
// model (src/targets/legalise.h), verifies the copy against the model as given by executing both
// (unless "convert.verify" is 0, the key opset conversion uses), and only then puts the copy in
// the handle: on any failure the caller's model is unchanged.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "api/guard.h"
#include "api/handles.h"
#include "api/options.h"
#include "api/verify_copy.h"
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
      verified = verify_rewritten_copy(options, kFn, *model->model, *copy, "legalised model",
                                       std::string("model legalised for '") + target + "'");
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
