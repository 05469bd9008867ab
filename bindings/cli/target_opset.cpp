// --target-opset N of `convert` and `optimize`: ofg_convert_opset on the loaded model, with its
// outcome mapped to the commands' exit codes (kNotConvertible when some node has no adapter).
#include <cstdio>
#include <string>

#include "cli.h"
#include "messages.h"

namespace cli {

const OptionSpec kTargetOpsetSpec = {"--target-opset", OptionSpec::kCount, "N",
                                     "convert the default ONNX domain to opset N (up or down), verified by execution"};
const OptionSpec kNoOpsetVerifySpec = {"--no-opset-verify", OptionSpec::kFlag, "",
                                       "with --target-opset: skip the verification of the conversion by execution"};

int64_t target_opset(const ParsedArgs& p) {
  if (!p.has("--target-opset")) return 0;
  const std::string v = p.text("--target-opset");
  return v.size() > 6 ? -1 : std::stoll(v);
}

int convert_to_target_opset(const char* command, const ParsedArgs& p, ofg_model* m, ofg_options* opts) {
  const int64_t target = target_opset(p);
  if (p.has("--no-opset-verify") && set_option(command, opts, "--no-opset-verify", "convert.verify", "0") != kOk)
    return kUsage;
  ofg_pass_report* rep = nullptr;
  ofg_status st = ofg_convert_opset(m, target, opts, &rep);
  if (p.has("--no-opset-verify")) ofg_options_set(opts, "convert.verify", "1");
  if (st == OFG_ERR_UNSUPPORTED) {
    std::fprintf(stderr, "onnxforge %s: not convertible to opset %lld (nothing written):\n%s\n", command,
                 static_cast<long long>(target), ofg_last_error());
    return kNotConvertible;
  }
  if (st == OFG_ERR_VERIFY_FAILED) {
    std::fprintf(stderr, "onnxforge %s: %s\n", command, ofg_last_error());
    return kCheckFailed;
  }
  if (st != OFG_OK) return st == OFG_ERR_NO_VALID_INPUTS ? report_verify_error(command, st) : report(command, "", st);
  ofg_pass_entry e{};
  e.struct_size = sizeof e;
  if (ofg_pass_report_entry(rep, 0, &e) == OFG_OK) std::printf("convert: %s\n", e.note);
  ofg_pass_report_free(rep);
  return kOk;
}

}  // namespace cli
