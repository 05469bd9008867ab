// onnxforge targets [--json]: the target profiles built into the library, with their sources.
#include <cstdio>

#include "cli.h"
#include "json_reader.h"

namespace cli {
namespace {

const CommandHelp kHelp = {
    "targets",
    "usage: onnxforge targets [--json]\n",
    "Lists the target profiles (what TensorRT, OpenVINO, RKNN-Toolkit2, QNN and Core ML through ONNX\n"
    "Runtime accept) with the vendor document each was transcribed from, and the generic opset:N.\n"
    "Check a model against one with: onnxforge check MODEL --target NAME.\n"};

const std::vector<OptionSpec> kSpecs = {{"--json", OptionSpec::kFlag, "", "print the list as the library's JSON"}};

}  // namespace

int cmd_targets(const Args& args) {
  ParsedArgs p;
  if (int rc = parse_command(kHelp, args, kSpecs, p); rc >= 0) return rc;
  if (!p.positional.empty()) return usage_error(kHelp.name, "unexpected argument '" + p.positional[0] + "'");
  char* text = nullptr;
  ofg_status st = ofg_targets_json(&text);
  if (st != OFG_OK) return report(kHelp.name, "", st);
  std::string json = text;
  ofg_buffer_free(text);
  if (p.has("--json")) {
    std::printf("%s\n", json.c_str());
    return kOk;
  }
  JsonValue v;
  if (!parse_json(json, v)) {
    std::fprintf(stderr, "onnxforge targets: the library's answer is not JSON\n");
    return kUsage;
  }
  for (const JsonValue& t : v["targets"].items) {
    long long lo = t.integer("opset_min"), hi = t.integer("opset_max");
    std::string range = lo ? "opsets " + std::to_string(lo) + "-" + (hi ? std::to_string(hi) : std::string("*"))
                           : std::string("opsets not stated");
    std::printf("%-12s %3lld ops, %-18s %s\n", t.str("name").c_str(), t.integer("ops"), range.c_str(), t.str("title").c_str());
    std::printf("             source: %s\n             %s\n             version: %s\n", t.str("source").c_str(),
                t.str("url").c_str(), t.str("version").c_str());
  }
  std::printf("opset:N      every default-domain op that exists at opset N (N %lld to %lld), from onnxforge's\n"
              "             op-version table\n",
              v.integer("generic_min"), v.integer("generic_max"));
  return kOk;
}

}  // namespace cli
