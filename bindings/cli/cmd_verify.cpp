// onnxforge verify A B [--test-data DIR] [--input NAME=FILE.pb] [--dim NAME=V] [--samples N]
//                      [--seed S] [--atol X] [--rtol Y] [--json]
#include <cstdio>
#include <string>

#include "cli.h"

namespace cli {
namespace {
int usage(FILE* out) {
  std::fprintf(out,
               "usage: onnxforge verify A B [options]\n\n"
               "Runs reference A and candidate B on the same inputs and compares B's outputs with A's by\n"
               "name. Exit 0 when they match, 1 when they differ, 2 on usage or load errors (or an\n"
               "invalid model), 3 when no input set model A accepts could be built.\n"
               "  --json              print the report as one JSON object\n"
               "%s",
               kVerifyOptionsHelp);
  return out == stdout ? kOk : kUsage;
}
}  // namespace

int cmd_verify(const Args& args) {
  std::string a, b;
  bool json = false;
  VerifyArgs vargs;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& x = args[i];
    if (x == "--help" || x == "-h") return usage(stdout);
    if (x == "--json") {
      json = true;
      continue;
    }
    int taken = vargs.take(args, i, "verify");
    if (taken == kUsage) return kUsage;
    if (taken == kOk) continue;
    if (!x.empty() && x[0] == '-') {
      std::fprintf(stderr, "onnxforge verify: unknown option '%s'\n", x.c_str());
      return usage(stderr);
    }
    if (a.empty()) a = x;
    else if (b.empty()) b = x;
    else return usage(stderr);
  }
  if (a.empty() || b.empty()) return usage(stderr);
  ofg_options* o = nullptr;
  if (ofg_options_create(&o) != OFG_OK) return report("options", OFG_ERR_NO_MEMORY);
  if (vargs.apply(o, a) != kOk) {
    ofg_options_free(o);
    return kUsage;
  }
  ofg_model *ma = nullptr, *mb = nullptr;
  if (ofg_status s = ofg_load(a.c_str(), nullptr, &ma)) {
    ofg_options_free(o);
    return report(a.c_str(), s);
  }
  if (ofg_status s = ofg_load(b.c_str(), nullptr, &mb)) {
    ofg_model_free(ma);
    ofg_options_free(o);
    return report(b.c_str(), s);
  }
  ofg_report* r = nullptr;
  ofg_status s = ofg_verify(ma, mb, o, &r);
  ofg_options_free(o);
  int rc = s == OFG_OK ? print_verify_report(r, json, "") : report_verify_error(s);
  ofg_report_free(r);
  ofg_model_free(ma);
  ofg_model_free(mb);
  return rc;
}

}  // namespace cli
