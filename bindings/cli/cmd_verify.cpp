// onnxforge verify A B [--samples N] [--seed S] [--dim NAME=V] [--atol X] [--rtol Y] [--json]
#include <cstdio>
#include <string>

#include "cli.h"

namespace cli {
namespace {
int usage() {
  std::fprintf(stderr,
               "usage: onnxforge verify A B [--samples N] [--seed S] [--dim NAME=V]... [--atol X] [--rtol Y] [--json]\n"
               "Runs both models on the same seeded random inputs and compares outputs by name.\n"
               "Defaults: 1 sample, seed 0, atol 1e-4, rtol 1e-3, symbolic dims 2.\n"
               "Exit 0 when they match, 1 when they differ, 2 on usage or load errors.\n");
  return kUsage;
}
}  // namespace

int cmd_verify(const Args& args) {
  std::string a, b;
  bool json = false;
  ofg_options* o = nullptr;
  if (ofg_options_create(&o) != OFG_OK) return kUsage;
  auto set = [&](const std::string& k, const std::string& v) {
    if (ofg_options_set(o, k.c_str(), v.c_str()) != OFG_OK) {
      std::fprintf(stderr, "onnxforge: %s\n", ofg_last_error());
      return false;
    }
    return true;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& x = args[i];
    bool has_next = i + 1 < args.size();
    if (x == "--help" || x == "-h") { ofg_options_free(o); usage(); return kOk; }
    if (x == "--json") { json = true; continue; }
    const char* key = x == "--samples" ? "verify.samples" : x == "--seed" ? "verify.seed" : x == "--atol" ? "verify.atol"
                    : x == "--rtol" ? "verify.rtol" : nullptr;
    if (key) {
      if (!has_next || !set(key, args[++i])) { ofg_options_free(o); return usage(); }
      continue;
    }
    if (x == "--dim") {
      if (!has_next) { ofg_options_free(o); return usage(); }
      std::string d = args[++i];
      size_t eq = d.find('=');
      if (eq == std::string::npos || !set("verify.dim." + d.substr(0, eq), d.substr(eq + 1))) { ofg_options_free(o); return usage(); }
      continue;
    }
    if (!x.empty() && x[0] == '-') { ofg_options_free(o); return usage(); }
    if (a.empty()) a = x;
    else if (b.empty()) b = x;
    else { ofg_options_free(o); return usage(); }
  }
  if (a.empty() || b.empty()) { ofg_options_free(o); return usage(); }
  ofg_model *ma = nullptr, *mb = nullptr;
  if (ofg_status s = ofg_load(a.c_str(), nullptr, &ma)) { ofg_options_free(o); return report(a.c_str(), s); }
  if (ofg_status s = ofg_load(b.c_str(), nullptr, &mb)) { ofg_model_free(ma); ofg_options_free(o); return report(b.c_str(), s); }
  ofg_report* r = nullptr;
  ofg_status s = ofg_verify(ma, mb, o, &r);
  ofg_options_free(o);
  if (s != OFG_OK) {
    ofg_model_free(ma);
    ofg_model_free(mb);
    return report("verify", s);
  }
  int32_t passed = 0;
  size_t n = 0;
  ofg_report_passed(r, &passed);
  ofg_report_output_count(r, &n);
  if (json) std::printf("{\"passed\":%s,\"outputs\":[", passed ? "true" : "false");
  for (size_t i = 0; i < n; ++i) {
    ofg_diff d;
    d.struct_size = sizeof d;
    ofg_report_output(r, i, &d);
    if (json)
      std::printf("%s{\"name\":\"%s\",\"passed\":%s,\"max_abs\":%.6g,\"max_rel\":%.6g,\"mismatches\":%llu,\"worst_index\":%llu,\"problem\":\"%s\"}",
                  i ? "," : "", json_escape(d.name).c_str(), d.passed ? "true" : "false", d.max_abs, d.max_rel,
                  (unsigned long long)d.mismatches, (unsigned long long)d.worst_index, d.problem ? json_escape(d.problem).c_str() : "");
    else if (d.problem)
      std::printf("FAIL %s: %s\n", d.name, d.problem);
    else
      std::printf("%s %s: max_abs %.3g max_rel %.3g mismatches %llu/%llu (worst at %llu)\n", d.passed ? "ok  " : "FAIL", d.name,
                  d.max_abs, d.max_rel, (unsigned long long)d.mismatches, (unsigned long long)d.elements,
                  (unsigned long long)d.worst_index);
  }
  if (json) std::printf("]}\n");
  else std::printf("%s\n", passed ? "models match" : "MODELS DIFFER");
  ofg_report_free(r);
  ofg_model_free(ma);
  ofg_model_free(mb);
  return passed ? kOk : kCheckFailed;
}

}  // namespace cli
