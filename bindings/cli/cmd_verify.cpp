// onnxforge verify A B [verification options] [--json]
#include <cstdio>
#include <string>
#include <vector>

#include "cli.h"
#include "messages.h"
#include "progress.h"

namespace cli {

const CommandHelp kHelp = {
    "verify",
    "usage: onnxforge verify A B [options]\n",
    "Runs reference A and candidate B on the same inputs (real data first, else seeded inputs\n"
    "that A accepts) and compares B's outputs with A's by name. The two models' inputs are\n"
    "compared first: an input of both with another element type, rank or fixed size, or inputs of\n"
    "each that the other lacks (renamed), is refused (exit 2, naming them); where B fixes a size A\n"
    "leaves symbolic, that size is used (unless --dim gives it). A given input (--input,\n"
    "--test-data) must fit what A declares for it.\n"
    "Exit 0 when they match, 1 when they differ, 2 on usage or load errors (or an invalid model),\n"
    "3 when no input set model A accepts could be built.\n"};

namespace {

// A graph input as declared: kind, element type and dims (size, or -1 with its symbol or "").
struct Declared {
  std::string name;
  int32_t kind = 0, elem_type = 0, rank = -1;
  std::vector<std::pair<int64_t, std::string>> dims;
};

std::vector<Declared> declared_inputs(ofg_model* m) {
  std::vector<Declared> out;
  size_t n = 0;
  ofg_model_io_count(m, OFG_INPUT, &n);
  for (size_t i = 0; i < n; ++i) {
    ofg_value_desc d{};
    d.struct_size = sizeof d;
    if (ofg_model_io(m, OFG_INPUT, i, &d) != OFG_OK) continue;
    Declared x;
    x.name = d.name;
    x.kind = d.kind;
    x.elem_type = d.elem_type;
    x.rank = d.rank;
    for (int32_t k = 0; k < d.rank; ++k) {
      int64_t value = -1;
      const char* symbol = nullptr;
      ofg_model_io_dim(m, OFG_INPUT, i, static_cast<size_t>(k), &value, &symbol);
      x.dims.emplace_back(value, symbol ? symbol : "");
    }
    out.push_back(x);
  }
  return out;
}

std::string text(const Declared& d) {
  if (d.kind == OFG_VALUE_SEQUENCE) return "a sequence";
  if (d.kind == OFG_VALUE_OPTIONAL) return "an optional";
  std::string s = d.elem_type ? ofg_elem_type_name(d.elem_type) : "tensor";
  if (d.rank < 0) return s + " (any shape)";
  s += "[";
  for (size_t k = 0; k < d.dims.size(); ++k) {
    const auto& [value, symbol] = d.dims[k];
    s += (k ? "," : "") + (value >= 0 ? std::to_string(value) : symbol.empty() ? "?" : symbol);
  }
  return s + "]";
}

// Why inputs of both models cannot take the same values ("" when they can): another kind,
// element type or rank, or two different fixed sizes.
std::string contradiction(const Declared& a, const Declared& b) {
  if (a.kind && b.kind && a.kind != b.kind) return "kind";
  if (a.elem_type && b.elem_type && a.elem_type != b.elem_type) return "element type";
  if (a.rank >= 0 && b.rank >= 0 && a.rank != b.rank) return "rank";
  for (size_t k = 0; a.rank == b.rank && k < a.dims.size(); ++k)
    if (a.dims[k].first >= 0 && b.dims[k].first >= 0 && a.dims[k].first != b.dims[k].first)
      return "size of dim " + std::to_string(k);
  return "";
}

// Compares the inputs of A and B before anything runs: kUsage (after saying which input differs
// and how) when one both declare cannot take the same values; sizes B fixes where A has a symbol
// become verify.dim.SYMBOL (unless --dim gave it), so that B is run at the sizes it was made for.
int compare_inputs(const ParsedArgs& p, const std::string& a_path, ofg_model* a, const std::string& b_path, ofg_model* b,
                   ofg_options* o) {
  std::vector<Declared> in_a = declared_inputs(a), in_b = declared_inputs(b);
  std::vector<std::string> only_b;
  std::vector<std::string> dims_given;
  for (const std::string& v : p.all("--dim")) dims_given.push_back(v.substr(0, v.find('=')));
  for (const Declared& y : in_b) {
    const Declared* x = nullptr;
    for (const Declared& c : in_a)
      if (c.name == y.name) x = &c;
    if (!x) {
      only_b.push_back(y.name);
      continue;
    }
    std::string what = contradiction(*x, y);
    if (!what.empty()) {
      std::fprintf(stderr, "onnxforge verify: the models' inputs differ: input '%s' is %s in %s but %s in %s (another %s)\n",
                   y.name.c_str(), text(*x).c_str(), a_path.c_str(), text(y).c_str(), b_path.c_str(), what.c_str());
      return kUsage;
    }
    for (size_t k = 0; x->rank == y.rank && k < x->dims.size(); ++k) {
      const std::string& symbol = x->dims[k].second;
      if (x->dims[k].first >= 0 || symbol.empty() || y.dims[k].first < 0) continue;
      bool given = false;
      for (const std::string& g : dims_given) given |= g == symbol;
      if (!given && set_option(kHelp.name, o, "--dim", "verify.dim." + symbol, std::to_string(y.dims[k].first)) != kOk)
        return kUsage;
      dims_given.push_back(symbol);
    }
  }
  // Inputs on both sides that the other lacks: most likely renamed, and B cannot be given what it needs.
  std::vector<std::string> only_a;
  for (const Declared& x : in_a) {
    bool found = false;
    for (const Declared& y : in_b) found |= x.name == y.name;
    if (!found) only_a.push_back(x.name);
  }
  auto quoted = [](const std::vector<std::string>& names) {
    std::string s;
    for (size_t i = 0; i < names.size() && i < 5; ++i) s += (i ? ", '" : "'") + names[i] + "'";
    if (names.size() > 5) s += " and " + std::to_string(names.size() - 5) + " more";
    return s;
  };
  if (!only_a.empty() && !only_b.empty()) {
    std::fprintf(stderr, "onnxforge verify: the models' inputs differ: %s has %s, %s has %s instead\n", a_path.c_str(),
                 quoted(only_a).c_str(), b_path.c_str(), quoted(only_b).c_str());
    return kUsage;
  }
  if (!only_b.empty()) {
    std::string names = quoted(only_b);
    std::fprintf(stderr, "onnxforge verify: note: %s has input%s %s that %s lacks; %s uses its default value%s there\n",
                 b_path.c_str(), only_b.size() == 1 ? "" : "s", names.c_str(), a_path.c_str(), b_path.c_str(),
                 only_b.size() == 1 ? "" : "s");
  }
  return kOk;
}

}  // namespace

int cmd_verify(const Args& args) {
  std::vector<OptionSpec> specs = {{"--json", OptionSpec::kFlag, "", "print the report as one JSON object"}};
  specs.insert(specs.end(), kVerifySpecs.begin(), kVerifySpecs.end());
  specs.push_back(kThreadsSpec);
  ParsedArgs p;
  if (int rc = parse_command(kHelp, args, specs, p); rc >= 0) return rc;
  if (p.positional.size() != 2) return usage_error(kHelp.name, "give two models, A (reference) and B (candidate)");
  const std::string &a = p.positional[0], &b = p.positional[1];
  ofg_options* o = nullptr;
  if (ofg_status s = ofg_options_create(&o)) return report(kHelp.name, "", s);
  if (apply_verify_options(kHelp.name, p, o, a) != kOk || apply_threads_option(kHelp.name, p, o) != kOk) {
    ofg_options_free(o);
    return kUsage;
  }
  ofg_model *ma = nullptr, *mb = nullptr;
  if (ofg_status s = ofg_load(a.c_str(), nullptr, &ma)) {
    ofg_options_free(o);
    return report(kHelp.name, a, s);
  }
  if (ofg_status s = ofg_load(b.c_str(), nullptr, &mb)) {
    ofg_model_free(ma);
    ofg_options_free(o);
    return report(kHelp.name, b, s);
  }
  if (check_input_names(kHelp.name, p, ma) != kOk || compare_inputs(p, a, ma, b, mb, o) != kOk) {
    ofg_model_free(ma);
    ofg_model_free(mb);
    ofg_options_free(o);
    return kUsage;
  }
  ofg_report* r = nullptr;
  ofg_status s;
  {
    ProgressLine progress(o);
    progress.phase("verify (input sets)");
    s = ofg_verify(ma, mb, o, &r);
  }
  ofg_options_free(o);
  int rc;
  if (s != OFG_OK) {
    rc = report_verify_error(kHelp.name, s);
  } else if (p.has("--json")) {
    int32_t passed = 0;
    ofg_report_passed(r, &passed);
    JsonWriter j;
    j.begin_object().str("reference", a).str("candidate", b).str("version", ofg_version_string());
    j.raw("report", ofg_report_json(r)).end_object();
    std::printf("%s\n", j.text().c_str());
    rc = passed ? kOk : kCheckFailed;
  } else {
    rc = print_verify_report(r, "");
    std::printf("%s\n", rc == kOk ? "models match" : "MODELS DIFFER");
  }
  ofg_report_free(r);
  ofg_model_free(ma);
  ofg_model_free(mb);
  return rc;
}

}  // namespace cli
