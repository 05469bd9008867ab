// onnxforge run DIR [--rtol X] [--atol Y] [--json]           (ONNX backend-test layout)
// onnxforge run MODEL.onnx --light [--rtol X] [--atol Y] [--json]  (light suite: arange input)
// onnxforge run MODEL --input NAME=FILE.pb ... [--output-dir D]
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cli.h"
#include "output_paths.h"

namespace cli {
namespace {

bool read_file(const std::string& path, std::string& out) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  char buf[65536];
  size_t n;
  out.clear();
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return true;
}

bool exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

ofg_status load_pb(const std::string& path, ofg_tensor** out) {
  std::string bytes;
  if (!read_file(path, bytes)) {
    std::fprintf(stderr, "onnxforge run: cannot read '%s': %s\n", path.c_str(), std::strerror(errno));
    return OFG_ERR_IO;
  }
  return ofg_tensor_load_pb(bytes.data(), bytes.size(), out);
}

struct Line {
  std::string set, name;
  ofg_diff d{};
  std::string problem;
  bool passed = false;
};

// Runs `model` with `inputs` bound to graph inputs 0..n-1 and compares with `expected`.
bool run_and_compare(ofg_model* m, const ofg_options* o, const std::string& set, std::vector<ofg_tensor*>& inputs,
                     std::vector<ofg_tensor*>& expected, double atol, double rtol, std::vector<Line>& lines,
                     const std::string& only_name = "") {
  std::vector<std::string> names;
  if (!only_name.empty()) names.push_back(only_name);
  for (size_t k = names.size(); k < inputs.size(); ++k) {
    ofg_value_desc d;
    d.struct_size = sizeof d;
    if (ofg_model_io(m, OFG_INPUT, k, &d) != OFG_OK) return false;
    names.push_back(d.name);
  }
  std::vector<const char*> cn;
  for (auto& n : names) cn.push_back(n.c_str());
  size_t n_out = 0;
  ofg_tensor** outs = nullptr;
  ofg_status s = ofg_run(m, o, inputs.size(), cn.data(), inputs.data(), &n_out, &outs);
  if (s != OFG_OK) {
    Line l;
    l.set = set;
    l.name = "*";
    l.problem = std::string(ofg_status_string(s)) + ": " + ofg_last_error();
    lines.push_back(l);
    return false;
  }
  bool all = true;
  for (size_t k = 0; k < expected.size(); ++k) {
    Line l;
    l.set = set;
    l.d.struct_size = sizeof l.d;
    if (k >= n_out) {
      l.name = "#" + std::to_string(k);
      l.problem = "the model has fewer outputs than data files";
    } else {
      l.name = ofg_tensor_name(outs[k]);
      if (ofg_tensor_compare(outs[k], expected[k], atol, rtol, &l.d) != OFG_OK) l.problem = ofg_last_error();
      else if (l.d.problem) l.problem = l.d.problem;
      l.passed = l.problem.empty() && l.d.passed;
    }
    all &= l.passed;
    lines.push_back(l);
  }
  ofg_tensors_free(outs, n_out);
  return all;
}

// The declared kind of graph input/output k (OFG_VALUE_*, 0 when not declared).
int32_t io_kind(ofg_model* m, int32_t which, size_t k) {
  ofg_value_desc d{};
  d.struct_size = sizeof d;
  if (ofg_model_io(m, which, k, &d) != OFG_OK) return 0;
  return d.kind;
}

Line problem_line(const std::string& set, const std::string& name, ofg_status s) {
  Line l;
  l.set = set;
  l.name = name;
  l.problem = std::string(ofg_status_string(s)) + ": " + ofg_last_error();
  return l;
}

// One data set of a model with sequence or optional inputs/outputs: each .pb is parsed per the
// declared type of its input/output, the run and the comparison go through ofg_value.
bool run_set_values(ofg_model* m, const ofg_options* o, const std::string& dir, const std::string& set, double atol, double rtol,
                    std::vector<Line>& lines) {
  std::vector<ofg_value*> inputs, expected;
  std::vector<std::string> names;
  auto free_values = [](std::vector<ofg_value*>& v) {
    for (auto* x : v) ofg_value_free(x);
    v.clear();
  };
  bool ok = true;
  for (int which : {OFG_INPUT, OFG_OUTPUT}) {
    const char* stem = which == OFG_INPUT ? "input_" : "output_";
    for (size_t k = 0; ok; ++k) {
      std::string p = dir + "/" + set + "/" + stem + std::to_string(k) + ".pb", bytes;
      if (!exists(p)) break;
      ofg_value* v = nullptr;
      ofg_status s = read_file(p, bytes) ? ofg_value_load_pb(m, which, k, bytes.data(), bytes.size(), &v) : OFG_ERR_IO;
      if (s != OFG_OK) {
        lines.push_back(problem_line(set, stem + std::to_string(k), s));
        ok = false;
        break;
      }
      if (which == OFG_INPUT) {
        ofg_value_desc d{};
        d.struct_size = sizeof d;
        if (ofg_model_io(m, OFG_INPUT, k, &d) == OFG_OK) names.push_back(d.name);
        inputs.push_back(v);
      } else {
        expected.push_back(v);
      }
    }
  }
  size_t n_out = 0;
  ofg_value** outs = nullptr;
  if (ok && names.size() == inputs.size()) {
    std::vector<const char*> cn;
    for (auto& n : names) cn.push_back(n.c_str());
    if (ofg_status s = ofg_run_values(m, o, inputs.size(), cn.data(), inputs.data(), &n_out, &outs)) {
      lines.push_back(problem_line(set, "*", s));
      ok = false;
    }
  } else if (ok) {
    lines.push_back(problem_line(set, "*", OFG_ERR_INVALID_ARGUMENT));
    ok = false;
  }
  for (size_t k = 0; ok && k < expected.size(); ++k) {
    if (k >= n_out) {
      Line l;
      l.set = set;
      l.name = "#" + std::to_string(k);
      l.problem = "the model has fewer outputs than data files";
      lines.push_back(l);
      ok = false;
      continue;
    }
    ofg_report* r = nullptr;
    if (ofg_status s = ofg_value_compare(outs[k], expected[k], atol, rtol, &r)) {
      lines.push_back(problem_line(set, ofg_value_name(outs[k]), s));
      ok = false;
      continue;
    }
    size_t n = 0;
    ofg_report_output_count(r, &n);
    for (size_t i = 0; i < n; ++i) {
      Line l;
      l.set = set;
      l.d.struct_size = sizeof l.d;
      ofg_report_output(r, i, &l.d);
      // The report owns the strings: keep copies, and drop the pointers.
      l.name = l.d.name ? l.d.name : "";
      if (l.d.problem) l.problem = l.d.problem;
      l.d.name = l.d.problem = nullptr;
      l.passed = l.problem.empty() && l.d.passed;
      ok &= l.passed;
      lines.push_back(l);
    }
    ofg_report_free(r);
  }
  ofg_values_free(outs, n_out);
  free_values(inputs);
  free_values(expected);
  return ok;
}

// Prints what a value is: "float32 [2,3]", "sequence of 2 [float32 [3], ...]", "optional (empty)".
std::string describe(const ofg_value* v) {
  auto tensor = [](const ofg_tensor* t) {
    std::string s = std::string(ofg_elem_type_name(ofg_tensor_elem_type(t))) + " [";
    for (size_t k = 0; k < ofg_tensor_rank(t); ++k) s += (k ? "," : "") + std::to_string(ofg_tensor_dims(t)[k]);
    return s + "]";
  };
  const ofg_tensor* t = nullptr;
  if (ofg_value_tensor(v, &t) == OFG_OK) return tensor(t);
  size_t n = 0;
  if (ofg_value_sequence_length(v, &n) == OFG_OK) {
    std::string s = "sequence of " + std::to_string(n) + " [";
    for (size_t i = 0; i < n; ++i)
      if (ofg_value_sequence_at(v, i, &t) == OFG_OK) s += (i ? ", " : "") + tensor(t);
    return s + "]";
  }
  const ofg_value* inner = nullptr;
  if (ofg_value_optional_element(v, &inner) == OFG_OK) return "optional of " + describe(inner);
  return "optional (empty)";
}

// run MODEL --input NAME=FILE.pb for a model with sequence or optional inputs/outputs.
int run_named_values(ofg_model* m, const ofg_options* o, const std::vector<std::pair<std::string, std::string>>& named,
                     const std::string& out_dir) {
  std::vector<ofg_value*> inputs;
  std::vector<const char*> names;
  auto cleanup = [&] {
    for (auto* v : inputs) ofg_value_free(v);
  };
  size_t n_in = 0;
  ofg_model_io_count(m, OFG_INPUT, &n_in);
  for (auto& kv : named) {
    // The file is parsed per the declared type of the input of that name.
    size_t index = n_in;
    for (size_t k = 0; k < n_in; ++k) {
      ofg_value_desc d{};
      d.struct_size = sizeof d;
      if (ofg_model_io(m, OFG_INPUT, k, &d) == OFG_OK && kv.first == d.name) index = k;
    }
    if (index == n_in) {  // cmd_run checked the names (check_input_names)
      cleanup();
      return kUsage;
    }
    std::string bytes;
    ofg_value* v = nullptr;
    if (!read_file(kv.second, bytes)) {
      std::fprintf(stderr, "onnxforge run: --input %s: cannot read '%s': %s\n", kv.first.c_str(), kv.second.c_str(),
                   std::strerror(errno));
      cleanup();
      return kUsage;
    }
    ofg_status s = ofg_value_load_pb(m, OFG_INPUT, index, bytes.data(), bytes.size(), &v);
    if (s != OFG_OK) {
      cleanup();
      return report("run", kv.second, s);
    }
    inputs.push_back(v);
    names.push_back(kv.first.c_str());
  }
  size_t n_out = 0;
  ofg_value** outs = nullptr;
  ofg_status s = ofg_run_values(m, o, inputs.size(), names.data(), inputs.data(), &n_out, &outs);
  cleanup();
  if (s != OFG_OK) return report("run", "", s);
  // Every output file is encoded first, then each is written whole (temporary file, rename); if
  // one cannot be, the ones this run made are removed again.
  std::vector<std::pair<std::string, std::string>> files;  // path, bytes
  int rc = kOk;
  for (size_t i = 0; i < n_out; ++i) {
    std::printf("%s: %s\n", ofg_value_name(outs[i]), describe(outs[i]).c_str());
    if (out_dir.empty()) continue;
    void* data = nullptr;
    size_t size = 0;
    if (ofg_status e = ofg_value_save_pb(outs[i], ofg_value_name(outs[i]), &data, &size)) {
      rc = report("run", std::string("output '") + ofg_value_name(outs[i]) + "'", e);
      break;
    }
    files.emplace_back(out_dir + "/output_" + std::to_string(i) + ".pb", std::string(static_cast<const char*>(data), size));
    ofg_buffer_free(data);
  }
  ofg_values_free(outs, n_out);
  std::vector<std::string> made;
  for (size_t i = 0; rc == kOk && i < files.size(); ++i) {
    bool existed = path_exists(files[i].first);
    if (!write_file_atomically("run", files[i].first, files[i].second)) rc = kUsage;
    else if (!existed) made.push_back(files[i].first);
  }
  if (rc != kOk)
    for (const std::string& f : made) std::remove(f.c_str());
  return rc;
}

// The result lines; with `json` also the model's op counts (the conformance tables read them).
int print(ofg_model* m, const std::string& what, const std::vector<Line>& lines, bool ok, bool json) {
  if (json) {
    JsonWriter j;
    j.begin_object().str("model", what).boolean("passed", ok);
    std::vector<std::pair<std::string, size_t>> ops;
    if (op_counts(m, ops) == OFG_OK) {
      j.begin_object("ops");
      for (auto& op : ops) j.integer(op.first.c_str(), static_cast<long long>(op.second));
      j.end_object();
    }
    j.begin_array("outputs");
    for (const Line& l : lines) {
      j.begin_object().str("set", l.set).str("name", l.name).boolean("passed", l.passed);
      j.num("max_abs", l.d.max_abs).num("max_rel", l.d.max_rel);
      j.integer("mismatches", static_cast<long long>(l.d.mismatches));
      j.integer("worst_index", static_cast<long long>(l.d.worst_index));
      j.integer("elements", static_cast<long long>(l.d.elements));
      if (l.problem.empty()) j.null("problem");
      else j.str("problem", l.problem);
      j.end_object();
    }
    j.end_array().end_object();
    std::printf("%s\n", j.text().c_str());
  } else {
    for (const Line& l : lines) {
      if (!l.problem.empty())
        std::printf("%s %s %s: %s\n", l.passed ? "ok  " : "FAIL", l.set.c_str(), l.name.c_str(), l.problem.c_str());
      else
        std::printf("%s %s %s: max_abs %.3g max_rel %.3g mismatches %llu/%llu (worst at %llu)\n", l.passed ? "ok  " : "FAIL",
                    l.set.c_str(), l.name.c_str(), l.d.max_abs, l.d.max_rel, (unsigned long long)l.d.mismatches,
                    (unsigned long long)l.d.elements, (unsigned long long)l.d.worst_index);
    }
    std::printf("%s: %s\n", what.c_str(), ok ? "all outputs match" : "MISMATCH");
  }
  return ok ? kOk : kCheckFailed;
}

void free_all(std::vector<ofg_tensor*>& v) {
  for (auto* t : v) ofg_tensor_free(t);
  v.clear();
}

const std::vector<OptionSpec> kRunSpecs = {
    {"--rtol", OptionSpec::kNumber, "X", "relative tolerance of the comparison (default 1e-3)"},
    {"--atol", OptionSpec::kNumber, "Y", "absolute tolerance of the comparison (default 1e-5)"},
    {"--json", OptionSpec::kFlag, "", "print the comparison as one JSON object"},
    {"--light", OptionSpec::kFlag, "", "MODEL is a light-suite model: arange input, expected output beside it"},
    {"--input", OptionSpec::kText, "NAME=FILE.pb", "bind input NAME to a .pb file (MODEL form)", true},
    {"--output-dir", OptionSpec::kText, "D",
     "write output_K.pb files into D (MODEL form); D is made when absent (with its parents)\n"
     "                        and checked before the model is read, and removed again if the run fails"},
    kThreadsSpec,
};

}  // namespace

