// Checking a model against a target profile: every node that breaks one of its rules.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "targets/profile.h"

namespace ofg {
class Model;
}

namespace ofg::targets {

struct Finding {
  std::string node;    // the node's name ("" for the model-level opset finding)
  std::string op;      // "Conv", or "com.microsoft:FusedConv"
  std::string graph;   // "" for the main graph, else the subgraph's owner path ("If_3/then_branch")
  std::string rule;    // "op", "opset", "model_opset", "attribute", "constant", "zero_point", "rank", "dtype"
  std::string message;
};

struct CheckResult {
  std::string target;
  int64_t model_opset = 0;        // the model's default-domain opset (0: none declared)
  size_t nodes = 0;               // nodes checked, subgraphs included
  size_t illegal_nodes = 0;       // nodes with at least one finding
  std::vector<Finding> findings;  // model-level first, then nodes in graph order
};

// Checks every node of `m` (subgraphs included) against `p`. Element types and ranks come from the
// library's type inference (not written into the model); a rule whose type or rank is unknown is
// not reported. Does not change what the model computes.
CheckResult check_model(const Model& m, const Profile& p);

// The result as one JSON object: {"target", "model_opset", "nodes", "illegal_nodes", "legal",
// "findings": [{"node", "op", "graph", "rule", "message"}]}.
std::string check_json(const CheckResult& r);

// Every known profile as JSON: {"targets": [{"name", "title", "source", "url", "version",
// "opset_min", "opset_max", "ops"}], "generic": "opset:N", "generic_min", "generic_max"}.
std::string targets_json();

}  // namespace ofg::targets
