#include "convert_float_flags.h"

#include <cstdio>

namespace cli {

const std::vector<OptionSpec>& convert_float_specs() {
  static const std::vector<OptionSpec> specs = {
    {"--to-float16", OptionSpec::kFlag, "", "convert float32 computation to float16 (verified, mixed precision)"},
    {"--to-bfloat16", OptionSpec::kFlag, "", "convert float32 computation to bfloat16 (verified, mixed precision)"},
    {"--convert-io", OptionSpec::kFlag, "", "with --to-*: inputs and outputs take the target type too"},
    {"--block-ops", OptionSpec::kText, "A,B", "with --to-*: op types kept float32"},
    {"--block-nodes", OptionSpec::kText, "N1,N2", "with --to-*: node names kept float32"},
    {"--no-verify", OptionSpec::kFlag, "", "with --to-*: convert without the verification and attribution"},
  };
  return specs;
}

bool wants_convert_float(const ParsedArgs& p) { return p.has("--to-float16") || p.has("--to-bfloat16"); }

int apply_convert_float_options(const char* command, const ParsedArgs& p, ofg_options* o) {
  if (p.has("--to-float16") && p.has("--to-bfloat16")) return usage_error(command, "give one of --to-float16, --to-bfloat16");
  if (!wants_convert_float(p)) {
    for (const char* f : {"--convert-io", "--block-ops", "--block-nodes", "--no-verify"})
      if (p.has(f)) return usage_error(command, std::string(f) + " goes with --to-float16 or --to-bfloat16");
    return kOk;
  }
  const bool ok =
      set_option(command, o, "--to-*", "convert.float", p.has("--to-bfloat16") ? "bfloat16" : "float16") == kOk &&
      (!p.has("--convert-io") || set_option(command, o, "--convert-io", "convert.keep_io_types", "0") == kOk) &&
      (!p.has("--block-ops") || set_option(command, o, "--block-ops", "convert.block_ops", p.text("--block-ops")) == kOk) &&
      (!p.has("--block-nodes") ||
       set_option(command, o, "--block-nodes", "convert.block_nodes", p.text("--block-nodes")) == kOk) &&
      (!p.has("--no-verify") || set_option(command, o, "--no-verify", "convert.verify", "0") == kOk);
  return ok ? kOk : kUsage;
}

int run_convert_float(const char* command, ofg_model* m, const ofg_options* o, std::string* json) {
  ofg_pass_report* rep = nullptr;
  ofg_status st = ofg_convert_float(m, o, &rep);
  if (st == OFG_ERR_VERIFY_FAILED) {
    std::fprintf(stderr, "onnxforge %s: %s\n", command, ofg_last_error());
    return kCheckFailed;
  }
  if (st != OFG_OK) return report(command, "", st);
  int64_t before = 0, after = 0;
  double ms = 0;
  int32_t rounds = 0;
  ofg_pass_report_totals(rep, &before, &after, nullptr, nullptr, &ms, &rounds);
  if (json) *json = ofg_pass_report_json(rep);
  std::printf("  precision conversion: nodes %lld -> %lld, %d round%s, %.2f ms (kept float32 and why: --report)\n",
              static_cast<long long>(before), static_cast<long long>(after), rounds, rounds == 1 ? "" : "s", ms);
  ofg_pass_report_free(rep);
  return kOk;
}

}  // namespace cli
