// onnxforge convert IN OUT [--external-data [--threshold BYTES]]
#include <cstdio>
#include <string>

#include "cli.h"

namespace cli {

int cmd_convert(const Args& args) {
  std::string in, out, threshold;
  bool external = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (is_flag(a, "--help") || is_flag(a, "-h")) {
      std::printf("usage: onnxforge convert IN OUT [--external-data [--threshold BYTES]]\n\n"
                  "Loads IN and saves it as OUT (atomically: OUT is replaced only when complete).\n"
                  "--external-data   put tensors of at least BYTES (default 1024) in OUT.data\n");
      return kOk;
    }
    if (is_flag(a, "--external-data")) external = true;
    else if (is_flag(a, "--threshold")) {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "onnxforge convert: --threshold needs a byte count\n");
        return kUsage;
      }
      threshold = args[++i];
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "onnxforge convert: unknown option '%s'\n", a.c_str());
      return kUsage;
    } else if (in.empty()) in = a;
    else if (out.empty()) out = a;
    else {
      std::fprintf(stderr, "onnxforge convert: too many arguments\n");
      return kUsage;
    }
  }
  if (in.empty() || out.empty()) {
    std::fprintf(stderr, "usage: onnxforge convert IN OUT [--external-data [--threshold BYTES]]\n");
    return kUsage;
  }
  if (!threshold.empty() && !external) {
    std::fprintf(stderr, "onnxforge convert: --threshold goes with --external-data\n");
    return kUsage;
  }
  ofg_options* opts = nullptr;
  ofg_status st = ofg_options_create(&opts);
  if (st == OFG_OK && external) st = ofg_options_set(opts, "save.external_data", "1");
  if (st == OFG_OK && !threshold.empty()) st = ofg_options_set(opts, "save.external_threshold", threshold.c_str());
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
  st = ofg_save(m, out.c_str(), opts);
  ofg_model_free(m);
  ofg_options_free(opts);
  if (st != OFG_OK) return report(out.c_str(), st);
  return kOk;
}

}  // namespace cli
