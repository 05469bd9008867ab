// optimize --explain NODE: the story of one node of the input, read from the pipeline report's
// JSON (ofg_pass_report_json): the rewrites that started from it, why rules left it alone
// ("not_applied"), the whole-pass declines about its op, and the output nodes it went into
// ("provenance", when the report has it).
#include <cstdio>
#include <set>
#include <string>

#include "cli.h"
#include "json_reader.h"

namespace cli {

const OptionSpec kExplainSpec = {"--explain", OptionSpec::kText, "NODE",
                                 "print what the passes did to node NODE of IN and why rules left it alone"};

int apply_explain_option(const char* command, const ParsedArgs& p, ofg_options* o) {
  if (!p.has("--explain")) return kOk;
  // The rewrites are the first part of the story: list them even without a budget.
  return set_option(command, o, "--explain", "optimize.list_rewrites", "1");
}

void print_explain(const std::string& node, const char* report_json) {
  JsonValue r;
  if (!report_json || !parse_json(report_json, r)) {
    std::printf("  explain %s: the pipeline report could not be read\n", node.c_str());
    return;
  }
  std::printf("  explain %s:\n", node.c_str());
  std::set<std::string> ops;  // the node's op as the entries name it
  size_t told = 0;
  for (const JsonValue& w : r["rewrites"].items) {
    if (w.str("node") != node) continue;
    ops.insert(w.str("op"));
    std::printf("    rewritten by %s/%s (%s): %s\n", w.str("pass").c_str(), w.str("rule").c_str(), w.str("op").c_str(),
                w.str("what").c_str());
    ++told;
  }
  for (const JsonValue& d : r["not_applied"].items) {
    if (d.str("node") != node) continue;
    ops.insert(d.str("op"));
    bool gone = d["in_output"].kind == JsonValue::kBool && !d["in_output"].b;
    std::printf("    not applied: %s/%s (%s): %s%s\n", d.str("pass").c_str(), d.str("rule").c_str(), d.str("op").c_str(),
                d.str("reason").c_str(), gone ? " (a later pass removed the node)" : "");
    ++told;
  }
  // Provenance (another part of the report, when present): {output node: [input nodes]}.
  std::string into;
  for (const auto& [out, from] : r["provenance"].fields)
    for (const JsonValue& f : from.items)
      if (f.s == node) into += (into.empty() ? "" : ", ") + out;
  if (!into.empty()) std::printf("    went into: %s\n", into.c_str());
  if (told == 0 && into.empty())
    std::printf("    no rule started from it or declined it (no node of that name, or no pass looks at its op)\n");
  // Declines of a whole pass (the model's opset): those that start from the node's op when the
  // entries above name it, else all of them (the report does not say which op the node is).
  bool heading = false;
  for (const JsonValue& d : r["not_applied"].items) {
    if (!d.str("node").empty() || (!ops.empty() && !ops.count(d.str("op")))) continue;
    if (ops.empty() && !heading) {
      std::printf("    rules that did not run on the whole model (one applies if the node is of its op):\n");
      heading = true;
    }
    std::printf("    %snot applied to any %s: %s/%s: %s\n", heading ? "  " : "", d.str("op").c_str(),
                d.str("pass").c_str(), d.str("rule").c_str(), d.str("reason").c_str());
  }
}

}  // namespace cli
