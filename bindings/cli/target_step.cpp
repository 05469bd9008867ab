// --target NAME of `optimize`: ofg_legalize_for_target on the optimized model, with what is still
// illegal printed node by node and mapped to the command's exit code (kIllegalAfterTarget unless
// --allow-illegal).
#include <cstdio>
#include <string>

#include "cli.h"
#include "json_reader.h"
#include "messages.h"

namespace cli {

const OptionSpec kTargetSpec = {"--target", OptionSpec::kText, "NAME",
                                "legalise for a target profile after the passes (onnxforge targets lists them); "
                                "verified by execution unless --no-opset-verify"};
const OptionSpec kAllowIllegalSpec = {"--allow-illegal", OptionSpec::kFlag, "",
                                      "with --target: save OUT (exit 0) even when some node is still not legal"};

int legalise_for_target(const char* command, const ParsedArgs& p, ofg_model* m, ofg_options* opts, std::string* json) {
  const std::string target = p.text("--target");
  if (p.has("--no-opset-verify") && set_option(command, opts, "--no-opset-verify", "convert.verify", "0") != kOk)
    return kUsage;
  char* text = nullptr;
  ofg_status st = ofg_legalize_for_target(m, target.c_str(), opts, &text);
  if (p.has("--no-opset-verify")) ofg_options_set(opts, "convert.verify", "1");
  if (st == OFG_ERR_VERIFY_FAILED) {
    std::fprintf(stderr, "onnxforge %s: %s\n", command, ofg_last_error());
    return kCheckFailed;
  }
  if (st != OFG_OK) return st == OFG_ERR_NO_VALID_INPUTS ? report_verify_error(command, st) : report(command, "", st);
  *json = text;
  ofg_buffer_free(text);
  JsonValue v;
  if (!parse_json(*json, v)) {
    std::fprintf(stderr, "onnxforge %s: the library's answer is not JSON\n", command);
    return kUsage;
  }
  std::printf("target %s: opset %lld -> %lld, %zu rewrite(s), illegal nodes %lld -> %lld; %s\n", target.c_str(),
              v.integer("opset_before"), v.integer("opset_after"), v["rewrites"].items.size(),
              v.integer("illegal_before"), v.integer("illegal_after"), v.str("verified").c_str());
  for (const JsonValue& n : v["notes"].items) std::printf("  note: %s\n", n.s.c_str());
  for (const JsonValue& f : v["findings"].items) {
    std::string where = f.str("node").empty() && f.str("op").empty() ? std::string("(model)")
                                                                    : f.str("node") + " (" + f.str("op") + ")";
    if (!f.str("graph").empty()) where = f.str("graph") + ": " + where;
    std::printf("  still illegal: %-40s %-11s %s\n", where.c_str(), f.str("rule").c_str(), f.str("message").c_str());
  }
  if (v["legal"].b || p.has("--allow-illegal")) return kOk;
  std::fprintf(stderr, "onnxforge %s: %zu finding(s) left for target %s (listed above; --allow-illegal saves anyway)\n",
               command, v["findings"].items.size(), target.c_str());
  return kIllegalAfterTarget;
}

}  // namespace cli