const CommandHelp kHelp = {
    "run",
    "usage: onnxforge run DIR [--rtol X] [--atol Y] [--json]\n"
    "       onnxforge run MODEL.onnx --light [--rtol X] [--atol Y] [--json]\n"
    "       onnxforge run MODEL --input NAME=FILE.pb ... [--output-dir D]\n",
    "DIR holds model.onnx and test_data_set_N/{input_K,output_K}.pb (K-th graph input/output).\n"
    "A .pb is read as a TensorProto, SequenceProto or OptionalProto per the declared type of its\n"
    "input/output; sequences are compared element by element, optionals by presence then value.\n"
    "A given input must fit what the model declares for it: another element type or rank, or another\n"
    "size where the declared dim is fixed, is refused (exit 2) naming the input and both shapes.\n"
    "Exit 0 when every output matches, 1 otherwise, 2 on usage or input errors.\n"};

int cmd_run(const Args& args) {
  ParsedArgs p;
  if (int rc = parse_command(kHelp, args, kRunSpecs, p); rc >= 0) return rc;
  if (p.positional.size() != 1) return usage_error(kHelp.name, "give one DIR or MODEL");
  std::string target = p.positional[0], out_dir = p.text("--output-dir");
  double rtol = p.number("--rtol", 1e-3), atol = p.number("--atol", 1e-5);
  bool json = p.has("--json"), light = p.has("--light");
  std::vector<std::pair<std::string, std::string>> named;
  for (const std::string& v : p.all("--input")) {
    size_t eq = v.find('=');
    if (eq == std::string::npos || eq == 0) return usage_error(kHelp.name, "--input takes NAME=FILE.pb, got '" + v + "'");
    named.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    // Input files are checked before any work.
    if (::access(named.back().second.c_str(), R_OK) != 0) {
      std::fprintf(stderr, "onnxforge run: --input %s: cannot read '%s': %s\n", named.back().first.c_str(),
                   named.back().second.c_str(), std::strerror(errno));
      return kUsage;
    }
  }

  struct stat st;
  if (::stat(target.c_str(), &st) != 0) {
    std::fprintf(stderr, "onnxforge run: cannot read '%s': %s\n", target.c_str(), std::strerror(errno));
    return kUsage;
  }
  bool is_dir = S_ISDIR(st.st_mode);
  if (is_dir && (light || !named.empty() || !out_dir.empty()))
    return usage_error(kHelp.name, "--light, --input and --output-dir go with MODEL, not with a test folder");
  if (!is_dir && !light && named.empty() && (json || p.has("--rtol") || p.has("--atol")))
    return usage_error(kHelp.name, "--json, --rtol and --atol compare with expected outputs: give DIR or --light");
  if (light && (!named.empty() || !out_dir.empty()))
    return usage_error(kHelp.name, "--light takes no --input or --output-dir");
  std::unique_ptr<ofg_options, void (*)(ofg_options*)> opts(nullptr, ofg_options_free);
  if (int rc = make_threads_options(kHelp.name, p, opts); rc != kOk) return rc;
  // --output-dir is made (mkdir -p) and checked before any work; removed again if the run fails.
  OutputDir outputs;
  if (!out_dir.empty() && !outputs.prepare(kHelp.name, out_dir)) return kUsage;
  std::string model_path = is_dir ? target + "/model.onnx" : target;
  ofg_model* m = nullptr;
  if (ofg_status s = ofg_load(model_path.c_str(), nullptr, &m)) {
    outputs.remove_made();
    return report(kHelp.name, model_path, s);
  }

  // Tensors keep the tensor path; a sequence or optional anywhere needs values for the run.
  bool values = false;
  for (int32_t which : {OFG_INPUT, OFG_OUTPUT}) {
    size_t n = 0;
    ofg_model_io_count(m, which, &n);
    for (size_t k = 0; k < n; ++k) {
      int32_t kind = io_kind(m, which, k);
      values |= kind == OFG_VALUE_SEQUENCE || kind == OFG_VALUE_OPTIONAL;
    }
  }

  std::vector<Line> lines;
  bool ok = true;
  int rc = kOk;
  if (is_dir) {
    std::vector<std::string> sets;
    if (DIR* d = ::opendir(target.c_str())) {
      while (dirent* e = ::readdir(d)) {
        std::string n = e->d_name;
        if (n.rfind("test_data_set_", 0) == 0) sets.push_back(n);
      }
      ::closedir(d);
    }
    std::sort(sets.begin(), sets.end());
    if (sets.empty()) {
      std::fprintf(stderr, "onnxforge run: %s has no test_data_set_N folder\n", target.c_str());
      ofg_model_free(m);
      return kUsage;
    }
    for (const std::string& set : sets) {
      if (values) {
        ok &= run_set_values(m, opts.get(), target, set, atol, rtol, lines);
        continue;
      }
      std::vector<ofg_tensor*> inputs, expected;
      // KIND_0.pb, KIND_1.pb, ... up to the first one missing; false (with a line) when one does not load.
      auto load_all = [&](const std::string& kind, std::vector<ofg_tensor*>& out) {
        for (int k = 0;; ++k) {
          std::string p = target + "/" + set + "/" + kind + "_" + std::to_string(k) + ".pb";
          if (!exists(p)) return true;
          ofg_tensor* t = nullptr;
          if (ofg_status s = load_pb(p, &t)) {
            Line l; l.set = set; l.name = kind + "_" + std::to_string(k);
            l.problem = std::string(ofg_status_string(s)) + ": " + ofg_last_error();
            lines.push_back(l);
            return false;
          }
          out.push_back(t);
        }
      };
      bool load_ok = load_all("input", inputs) && load_all("output", expected);
      ok &= load_ok && run_and_compare(m, opts.get(), set, inputs, expected, atol, rtol, lines);
      free_all(inputs);
      free_all(expected);
    }
    rc = print(m, target, lines, ok, json);
  } else if (light) {
    // Light suite: one float input x[i] = float(i / n) in C order; expected output beside the model.
    std::string stem = model_path.size() > 5 ? model_path.substr(0, model_path.size() - 5) : model_path;
    ofg_value_desc d;
    d.struct_size = sizeof d;
    std::vector<int64_t> dims;
    // Old models list their weights as graph inputs too: the image is the 4-D, 3-channel one.
    size_t n_in = 0, which = 0;
    ofg_model_io_count(m, OFG_INPUT, &n_in);
    for (size_t k = 0; k < n_in; ++k) {
      int64_t ch = -1;
      if (ofg_model_io(m, OFG_INPUT, k, &d) == OFG_OK && d.rank == 4 &&
          ofg_model_io_dim(m, OFG_INPUT, k, 1, &ch, nullptr) == OFG_OK && ch == 3) {
        which = k;
        break;
      }
    }
    if (ofg_status s = ofg_model_io(m, OFG_INPUT, which, &d)) { ofg_model_free(m); return report(kHelp.name, model_path, s); }
    std::string in_name = d.name;
    for (int32_t k = 0; k < d.rank; ++k) {
      int64_t v = -1;
      ofg_model_io_dim(m, OFG_INPUT, which, k, &v, nullptr);
      dims.push_back(v < 0 ? 1 : v);
    }
    size_t n = 1;
    for (auto v : dims) n *= static_cast<size_t>(v);
    std::vector<float> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(static_cast<double>(i) / static_cast<double>(n));
    std::vector<ofg_tensor*> inputs(1), expected(1);
    if (ofg_status s = ofg_tensor_create(1, dims.data(), dims.size(), x.data(), n * 4, &inputs[0])) {
      ofg_model_free(m);
      return report(kHelp.name, "input", s);
    }
    if (ofg_status s = load_pb(stem + "_output_0.pb", &expected[0])) {
      free_all(inputs);
      ofg_model_free(m);
      return report(kHelp.name, stem + "_output_0.pb", s);
    }
    ok = run_and_compare(m, opts.get(), "light", inputs, expected, atol, rtol, lines, in_name);
    free_all(inputs);
    free_all(expected);
    rc = print(m, target, lines, ok, json);
  } else {
    // Named input files are read per the declared type of their input (tensor, sequence or
    // optional), so one path serves every model.
    rc = check_input_names(kHelp.name, p, m);
    if (rc == kOk) rc = run_named_values(m, opts.get(), named, out_dir);
    if (rc != kOk) outputs.remove_made();
  }
  ofg_model_free(m);
  return rc;
}

}  // namespace cli
