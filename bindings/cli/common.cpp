#include <sys/stat.h>

#include <cstdio>

#include "cli.h"

namespace cli {

int report(const char* what, ofg_status s) {
  std::fprintf(stderr, "onnxforge: %s: %s (%s)\n", what, ofg_last_error(), ofg_status_string(s));
  return kUsage;
}

int usage_error(const char* command, const std::string& what) {
  std::fprintf(stderr, "onnxforge %s: %s (see onnxforge help %s)\n", command, what.c_str(), command);
  return kUsage;
}

int parse_command(const CommandHelp& help, const Args& args, const std::vector<OptionSpec>& specs, ParsedArgs& p) {
  if (!parse_args(help.name, args, specs, p)) return kUsage;
  if (!p.help) return -1;
  std::printf("%s\n%s\noptions:\n", help.usage, help.about);
  print_options(stdout, specs);
  return kOk;
}

ofg_status load_model(const std::string& path, bool demo, ofg_model** out) {
  if (demo) return ofg_model_create_demo(out);
  return ofg_load(path.c_str(), nullptr, out);
}

long long file_size(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<long long>(st.st_size) : -1;
}

}  // namespace cli
