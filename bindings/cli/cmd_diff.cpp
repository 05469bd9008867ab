// onnxforge diff A B [--provenance REPORT.json] [--json] [--max N]: what differs between two
// models, node by node (the library's ofg_diff_json), printed as text or as its JSON.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli.h"
#include "json_reader.h"

namespace cli {
namespace {

const CommandHelp kHelp = {
    "diff",
    "usage: onnxforge diff A B [--provenance REPORT.json] [--json] [--max N]\n",
    "Compares the main graphs of A and B. Nodes of B are matched to nodes of A through the\n"
    "provenance of an optimize report when B came from A (onnxforge optimize A B --report R.json,\n"
    "then --provenance R.json): a B node made from several A nodes is \"fused\", A nodes no B node\n"
    "came from are \"removed\". Without it (and for nodes it does not list) nodes are matched by\n"
    "output names, then by structure (same op on matched inputs). Matched nodes that differ in op,\n"
    "attributes, inputs or output names are \"changed\". Graph inputs, outputs, initializers (by\n"
    "name and bytes), opsets and op counts are compared too. The first line sums it up.\n"
    "exit codes: 0 the models are identical, 1 they differ, 2 usage or input error.\n"};

const std::vector<OptionSpec> kSpecs = {
    {"--provenance", OptionSpec::kText, "FILE", "an optimize --report JSON holding \"provenance\" (B came from A)"},
    {"--json", OptionSpec::kFlag, "", "print the library's JSON (keys in docs/diff.md)"},
    {"--max", OptionSpec::kCount, "N", "text: at most N entries per list (default 20, 0: all)"}};

std::string node(const JsonValue& n) {
  std::string name = n.str("name");
  if (name.empty()) name = "#" + std::to_string(n.integer("index"));
  return name + " (" + n.str("op") + ")";
}

// Prints "title (N):" then at most `max` entries (0: all) and how many were left out.
template <class F>
void print_list(const char* title, const JsonValue& list, size_t max, F line) {
  if (list.items.empty()) return;
  std::printf("%s (%zu):\n", title, list.items.size());
  size_t shown = 0;
  for (const JsonValue& x : list.items) {
    if (max && shown == max) {
      std::printf("  ... %zu more (--max 0 or --json for all)\n", list.items.size() - shown);
      break;
    }
    std::printf("  %s\n", line(x).c_str());
    ++shown;
  }
}

void print_section(const char* what, const JsonValue& s, size_t max) {
  std::string t = what;
  print_list((t + " added").c_str(), s["added"], max, [](const JsonValue& x) { return x.str("name") + " " + x.str("b"); });
  print_list((t + " removed").c_str(), s["removed"], max, [](const JsonValue& x) { return x.str("name") + " " + x.str("a"); });
  print_list((t + " changed").c_str(), s["changed"], max, [](const JsonValue& x) {
    std::string l = x.str("name") + ": " + x.str("a") + " -> " + x.str("b");
    if (!x.str("changes").empty()) l += " (" + x.str("changes") + ")";
    return l;
  });
  print_list((t + " renamed").c_str(), s["renamed"], max, [](const JsonValue& x) { return x.str("a") + " -> " + x.str("b"); });
}

void print_text(const JsonValue& v, size_t max) {
  const JsonValue& s = v["summary"];
  if (v["identical"].b) {
    std::printf("identical: %lld nodes\n", s.integer("a_nodes"));
    return;
  }
  const JsonValue& by = s["matched_by"];
  std::printf("different: %lld -> %lld nodes; %lld same, %lld changed, %lld fused, %lld split, %lld added, %lld removed%s; "
              "matched %lld of %lld B nodes (%lld by provenance, %lld by output name, %lld by structure)\n",
              s.integer("a_nodes"), s.integer("b_nodes"), s.integer("same"), s.integer("changed"), s.integer("fused"),
              s.integer("split"), s.integer("added"), s.integer("removed"),
              s.integer("folded") ? (", " + std::to_string(s.integer("folded")) + " initializers folded").c_str() : "", s.integer("b_matched"), s.integer("b_nodes"),
              by.integer("provenance"), by.integer("output_name"), by.integer("structure"));
  if (!v["op_counts"].items.empty()) {
    std::string l = "op counts:";
    for (const JsonValue& c : v["op_counts"].items)
      l += " " + c.str("op") + " " + std::to_string(c.integer("a")) + "->" + std::to_string(c.integer("b"));
    std::printf("%s\n", l.c_str());
  }
  for (const JsonValue& o : v["opsets"].items)
    std::printf("opset %s: %lld -> %lld\n", o.str("domain").empty() ? "ai.onnx" : o.str("domain").c_str(), o.integer("a"),
                o.integer("b"));
  const JsonValue& n = v["nodes"];
  print_list("changed", n["changed"], max, [](const JsonValue& x) {
    std::string l = node(x["a"]) + " -> " + node(x["b"]) + " [" + x.str("how") + "]:";
    for (size_t i = 0; i < x["changes"].items.size(); ++i) l += (i ? "; " : " ") + x["changes"].items[i].s;
    return l;
  });
  print_list("fused", n["fused"], max, [](const JsonValue& x) {
    std::string l = node(x["b"]) + " <-";
    for (size_t i = 0; i < x["a"].items.size(); ++i) l += (i ? ", " : " ") + node(x["a"].items[i]);
    return l;
  });
  print_list("split", n["split"], max, [](const JsonValue& x) {
    std::string l = node(x["a"]) + " ->";
    for (size_t i = 0; i < x["b"].items.size(); ++i) l += (i ? ", " : " ") + node(x["b"].items[i]);
    return l;
  });
  print_list("folded into initializers", n["folded"], max, [](const JsonValue& x) {
    std::string l = x.str("initializer") + " <-";
    for (size_t i = 0; i < x["a"].items.size(); ++i) l += (i ? ", " : " ") + node(x["a"].items[i]);
    return l;
  });
  print_list("added", n["added"], max, node);
  print_list("removed", n["removed"], max, node);
  print_section("inputs", v["inputs"], max);
  print_section("outputs", v["outputs"], max);
  print_section("initializers", v["initializers"], max);
  const JsonValue& u = v["unknown_provenance"];
  if (!u["a"].items.empty() || !u["b"].items.empty())
    std::printf("provenance names not in the main graphs (subgraph nodes are not matched): %zu of B, %zu of A\n", u["b"].items.size(), u["a"].items.size());
}

}  // namespace

int cmd_diff(const Args& args) {
  ParsedArgs p;
  if (int rc = parse_command(kHelp, args, kSpecs, p); rc >= 0) return rc;
  if (p.positional.size() != 2) return usage_error(kHelp.name, "give two models, A and B");
  std::string provenance;
  if (p.has("--provenance")) {
    std::string path = p.text("--provenance");
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    if (!f || !(ss << f.rdbuf())) return usage_error(kHelp.name, "cannot read --provenance file '" + path + "'");
    provenance = ss.str();
  }
  size_t max = static_cast<size_t>(p.number("--max", 20));
  ofg_model* a = nullptr;
  ofg_model* b = nullptr;
  ofg_status st = load_model(p.positional[0], false, &a);
  if (st != OFG_OK) return report(kHelp.name, p.positional[0], st);
  st = load_model(p.positional[1], false, &b);
  if (st != OFG_OK) {
    ofg_model_free(a);
    return report(kHelp.name, p.positional[1], st);
  }
  char* text = nullptr;
  st = ofg_diff_json(a, b, p.has("--provenance") ? provenance.c_str() : nullptr, &text);
  ofg_model_free(a);
  ofg_model_free(b);
  if (st != OFG_OK) return report(kHelp.name, p.has("--provenance") ? p.text("--provenance") : "", st);
  std::string json = text;
  ofg_buffer_free(text);
  JsonValue v;
  if (!parse_json(json, v)) {
    std::fprintf(stderr, "onnxforge diff: the library's answer is not JSON\n");
    return kUsage;
  }
  if (p.has("--json"))
    std::printf("%s\n", json.c_str());
  else
    print_text(v, max);
  return v["identical"].b ? kOk : kCheckFailed;
}

}  // namespace cli
