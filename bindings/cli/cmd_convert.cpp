// onnxforge convert IN OUT [--external-data [--threshold BYTES]]
#include <cstdio>
#include <string>

#include "cli.h"

namespace cli {

const CommandHelp kHelp = {
    "convert",
    "usage: onnxforge convert IN OUT [--external-data [--threshold BYTES]]\n",
    "Loads IN and saves it as OUT (atomically: OUT is replaced only when complete).\n"};

const std::vector<OptionSpec> kSpecs = {
    {"--external-data", OptionSpec::kFlag, "", "put tensors of at least --threshold bytes in OUT.data"},
    {"--threshold", OptionSpec::kCount, "BYTES", "with --external-data: smallest tensor moved out (default 1024)"},
};

int cmd_convert(const Args& args) {
  ParsedArgs p;
  if (int rc = parse_command(kHelp, args, kSpecs, p); rc >= 0) return rc;
  if (p.positional.size() != 2) return usage_error(kHelp.name, "give IN and OUT");
  if (p.has("--threshold") && !p.has("--external-data"))
    return usage_error(kHelp.name, "--threshold goes with --external-data");
  const std::string &in = p.positional[0], &out = p.positional[1];
  ofg_options* opts = nullptr;
  ofg_status st = ofg_options_create(&opts);
  if (st == OFG_OK && p.has("--external-data")) st = ofg_options_set(opts, "save.external_data", "1");
  if (st == OFG_OK && p.has("--threshold"))
    st = ofg_options_set(opts, "save.external_threshold", p.text("--threshold").c_str());
  if (st != OFG_OK) {
    ofg_options_free(opts);
    return report("options", st);
  }
  ofg_model* m = nullptr;
  st = ofg_load(in.c_str(), nullptr, &m);
  if (st != OFG_OK) {
    ofg_options_free(opts);
    return report(in.c_str(), st);
  }
  st = save_model(m, out, opts);
  ofg_model_free(m);
  ofg_options_free(opts);
  if (st != OFG_OK) return report(out.c_str(), st);
  return kOk;
}

}  // namespace cli
