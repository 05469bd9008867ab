// onnxforge convert IN OUT [--external-data [--threshold BYTES]] [--target-opset N [--no-opset-verify]]
#include <cstdio>
#include <string>

#include "cli.h"
#include "output_paths.h"

namespace cli {

const CommandHelp kHelp = {
    "convert",
    "usage: onnxforge convert IN OUT [--external-data [--threshold BYTES]] [--target-opset N [--no-opset-verify]]\n",
    "Loads IN and saves it as OUT (atomically: OUT is replaced only when complete). OUT's folder\n"
    "(and OUT.data's, with --external-data) is checked before IN is read: it must exist and be\n"
    "writable. With --target-opset N the default ONNX domain is converted to opset N first (up or\n"
    "down) and the result verified against IN by execution, on the test_data_set_N folders beside\n"
    "IN when there are some, else on seeded inputs (--no-opset-verify skips that).\n"
    "Exit 0 ok, 1 the converted model differs from IN, 2 usage, input or output error, 3 no\n"
    "verification input could be built, 4 not convertible (the message names each node, op and\n"
    "opset without an adapter). OUT is written only on exit 0.\n"};

const std::vector<OptionSpec> kSpecs = {
    {"--external-data", OptionSpec::kFlag, "", "put tensors of at least --threshold bytes in OUT.data"},
    {"--threshold", OptionSpec::kCount, "BYTES", "with --external-data: smallest tensor moved out (default 1024)"},
    kTargetOpsetSpec,
    kNoOpsetVerifySpec,
};

int cmd_convert(const Args& args) {
  ParsedArgs p;
  if (int rc = parse_command(kHelp, args, kSpecs, p); rc >= 0) return rc;
  if (p.positional.size() != 2) return usage_error(kHelp.name, "give IN and OUT");
  if (p.has("--threshold") && !p.has("--external-data"))
    return usage_error(kHelp.name, "--threshold goes with --external-data");
  if (p.has("--no-opset-verify") && !p.has("--target-opset"))
    return usage_error(kHelp.name, "--no-opset-verify goes with --target-opset");
  const std::string &in = p.positional[0], &out = p.positional[1];
  // Where the result goes is checked before the model is read.
  if (!check_output_file(kHelp.name, out)) return kUsage;
  if (p.has("--external-data") && !check_output_file(kHelp.name, external_data_path(out))) return kUsage;
  ofg_options* opts = nullptr;
  ofg_status st = ofg_options_create(&opts);
  if (st != OFG_OK) return report(kHelp.name, "", st);
  if ((p.has("--external-data") && set_option(kHelp.name, opts, "--external-data", "save.external_data", "1") != kOk) ||
      (p.has("--threshold") &&
       set_option(kHelp.name, opts, "--threshold", "save.external_threshold", p.text("--threshold")) != kOk)) {
    ofg_options_free(opts);
    return kUsage;
  }
  // The conversion is verified on the test_data_set_N folders beside IN when there are some
  // (real data first, as optimize --verify), else on seeded inputs.
  if (p.has("--target-opset") && apply_verify_options(kHelp.name, p, opts, in) != kOk) {
    ofg_options_free(opts);
    return kUsage;
  }
  ofg_model* m = nullptr;
  st = ofg_load(in.c_str(), nullptr, &m);
  if (st != OFG_OK) {
    ofg_options_free(opts);
    return report(kHelp.name, in, st);
  }
  if (p.has("--target-opset")) {
    if (int rc = convert_to_target_opset(kHelp.name, p, m, opts); rc != kOk) {
      ofg_model_free(m);
      ofg_options_free(opts);
      return rc;
    }
  }
  st = save_model(m, out, opts);
  ofg_model_free(m);
  ofg_options_free(opts);
  if (st != OFG_OK) return report(kHelp.name, out, st);
  return kOk;
}

}  // namespace cli
