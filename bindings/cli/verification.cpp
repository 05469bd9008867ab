// What `optimize --verify` and `verify` share: the options that choose verification inputs, and
// the printed report.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "cli.h"
#include "messages.h"
#include "output_paths.h"

namespace cli {

namespace {

bool has_test_data_sets(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) return false;
  bool found = false;
  while (dirent* e = readdir(d))
    if (std::string(e->d_name).rfind("test_data_set_", 0) == 0) found = true;
  closedir(d);
  return found;
}

// Why `path` cannot be read as a file ("" when it can): checked before any work is done.
std::string unreadable(const std::string& path, bool folder) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
  if (folder != S_ISDIR(st.st_mode)) return folder ? "not a folder" : "it is a folder";
  if (::access(path.c_str(), R_OK) != 0) return std::strerror(errno);
  return "";
}

}  // namespace

const std::vector<OptionSpec> kVerifySpecs = {
    {"--test-data", OptionSpec::kText, "DIR",
     "verification inputs from a test_data_set_N folder or a folder of them (input_K.pb is input K);\n"
     "                        default: the test_data_set_N folders beside the (reference) model"},
    {"--input", OptionSpec::kText, "NAME=FILE.pb", "one verification input from a TensorProto file", true},
    {"--random-inputs", OptionSpec::kFlag, "", "ignore test data beside the model: seeded inputs only"},
    {"--dim", OptionSpec::kText, "NAME=SIZE",
     "size of symbolic dim NAME; other free dims are tried from the sizes the graph\n"
     "                        suggests until the reference model accepts them",
     true},
    {"--samples", OptionSpec::kCount, "N", "seeded input sets (default 1)"},
    {"--seed", OptionSpec::kCount, "S", "seed of the first input set (default 0)"},
    {"--atol", OptionSpec::kNumber, "X",
     "absolute tolerance for every output (default by output type: 1e-4; float16 2^-9,\n"
     "                        bfloat16 2^-6, i.e. two machine epsilons of the type)"},
    {"--rtol", OptionSpec::kNumber, "Y",
     "relative tolerance for every output (default 1e-3; float16 2^-9, bfloat16 2^-6):\n"
     "                        |a-e| <= atol + rtol*|e|; NaN matches NaN, an infinity only the same\n"
     "                        infinity. An output outside tolerance still passes when the reference\n"
     "                        run in float64 finds it at least as close to the exact answer as the\n"
     "                        reference (largest error and count outside tolerance)"},
    {"--max-tries", OptionSpec::kCount, "N", "candidate input sets before giving up with exit 3 (default 32)"},
};

bool any_verify_option(const ParsedArgs& p) {
  for (const OptionSpec& s : kVerifySpecs)
    if (p.has(s.name)) return true;
  return false;
}

int apply_verify_options(const char* command, const ParsedArgs& p, ofg_options* o, const std::string& model_path) {
  static const std::pair<const char*, const char*> kPlain[] = {{"--samples", "verify.samples"},
                                                              {"--seed", "verify.seed"},
                                                              {"--atol", "verify.atol"},
                                                              {"--rtol", "verify.rtol"},
                                                              {"--max-tries", "verify.max_tries"}};
  for (auto& kv : kPlain)
    if (p.has(kv.first) && set_option(command, o, kv.first, kv.second, p.text(kv.first)) != kOk) return kUsage;
  for (const char* opt : {"--dim", "--input"}) {
    const bool dim = opt[2] == 'd';
    for (const std::string& v : p.all(opt)) {
      size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
        return usage_error(command, std::string(opt) + " takes NAME=" + (dim ? "SIZE" : "FILE.pb") + ", got '" + v + "'");
      const std::string name = v.substr(0, eq), value = v.substr(eq + 1);
      if (!dim) {
        std::string why = unreadable(value, false);
        if (!why.empty()) return usage_error(command, "--input " + name + ": cannot read '" + value + "': " + why);
      }
      if (set_option(command, o, opt, (dim ? "verify.dim." : "verify.input.") + name, value) != kOk) return kUsage;
    }
  }
  std::string dir = p.text("--test-data");
  if (!dir.empty()) {
    std::string why = unreadable(dir, true);
    if (!why.empty()) return usage_error(command, "--test-data: cannot read folder '" + dir + "': " + why);
  }
  // Real data first: the test_data_set_N folders beside the model, unless told otherwise.
  if (dir.empty() && !p.has("--random-inputs") && !p.has("--input") && !model_path.empty() &&
      has_test_data_sets(folder_of(model_path)))
    dir = folder_of(model_path);
  if (!dir.empty() && set_option(command, o, "--test-data", "verify.test_data", dir) != kOk) return kUsage;
  return kOk;
}

