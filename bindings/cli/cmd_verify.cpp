// onnxforge verify A B [verification options] [--json]
#include <cstdio>
#include <string>

#include "cli.h"
#include "progress.h"

namespace cli {

const CommandHelp kHelp = {
    "verify",
    "usage: onnxforge verify A B [options]\n",
    "Runs reference A and candidate B on the same inputs (real data first, else seeded inputs\n"
    "that A accepts) and compares B's outputs with A's by name. Exit 0 when they match, 1 when\n"
    "they differ, 2 on usage or load errors (or an invalid model), 3 when no input set model A\n"
    "accepts could be built.\n"};

int cmd_verify(const Args& args) {
  std::vector<OptionSpec> specs = {{"--json", OptionSpec::kFlag, "", "print the report as one JSON object"}};
  specs.insert(specs.end(), kVerifySpecs.begin(), kVerifySpecs.end());
  specs.push_back(kThreadsSpec);
  ParsedArgs p;
  if (int rc = parse_command(kHelp, args, specs, p); rc >= 0) return rc;
  if (p.positional.size() != 2) return usage_error(kHelp.name, "give two models, A (reference) and B (candidate)");
  const std::string &a = p.positional[0], &b = p.positional[1];
  ofg_options* o = nullptr;
  if (ofg_options_create(&o) != OFG_OK) return report("options", OFG_ERR_NO_MEMORY);
  if (apply_verify_options(p, o, a) != kOk || apply_threads_option(p, o) != kOk) {
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
  ofg_status s;
  {
    ProgressLine progress(o);
    progress.phase("verify (input sets)");
    s = ofg_verify(ma, mb, o, &r);
  }
  ofg_options_free(o);
  int rc;
  if (s != OFG_OK) {
    rc = report_verify_error(s);
  } else if (p.has("--json")) {
    int32_t passed = 0;
    ofg_report_passed(r, &passed);
    JsonWriter j;
    j.begin_object().str("reference", a).str("candidate", b).str("version", ofg_version_string());
    j.raw("report", ofg_report_json(r)).end_object();
    std::printf("%s\n", j.text().c_str());
    rc = passed ? kOk : kCheckFailed;
  } else {
    rc = print_verify_report(r, "");
    std::printf("%s\n", rc == kOk ? "models match" : "MODELS DIFFER");
  }
  ofg_report_free(r);
  ofg_model_free(ma);
  ofg_model_free(mb);
  return rc;
}

}  // namespace cli
