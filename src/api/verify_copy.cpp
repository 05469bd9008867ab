// verify_rewritten_copy: see verify_copy.h.
#include "api/verify_copy.h"

#include <algorithm>
#include <cstdio>

#include "api/guard.h"
#include "api/options.h"

namespace ofg::api {

std::string verify_rewritten_copy(const ofg_options* options, const char* fn, Model& original, Model& copy,
                                  const std::string& noun, const std::string& described) {
  verify::Options vo = verify_options(options, fn);
  add_given_inputs(options, original, fn, vo);
  vo.progress = progress_hook(options);
  vo.log = log_hook(options);
  verify::Report v;
  try {
    v = verify::verify_models(original, copy, vo);
  } catch (const Error& e) {
    if (e.status() != Status::kUnsupported) throw;
    // The rewrite was possible; what the verifier cannot run is said as such.
    fail(Status::kUnsupported, std::string(fn) + ": the " + noun +
                                   " cannot be verified (convert.verify=0 skips that; model unchanged): " + e.what());
  }
  double worst = 0;
  for (const verify::OutputDiff& d : v.outputs) {
    worst = std::max(worst, d.max_abs);
    if (d.passed()) continue;
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "%s: the %s differs from the original: output '%s': %s max abs diff %.3g, %zu mismatches "
                  "(model unchanged)",
                  fn, described.c_str(), d.name.c_str(), d.problem.c_str(), d.max_abs, d.mismatches);
    fail(Status::kVerifyFailed, buf);
  }
  char buf[96];
  std::snprintf(buf, sizeof buf, "verified by execution (max abs diff %.3g)", worst);
  return buf;
}

}  // namespace ofg::api
