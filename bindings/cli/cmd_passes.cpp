// onnxforge passes [--json]: the optimization passes with their accuracy class and description.
#include <cstdio>

#include "cli.h"

namespace cli {

const CommandHelp kHelp = {
    "passes",
    "usage: onnxforge passes [--json]\n",
    "Lists the optimization passes. Class 0 is exact, 1 bounded float rounding, 2 pattern\n"
    "rewrites verified on real models; [opt-in] passes are not in the default pipeline.\n"};

const std::vector<OptionSpec> kSpecs = {{"--json", OptionSpec::kFlag, "", "print the list as JSON"}};

int cmd_passes(const Args& args) {
  ParsedArgs p;
  if (int rc = parse_command(kHelp, args, kSpecs, p); rc >= 0) return rc;
  if (!p.positional.empty()) return usage_error(kHelp.name, "unexpected argument '" + p.positional[0] + "'");
  size_t n = ofg_pass_count();
  if (p.has("--json")) {
    JsonWriter j;
    j.begin_array();
    for (size_t i = 0; i < n; ++i)
      j.begin_object()
          .str("name", ofg_pass_name(i))
          .integer("class", ofg_pass_class(i))
          .boolean("default", ofg_pass_in_default_pipeline(i) != 0)
          .str("description", ofg_pass_description(i))
          .end_object();
    j.end_array();
    std::printf("%s\n", j.text().c_str());
    return kOk;
  }
  for (size_t i = 0; i < n; ++i)
    std::printf("%-34s class %d%s  %s\n", ofg_pass_name(i), ofg_pass_class(i),
                ofg_pass_in_default_pipeline(i) ? "" : " [opt-in]", ofg_pass_description(i));
  return kOk;
}

}  // namespace cli
