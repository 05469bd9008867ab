// The pass framework: what a pass is, how it is found by name, and the statistics it returns.
// Passes see only the IR (src/ir); each lives in its own file and is listed in registry.cpp.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.h"

namespace ofg::exec {
class TypeInference;
}

namespace ofg::passes {

class RuleIndex;
struct RewriteBudget;
struct Decline;
struct RuleGroup;

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

// Type inference of a model, kept from one pass to the next while none of them changes the
// graph: four passes of the default pipeline infer types at their start, and after a pass that
// rewrote nothing (every pass of the last round, most passes of the others) the next one would
// only compute the same result again (inference is a third of the pipeline's time on
// transformer exports).
class TypeCache {
 public:
  TypeCache();
  ~TypeCache();
  // Inference of m as it is now: the kept result when it was made for m since the last
  // invalidate(), else a new one.
  const exec::TypeInference& get(Model& m);
  // Called after any change of the graph (run_pass does it for the passes it runs).
  void invalidate();

 private:
  std::unique_ptr<exec::TypeInference> ti_;
};

// What a pass run function receives: the model and counters the helpers keep up to date.
struct PassContext {
  Model& m;
  const std::map<std::string, std::string>* options = nullptr;
  int64_t changes = 0;
  int64_t removed = 0;
  int64_t added = 0;
  TypeCache* types = nullptr;  // shared by the passes of a pipeline; null: the pass infers its own
  // Rule passes (rule.h): the node index shared by the passes of a pipeline (null: built per
  // run), the pipeline's rewrite budget and list (null: unlimited, not listed), where declines
  // go (null: not kept), and the pass's name for those lists.
  RuleIndex* index = nullptr;
  RewriteBudget* budget = nullptr;
  std::vector<Decline>* declines = nullptr;
  const char* pass_name = "";
  explicit PassContext(Model& model) : m(model) {}
  // Records why `rule` left `n` alone (n null: the whole pass, op names the op it starts from)
  // when declines are kept. For rules and for whole-graph passes that give up on a node.
  void decline(const char* rule, const Node* n, std::string reason, const char* op = nullptr);
  // Inference of the model as the pass finds it (call before rewriting anything: a result kept
  // by the cache is not updated by the pass's own edits).
  const exec::TypeInference& inferred_types();

 private:
  TypeCache own_types_;
};

using PassFn = void (*)(PassContext&);

struct PassInfo {
  const char* name;
  const char* description;  // one line
  int accuracy_class;
  bool in_default_pipeline;
  PassFn run;                         // a whole-graph pass; null for a rule group
  const RuleGroup* rules = nullptr;   // a pattern pass: its rules, run by the rule driver
};

// Every pass, in the order of the default pipeline (opt-in passes last).
const std::vector<PassInfo>& registry();
const PassInfo* find_pass(std::string_view name);

// Runs one pass on the whole model (subgraphs included) and measures it. `types` (optional) is
// inference shared with the passes run before and after; it is invalidated when the pass changes
// anything.
// `index` and `budget` (optional) likewise: the rule index kept while nothing changes, and the
// pipeline's rewrite budget (see rule.h).
PassStats run_pass(Model& m, const PassInfo& pass, const std::map<std::string, std::string>* options = nullptr,
                   TypeCache* types = nullptr, RuleIndex* index = nullptr, RewriteBudget* budget = nullptr,
                   std::vector<Decline>* declines = nullptr);

// Nodes of every graph of the model and bytes of every initializer.
int64_t count_nodes(Model& m);
uint64_t initializer_bytes(Model& m);

}  // namespace ofg::passes
