#include <sys/stat.h>

#include <cstdio>

#include "cli.h"
#include "messages.h"

namespace cli {

int report(const char* command, const std::string& subject, ofg_status s) {
  print_error(command, subject, s);
  return kUsage;
}

int usage_error(const char* command, const std::string& what) {
  std::fprintf(stderr, "onnxforge %s: %s (see onnxforge help %s)\n", command, what.c_str(), command);
  return kUsage;
}

int set_option(const char* command, ofg_options* o, const char* option, const std::string& key, const std::string& value) {
  if (ofg_options_set(o, key.c_str(), value.c_str()) == OFG_OK) return kOk;
  // The library says "ofg_options_set: 'KEY' takes ...": the user typed the option, not the key.
  std::string text = ofg_last_error();
  const std::string lead = "ofg_options_set: '" + key + "'";
  if (text.compare(0, lead.size(), lead) == 0) text = option + text.substr(lead.size());
  else text = std::string(option) + ": " + error_text(command, "", text);
  return usage_error(command, text);
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

int apply_threads_option(const char* command, const ParsedArgs& p, ofg_options* o) {
  if (!p.has("--threads")) return kOk;
  return set_option(command, o, "--threads", "run.threads", p.text("--threads"));
}

int make_threads_options(const char* command, const ParsedArgs& p, std::unique_ptr<ofg_options, void (*)(ofg_options*)>& out) {
  if (!p.has("--threads")) return kOk;
  ofg_options* o = nullptr;
  if (ofg_status s = ofg_options_create(&o)) return report(command, "", s);
  out.reset(o);
  return apply_threads_option(command, p, o);
}

long long file_size(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<long long>(st.st_size) : -1;
}

ofg_status op_counts(ofg_model* m, std::vector<std::pair<std::string, size_t>>& ops) {
  size_t n = 0;
  ofg_status st = ofg_model_op_histogram_count(m, &n);
  for (size_t i = 0; st == OFG_OK && i < n; ++i) {
    const char *domain, *op;
    size_t count;
    if ((st = ofg_model_op_histogram_entry(m, i, &domain, &op, &count)) == OFG_OK)
      ops.emplace_back(*domain ? std::string(domain) + "." + op : std::string(op), count);
  }
  return st;
}

}  // namespace cli
