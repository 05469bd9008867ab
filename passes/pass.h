// The pass framework: what a pass is, how it is found by name, and the statistics it returns.
// Passes see only the IR (src/ir); each lives in its own file and is listed in registry.cpp.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.h"

namespace ofg::passes {

// Accuracy classes: 0 exact, 1 float-rounding bounded, 2 pattern rewrites to be verified.
enum AccuracyClass : int { kExact = 0, kFloatBounded = 1, kVerified = 2 };

struct PassStats {
  int64_t changes = 0;  // rewrites made (0 means the pass found nothing to do)
  int64_t nodes_removed = 0;
  int64_t nodes_added = 0;
  int64_t nodes_before = 0, nodes_after = 0;  // all graphs, subgraphs included
  uint64_t bytes_before = 0, bytes_after = 0;  // initializer bytes, all graphs
  double milliseconds = 0;
};

// What a pass run function receives: the model and counters the helpers keep up to date.
struct PassContext {
  Model& m;
  const std::map<std::string, std::string>* options = nullptr;
  int64_t changes = 0;
  int64_t removed = 0;
  int64_t added = 0;
  explicit PassContext(Model& model) : m(model) {}
};

using PassFn = void (*)(PassContext&);

struct PassInfo {
  const char* name;
  const char* description;  // one line
  int accuracy_class;
  bool in_default_pipeline;
  PassFn run;
};

// Every pass, in the order of the default pipeline (opt-in passes last).
const std::vector<PassInfo>& registry();
const PassInfo* find_pass(std::string_view name);

// Runs one pass on the whole model (subgraphs included) and measures it.
PassStats run_pass(Model& m, const PassInfo& pass, const std::map<std::string, std::string>* options = nullptr);

// Nodes of every graph of the model and bytes of every initializer.
int64_t count_nodes(Model& m);
uint64_t initializer_bytes(Model& m);

}  // namespace ofg::passes
