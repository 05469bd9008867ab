// The default pipeline: the passes of registry() in order, repeated until nothing changes or the
// iteration cap is reached, with an optional check or verification after each pass.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "passes/pass.h"
#include "passes/rule.h"

namespace ofg::passes {

struct PassRecord {
  std::string name;
  int accuracy_class = 0;
  int iteration = 0;
  PassStats stats;
  bool rolled_back = false;
  std::string note;  // why it was rolled back
};

// A match a rule declined, as the report lists it ("not_applied"): `node` is "" when the whole
// pass declined (the model's opset is below the rule's range), then `op` is the op it starts from.
struct NotApplied {
  std::string pass, rule, node, op, reason;
  // False when the node is not in the output (a whole-graph pass folded, merged or removed it
  // after the decline); unnamed nodes ("#k") count as present.
  bool in_output = true;
};

struct PipelineReport {
  std::vector<PassRecord> records;
  int iterations = 0;
  int64_t nodes_before = 0, nodes_after = 0;
  uint64_t bytes_before = 0, bytes_after = 0;
  double milliseconds = 0;
  // Every rewrite made, in order, when PipelineOptions::list_rewrites (or a budget) asked for it:
  // the k-th entry is the rewrite a budget of k-1 leaves out.
  std::vector<RewriteRecord> rewrites;
  int64_t rewrites_made = 0;
  // The rules' declines (PipelineOptions::not_applied), each (pass, rule, node, reason) once
  // over all rounds, in the order first met; a node that a rule rewrote (in any pass or round)
  // is left out: its declines were about a graph that changed.
  std::vector<NotApplied> not_applied;
  // Graph walks the rule driver made to index nodes, per round (one per round while no pass
  // changes the graph; after a change, one at the next rule group).
  std::vector<int64_t> index_walks;
  // When PipelineOptions::provenance: each output node's name -> the names of the original nodes
  // it came from (ir/provenance.h), in walk order of the output; each output initializer that
  // constant folding made -> the original nodes folded into it. JSON "provenance" and "folded".
  bool has_provenance = false;
  std::vector<std::pair<std::string, std::vector<std::string>>> provenance, folded;
  std::string to_json() const;
};

struct PipelineOptions {
  std::vector<std::string> only;  // run these passes (in this order) instead of the default list
  std::set<std::string> skip;     // names checked against the registry
  int max_iterations = 8;
  bool check_each_pass = false;   // run check_consistency after every pass (tests, debugging)
  // optimize.max_rewrites: stop after this many rewrites across the whole pipeline (< 0: no
  // limit; 0: none). A rule rewrite counts one; a whole-graph pass that changes anything counts
  // one (it runs only while some budget is left). Rolled-back rewrites are given back.
  int64_t max_rewrites = -1;
  bool list_rewrites = false;     // fill PipelineReport::rewrites (always on under a budget)
  std::vector<Decline>* declines = nullptr;  // where rules' declines go, every one (null: not kept)
  bool not_applied = true;  // fill PipelineReport::not_applied (optimize.explain=0 turns it off)
  std::map<std::string, std::string> pass_options;
  // Fill PipelineReport::provenance. Output nodes without a name are given one first
  // (`<op>_ofg<k>`, made unique): this is the only change it makes to the output model.
  bool provenance = false;
  // optimize.keep_names: no pass gives a value that survives another name (bypass keeps an
  // Identity/no-op whose input would be renamed to a graph output's name, inline_constant_if
  // keeps an If whose branch values would need new names). Passed to passes as pass option
  // "keep_names" = "1".
  bool keep_names = false;
  // After a run of a subset of passes (`only`), remove the weights that no node reads any more
  // (eliminate_unused_initializers, exact) unless it is skipped: a subset must not leave the
  // model larger than it found it. ofg_run_pass turns this off: it runs exactly one pass.
  bool sweep_unused_weights = true;
  // Verification hook for class 1/2 passes: returns true when `after` computes the same outputs
  // as `before`; on false the pass is rolled back and `detail` goes into the report. Unset: no
  // verification (set by the C ABI once an executor is available).
  std::function<bool(const Model& before, const Model& after, std::string& detail)> verify;
  // Called after each pass: done = passes run, total = passes of the rounds begun so far (the
  // fixed-point loop may begin another round). false stops with kCancelled; the model keeps
  // the passes that completed.
  std::function<bool(uint32_t done, uint32_t total)> progress;
};

// Runs the pipeline; `m` may be replaced by a restored copy when a pass is rolled back.
PipelineReport optimize(std::unique_ptr<Model>& m, const PipelineOptions& options);

// Fills rep.provenance and rep.folded from m (passes/provenance_report.cpp), naming its unnamed
// nodes first.
void report_provenance(Model& m, PipelineReport& rep);

}  // namespace ofg::passes
