// What `optimize --verify` and `verify` share: the options that choose verification inputs, and
// the printed report.
#include <dirent.h>

#include <cstdio>
#include <string>

#include "cli.h"

namespace cli {

namespace {

// The folder part of a path ("." when there is none).
std::string folder_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool has_test_data_sets(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) return false;
  bool found = false;
  while (dirent* e = readdir(d))
    if (std::string(e->d_name).rfind("test_data_set_", 0) == 0) found = true;
  closedir(d);
  return found;
}

}  // namespace

int VerifyArgs::take(const Args& args, size_t& i, const char* command) {
  const std::string& a = args[i];
  auto value = [&](std::string& dst) -> bool {
    if (i + 1 >= args.size()) {
      std::fprintf(stderr, "onnxforge %s: %s needs a value\n", command, a.c_str());
      return false;
    }
    dst = args[++i];
    return true;
  };
  std::string v;
  const char* key = a == "--samples" ? "verify.samples" : a == "--seed" ? "verify.seed" : a == "--atol" ? "verify.atol"
                  : a == "--rtol" ? "verify.rtol" : a == "--max-tries" ? "verify.max_tries" : nullptr;
  if (key) {
    if (!value(v)) return kUsage;
    settings.emplace_back(key, v);
    return kOk;
  }
  if (a == "--dim" || a == "--input") {
    if (!value(v)) return kUsage;
    size_t eq = v.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == v.size()) {
      std::fprintf(stderr, "onnxforge %s: %s takes NAME=%s, got '%s'\n", command, a.c_str(),
                   a == "--dim" ? "SIZE" : "FILE.pb", v.c_str());
      return kUsage;
    }
    settings.emplace_back((a == "--dim" ? "verify.dim." : "verify.input.") + v.substr(0, eq), v.substr(eq + 1));
    if (a == "--input") given_files = true;
    return kOk;
  }
  if (a == "--test-data") {
    if (!value(test_data)) return kUsage;
    return kOk;
  }
  if (a == "--random-inputs") {
    random_inputs = true;
    return kOk;
  }
  return -1;
}

int VerifyArgs::apply(ofg_options* o, const std::string& model_path) const {
  for (auto& kv : settings)
    if (ofg_options_set(o, kv.first.c_str(), kv.second.c_str()) != OFG_OK) {
      std::fprintf(stderr, "onnxforge: %s\n", ofg_last_error());
      return kUsage;
    }
  std::string dir = test_data;
  // Real data first: the test_data_set_N folders beside the model, unless told otherwise.
  if (dir.empty() && !random_inputs && !given_files && !model_path.empty() && has_test_data_sets(folder_of(model_path)))
    dir = folder_of(model_path);
  if (!dir.empty() && ofg_options_set(o, "verify.test_data", dir.c_str()) != OFG_OK) {
    std::fprintf(stderr, "onnxforge: %s\n", ofg_last_error());
    return kUsage;
  }
  return kOk;
}

const char* const kVerifyOptionsHelp =
    "inputs of the verification (real data first):\n"
    "  --test-data DIR     a test_data_set_N folder, or a folder of them (input_K.pb = input K);\n"
    "                      default: the test_data_set_N folders beside the (reference) model\n"
    "  --input NAME=FILE   one input from a TensorProto .pb file (repeatable)\n"
    "  --random-inputs     ignore test data beside the model: seeded inputs only\n"
    "  --dim NAME=V        size of symbolic dim NAME (repeatable); other free dims are chosen from\n"
    "                      sizes the graph suggests until the reference model accepts them\n"
    "  --samples N         seeded input sets (default 1)   --seed S   first seed (default 0)\n"
    "  --atol X --rtol Y   tolerances (default 1e-4, 1e-3): |a-e| <= atol + rtol*|e|;\n"
    "                      NaN matches NaN, +-Inf matches the same infinity\n"
    "  --max-tries N       candidate input sets before giving up (default 32; exit 3)\n";

int print_verify_report(ofg_report* rep, bool json, const char* indent) {
  int32_t passed = 0;
  size_t n_out = 0, n_in = 0;
  ofg_report_passed(rep, &passed);
  if (json) {
    const char* j = ofg_report_json(rep);
    std::printf("%s\n", j ? j : "null");
    return passed ? kOk : kCheckFailed;
  }
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
    std::printf("\n");
  }
  return passed ? kOk : kCheckFailed;
}

int report_verify_error(ofg_status s) {
  report("verify", s);
  return s == OFG_ERR_NO_VALID_INPUTS ? kNoValidInputs : kUsage;
}

}  // namespace cli
