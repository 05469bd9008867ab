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

const OptionSpec kThreadsSpec = {"--threads", OptionSpec::kCount, "N",
                                  "threads for the model's ops (default 0: the machine's cores; 1: one)"};

int apply_threads_option(const ParsedArgs& p, ofg_options* o) {
  if (!p.has("--threads")) return kOk;
  if (ofg_status s = ofg_options_set(o, "run.threads", p.text("--threads").c_str())) return report("--threads", s);
  return kOk;
}

int make_threads_options(const ParsedArgs& p, std::unique_ptr<ofg_options, void (*)(ofg_options*)>& out) {
  if (!p.has("--threads")) return kOk;
  ofg_options* o = nullptr;
  if (ofg_options_create(&o) != OFG_OK) return report("options", OFG_ERR_NO_MEMORY);
  out.reset(o);
  return apply_threads_option(p, o);
}

long long file_size(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<long long>(st.st_size) : -1;
}

}  // namespace cli
