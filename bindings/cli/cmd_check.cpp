// onnxforge check MODEL --target NAME [--json]: which nodes a target does not accept, and why.
#include <cstdio>

#include "cli.h"
#include "json_reader.h"

namespace cli {
namespace {

const CommandHelp kHelp = {
    "check",
    "usage: onnxforge check MODEL --target NAME [--json]\n",
    "Checks every node of MODEL (subgraphs included) against a target profile (onnxforge targets\n"
    "lists them) and prints each node that breaks a rule, with the rule: op not supported, op not\n"
    "accepted at the model's opset, attribute value not allowed, input not constant, zero point not\n"
    "zero, input rank or element type not accepted; and the model's opset when it is outside the\n"
    "target's range. Nothing is written.\n"
    "exit codes: 0 everything is legal for the target, 5 something is not (listed), 2 usage or\n"
    "input error (an unknown target lists the known ones).\n"};

const std::vector<OptionSpec> kSpecs = {
    {"--target", OptionSpec::kText, "NAME", "the target profile: tensorrt, openvino, rknn, qnn, coreml-ort, opset:N"},
    {"--json", OptionSpec::kFlag, "", "print the library's JSON report"}};

}  // namespace

int cmd_check(const Args& args) {
  ParsedArgs p;
  if (int rc = parse_command(kHelp, args, kSpecs, p); rc >= 0) return rc;
  if (p.positional.size() != 1) return usage_error(kHelp.name, "give one MODEL");
  if (!p.has("--target")) return usage_error(kHelp.name, "--target NAME is required");
  const std::string& path = p.positional[0];
  std::string target = p.text("--target");
  ofg_model* m = nullptr;
  ofg_status st = load_model(path, false, &m);
  if (st != OFG_OK) return report(kHelp.name, path, st);
  char* text = nullptr;
  st = ofg_check_target(m, target.c_str(), &text);
  ofg_model_free(m);
  if (st != OFG_OK) return report(kHelp.name, path, st);
  std::string json = text;
  ofg_buffer_free(text);
  JsonValue v;
  if (!parse_json(json, v)) {
    std::fprintf(stderr, "onnxforge check: the library's answer is not JSON\n");
    return kUsage;
  }
  bool legal = v["legal"].b;
  if (p.has("--json")) {
    std::printf("%s\n", json.c_str());
    return legal ? kOk : kIllegalForTarget;
  }
  std::printf("%s: %lld of %lld nodes not legal for %s (model opset %lld)\n", path.c_str(), v.integer("illegal_nodes"),
              v.integer("nodes"), target.c_str(), v.integer("model_opset"));
  for (const JsonValue& f : v["findings"].items) {
    std::string where = f.str("node").empty() && f.str("op").empty() ? std::string("(model)")
                                                                    : f.str("node") + " (" + f.str("op") + ")";
    if (!f.str("graph").empty()) where = f.str("graph") + ": " + where;
    std::printf("  %-40s %-11s %s\n", where.c_str(), f.str("rule").c_str(), f.str("message").c_str());
  }
  return legal ? kOk : kIllegalForTarget;
}

}  // namespace cli
