// onnxforge passes: lists the passes with their accuracy class and description.
#include <cstdio>

#include "cli.h"

namespace cli {

int cmd_passes(const Args& args) {
  for (const std::string& a : args) {
    if (is_flag(a, "--help") || is_flag(a, "-h")) {
      std::printf("usage: onnxforge passes\n\nLists the optimization passes. Class 0 is exact, 1 bounded float\n"
                  "rounding, 2 pattern rewrites verified on real models; [opt-in] passes are not in the default pipeline.\n");
      return kOk;
    }
    std::fprintf(stderr, "onnxforge passes: unexpected argument '%s'\n", a.c_str());
    return kUsage;
  }
  size_t n = ofg_pass_count();
  for (size_t i = 0; i < n; ++i)
    std::printf("%-34s class %d%s  %s\n", ofg_pass_name(i), ofg_pass_class(i),
                ofg_pass_in_default_pipeline(i) ? "" : " [opt-in]", ofg_pass_description(i));
  return kOk;
}

}  // namespace cli