int check_input_names(const char* command, const ParsedArgs& p, ofg_model* reference) {
  std::vector<std::string> known;
  size_t n = 0;
  ofg_model_io_count(reference, OFG_INPUT, &n);
  for (size_t k = 0; k < n; ++k) {
    ofg_value_desc d{};
    d.struct_size = sizeof d;
    if (ofg_model_io(reference, OFG_INPUT, k, &d) == OFG_OK) known.push_back(d.name);
  }
  for (const std::string& v : p.all("--input")) {
    const std::string name = v.substr(0, v.find('='));
    bool found = false;
    for (const std::string& k : known) found |= k == name;
    if (found) continue;
    std::string list, hint = nearest(name, known);
    for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
    std::fprintf(stderr, "onnxforge %s: --input %s: the model has no input '%s' (%sits inputs: %s)\n", command,
                 name.c_str(), name.c_str(), hint.empty() ? "" : ("did you mean '" + hint + "'?; ").c_str(), list.c_str());
    return kUsage;
  }
  return kOk;
}

int print_verify_report(ofg_report* rep, const char* indent) {
  int32_t passed = 0;
  size_t n_out = 0, n_in = 0;
  ofg_report_passed(rep, &passed);
  ofg_report_output_count(rep, &n_out);
  ofg_report_input_count(rep, &n_in);
  std::printf("%sverify: %s\n", indent, passed ? "outputs match" : "OUTPUTS DIFFER");
  std::printf("%s  inputs: %s\n", indent, ofg_report_note(rep));
  for (size_t i = 0; i < n_in; ++i) {
    ofg_input_info in{};
    in.struct_size = sizeof in;
    if (ofg_report_input(rep, i, &in) != OFG_OK) continue;
    std::string shape = "[";
    for (size_t k = 0; k < in.rank; ++k) shape += (k ? "," : "") + std::to_string(in.dims[k]);
    shape += "]";
    std::printf("%s    %-26s %-8s %-18s %s\n", indent, in.name, ofg_elem_type_name(in.elem_type), shape.c_str(),
                in.source);
  }
  std::printf("%s  outputs (|a-e| <= atol + rtol*|e|; NaN matches NaN, Inf the same Inf):\n", indent);
  for (size_t i = 0; i < n_out; ++i) {
    ofg_diff d{};
    d.struct_size = sizeof d;
    if (ofg_report_output(rep, i, &d) != OFG_OK) continue;
    if (d.problem) {
      std::printf("%s    FAIL %-26s %s\n", indent, d.name, d.problem);
      continue;
    }
    std::printf("%s    %s %-26s max abs %.3g  max rel %.3g  over tolerance %llu/%llu", indent, d.passed ? "ok  " : "FAIL",
                d.name, d.max_abs, d.max_rel, static_cast<unsigned long long>(d.mismatches),
                static_cast<unsigned long long>(d.elements));
    if (d.mismatches) std::printf("  first at %llu", static_cast<unsigned long long>(d.first_mismatch));
    if (d.atol != 1e-4 || d.rtol != 1e-3) std::printf("  (atol %.3g rtol %.3g)", d.atol, d.rtol);
    std::printf("\n");
    if (d.referee && std::string(d.referee).rfind("unavailable", 0) == 0)
      std::printf("%s         float64 referee %s\n", indent, d.referee);
    else if (d.referee)
      std::printf("%s         float64 referee: %s (%llu over tolerance of the reference; max abs error vs float64: "
                  "reference %.3g, candidate %.3g)\n",
                  indent, d.referee, static_cast<unsigned long long>(d.outside_tolerance), d.referee_reference_error,
                  d.referee_candidate_error);
  }
  return passed ? kOk : kCheckFailed;
}

int report_verify_error(const char* command, ofg_status s) {
  print_error(command, "", s);
  return s == OFG_ERR_NO_VALID_INPUTS ? kNoValidInputs : kUsage;
}

}  // namespace cli
