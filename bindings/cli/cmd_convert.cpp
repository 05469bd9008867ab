// onnxforge convert IN OUT [--external-data [--threshold BYTES]] [--target-opset N [--no-opset-verify]]
//                         [--to-float16|--to-bfloat16 [--convert-io] [--block-ops A,B] [--block-nodes N1,N2]
//                          [--no-verify] [--report FILE]]
#include <cstdio>
#include <string>

#include "cli.h"
#include "convert_float_flags.h"
#include "output_paths.h"

namespace cli {

const CommandHelp kHelp = {
    "convert",
    "usage: onnxforge convert IN OUT [--external-data [--threshold BYTES]] [--target-opset N [--no-opset-verify]]\n"
    "                         [--to-float16|--to-bfloat16 [--convert-io] [--block-ops A,B] [--block-nodes N1,N2]\n"
    "                          [--no-verify] [--report FILE.json]]\n",
    "Loads IN and saves it as OUT (atomically: OUT is replaced only when complete). OUT's folder\n"
    "(and OUT.data's, with --external-data) is checked before IN is read: it must exist and be\n"
    "writable. OUT is written only on exit 0.\n"
    "With --target-opset N the default ONNX domain is converted to opset N first (up or down) and the\n"
    "result verified against IN by execution, on the test_data_set_N folders beside IN when there are\n"
    "some, else on seeded inputs (--no-opset-verify skips that).\n"
    "--to-float16/--to-bfloat16 convert the float32 computation (inputs and outputs stay float32\n"
    "unless --convert-io), verify the result against the float32 model and keep float32 the nodes\n"
    "whose conversion makes the outputs drift (tolerance float16 1e-2, bfloat16 1.5e-1); exit 1 and\n"
    "no OUT when no mixed-precision model verifies. --report FILE gets the conversion's JSON report.\n"
    "With both, the opset conversion comes first.\n"
    "Exit 0 ok, 1 the converted model differs from IN, 2 usage, input or output error, 3 no\n"
    "verification input could be built, 4 not convertible to the opset (the message names each node,\n"
    "op and opset without an adapter).\n"};

// Built on first use: it takes the shared tables of other files (static initialisation order
// across files is unspecified).
std::vector<OptionSpec> specs() {
  std::vector<OptionSpec> s = {
      {"--external-data", OptionSpec::kFlag, "", "put tensors of at least --threshold bytes in OUT.data"},
      {"--threshold", OptionSpec::kCount, "BYTES", "with --external-data: smallest tensor moved out (default 1024)"},
      kTargetOpsetSpec,
      kNoOpsetVerifySpec,
  };
  // --- precision conversion
  s.insert(s.end(), convert_float_specs().begin(), convert_float_specs().end());
  s.push_back({"--report", OptionSpec::kText, "FILE.json", "with --to-*: write the conversion's report as JSON"});
  s.insert(s.end(), kVerifySpecs.begin(), kVerifySpecs.end());  // the conversion's verification inputs
  // --- end precision conversion
  return s;
}

int cmd_convert(const Args& args) {
  ParsedArgs p;
  if (int rc = parse_command(kHelp, args, specs(), p); rc >= 0) return rc;
  if (p.positional.size() != 2) return usage_error(kHelp.name, "give IN and OUT");
  if (p.has("--threshold") && !p.has("--external-data"))
    return usage_error(kHelp.name, "--threshold goes with --external-data");
  if (p.has("--no-opset-verify") && !p.has("--target-opset"))
    return usage_error(kHelp.name, "--no-opset-verify goes with --target-opset");
  const std::string &in = p.positional[0], &out = p.positional[1];
  // Where the result goes is checked before the model is read.
  if (!check_output_file(kHelp.name, out)) return kUsage;
  if (p.has("--external-data") && !check_output_file(kHelp.name, external_data_path(out))) return kUsage;
  // --- precision conversion: --report is checked with the other outputs
  if (p.has("--report") && !wants_convert_float(p)) return usage_error(kHelp.name, "--report goes with --to-float16 or --to-bfloat16");
  if (p.has("--report") && (p.text("--report") == out || !check_output_file(kHelp.name, p.text("--report")))) return kUsage;
  // --- end precision conversion
  // Verification inputs serve the float conversion's proof and the opset conversion's check.
  const bool verifies = (wants_convert_float(p) && !p.has("--no-verify")) || p.has("--target-opset");
  ofg_options* opts = nullptr;
  ofg_status st = ofg_options_create(&opts);
  if (st != OFG_OK) return report(kHelp.name, "", st);
  if ((p.has("--external-data") && set_option(kHelp.name, opts, "--external-data", "save.external_data", "1") != kOk) ||
      (p.has("--threshold") &&
       set_option(kHelp.name, opts, "--threshold", "save.external_threshold", p.text("--threshold")) != kOk) ||
      apply_convert_float_options(kHelp.name, p, opts) != kOk ||
      (any_verify_option(p) && !verifies &&
       usage_error(kHelp.name, "verification options go with --to-float16, --to-bfloat16 or --target-opset") != kOk) ||
      (verifies && apply_verify_options(kHelp.name, p, opts, in) != kOk)) {
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
  // --- precision conversion: the model is converted (and verified) before anything is written
  std::string convert_json;
  if (wants_convert_float(p)) {
    if (int rc = run_convert_float(kHelp.name, m, opts, &convert_json); rc != kOk) {
      ofg_model_free(m);
      ofg_options_free(opts);
      return rc;
    }
  }
  // --- end precision conversion
  st = save_model(m, out, opts);
  ofg_model_free(m);
  if (st == OFG_OK && p.has("--report") && !write_file_atomically(kHelp.name, p.text("--report"), convert_json + "\n")) {
    ofg_options_free(opts);
    return kUsage;
  }
  ofg_options_free(opts);
  if (st != OFG_OK) return report(kHelp.name, out, st);
  return kOk;
}

}  // namespace cli
