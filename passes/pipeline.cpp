#include "passes/pipeline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <set>
#include <unordered_set>

#include "declarations/declarations.h"
#include "ir/error.h"
#include "ir/graph_ops.h"
#include "ir/json.h"
#include "ir/provenance.h"
#include "ir/snapshot.h"

namespace ofg::passes {

namespace {

void check(Model& m, const char* pass) {
  std::string problem = check_consistency(m);
  if (!problem.empty()) fail(Status::kInternal, std::string("pass ") + pass + " broke the IR: " + problem);
}

// The report's not_applied: declines kept once per (pass, rule, node, reason), in the order met.
class NotAppliedLog {
 public:
  // Takes the new ones of `ds` (moved from when `take`). The key is a hash: pass and rule are
  // the registry's and the rule tables' static strings (their addresses name them); a collision
  // of 64-bit hashes of node and reason would only drop one duplicate-looking entry.
  void add(std::vector<Decline>& ds, bool take) {
    std::hash<std::string> h;
    for (Decline& d : ds) {
      uint64_t key = h(d.node) * 0x9E3779B97F4A7C15ull ^ h(d.reason) ^
                     (reinterpret_cast<uintptr_t>(d.pass) * 31 + reinterpret_cast<uintptr_t>(d.rule)) * 0xC2B2AE3D27D4EB4Full;
      if (!seen_.insert(key).second) continue;
      if (take) list_.push_back({d.pass, d.rule, std::move(d.node), std::move(d.op), std::move(d.reason)});
      else list_.push_back({d.pass, d.rule, d.node, d.op, d.reason});
    }
  }
  // The list without the nodes a rule rewrote (in a round after the decline, or another rule or
  // pass): what is left is why the output still has them as they are, or why they were not
  // fused before a whole-graph pass removed them (in_output false).
  std::vector<NotApplied> finish(const std::vector<RewriteRecord>& rewrites, Model& m) {
    std::set<std::string> rewritten;
    for (const RewriteRecord& w : rewrites)
      if (!w.node.empty() && !w.rule.empty()) rewritten.insert(w.node);
    std::set<std::string_view> present;
    for_each_graph(m.graph, [&](Graph* g) {
      for (Node* n = g->first; n != nullptr; n = n->next)
        if (n->alive && n->name != kNoStr) present.insert(m.str(n->name));
    });
    std::vector<NotApplied> out;
    for (NotApplied& d : list_) {
      if (!d.node.empty() && rewritten.count(d.node)) continue;
      d.in_output = d.node.empty() || d.node[0] == '#' || present.count(d.node) != 0;
      out.push_back(std::move(d));
    }
    return out;
  }

 private:
  std::unordered_set<uint64_t> seen_;
  std::vector<NotApplied> list_;
};

}  // namespace

std::string PipelineReport::to_json() const {
  std::string j = "{\"iterations\":" + std::to_string(iterations) + ",\"nodes_before\":" + std::to_string(nodes_before) +
                  ",\"nodes_after\":" + std::to_string(nodes_after) + ",\"bytes_before\":" + std::to_string(bytes_before) +
                  ",\"bytes_after\":" + std::to_string(bytes_after);
  j += "," + json::number_field("milliseconds", milliseconds, "%.3f") + ",\"passes\":[";
  for (size_t i = 0; i < records.size(); ++i) {
    const PassRecord& r = records[i];
    j += (i ? "," : "") + std::string("{\"name\":") + json::string(r.name) + ",\"class\":" + std::to_string(r.accuracy_class) +
         ",\"iteration\":" + std::to_string(r.iteration) + "," + json::number_field("milliseconds", r.stats.milliseconds, "%.3f") +
         ",\"changes\":" + std::to_string(r.stats.changes) + ",\"nodes_removed\":" + std::to_string(r.stats.nodes_removed) +
         ",\"nodes_added\":" + std::to_string(r.stats.nodes_added) + ",\"nodes_before\":" + std::to_string(r.stats.nodes_before) +
         ",\"nodes_after\":" + std::to_string(r.stats.nodes_after) + ",\"bytes_before\":" + std::to_string(r.stats.bytes_before) +
         ",\"bytes_after\":" + std::to_string(r.stats.bytes_after) + ",\"rolled_back\":" + (r.rolled_back ? "true" : "false") +
         ",\"note\":" + json::string(r.note) + "}";
  }
  j += "],\"index_walks_per_round\":[";
  for (size_t i = 0; i < index_walks.size(); ++i) j += (i ? "," : "") + std::to_string(index_walks[i]);
  j += "],\"rewrites_made\":" + std::to_string(rewrites_made);
  if (!not_applied.empty()) {
    j += ",\"not_applied\":[";
    for (size_t i = 0; i < not_applied.size(); ++i) {
      const NotApplied& d = not_applied[i];
      j += (i ? "," : "") + std::string("{\"pass\":") + json::string(d.pass) + ",\"rule\":" + json::string(d.rule) +
           ",\"node\":" + json::string(d.node) + ",\"op\":" + json::string(d.op) + ",\"reason\":" + json::string(d.reason) + (d.in_output ? "" : ",\"in_output\":false") + "}";
    }
    j += "]";
  }
  if (!rewrites.empty()) {
    j += ",\"rewrites\":[";
    for (size_t i = 0; i < rewrites.size(); ++i) {
      const RewriteRecord& w = rewrites[i];
      j += (i ? "," : "") + std::string("{\"index\":") + std::to_string(i + 1) + ",\"pass\":" + json::string(w.pass) +
           ",\"rule\":" + json::string(w.rule) + ",\"node\":" + json::string(w.node) + ",\"op\":" + json::string(w.op) +
           ",\"what\":" + json::string(w.what) + "}";
    }
    j += "]";
  }
  if (has_provenance) {
    // Output node name -> original node names; output initializer -> original nodes folded into it.
    auto object = [&](const char* key, const std::vector<std::pair<std::string, std::vector<std::string>>>& entries) {
      j += std::string(",\"") + key + "\":{";
      for (size_t i = 0; i < entries.size(); ++i) {
        j += (i ? "," : "") + json::string(entries[i].first) + ":[";
        for (size_t k = 0; k < entries[i].second.size(); ++k) j += (k ? "," : "") + json::string(entries[i].second[k]);
        j += "]";
      }
      j += "}";
    };
    object("provenance", provenance);
    object("folded", folded);
  }
  return j + "}";
}

PipelineReport optimize(std::unique_ptr<Model>& m, const PipelineOptions& options) {
  std::vector<const PassInfo*> list;
  for (const std::string& s : options.skip)
    if (!find_pass(s)) fail(Status::kInvalidArgument, "unknown pass '" + s + "' in the skip list");
  if (!options.only.empty()) {
    for (const std::string& s : options.only) {
      const PassInfo* p = find_pass(s);
      if (!p) fail(Status::kInvalidArgument, "unknown pass '" + s + "'");
      if (!options.skip.count(s)) list.push_back(p);
    }
  } else {
    for (const PassInfo& p : registry())
      if (p.in_default_pipeline && !options.skip.count(p.name)) list.push_back(&p);
  }
  PipelineReport rep;
  auto t0 = std::chrono::steady_clock::now();
  rep.nodes_before = count_nodes(*m);
  rep.bytes_before = initializer_bytes(*m);
  int cap = options.max_iterations > 0 ? options.max_iterations : 1;
  seed_provenance(*m);  // before any pass (and before a snapshot copies the model)
  std::map<std::string, std::string> pass_options = options.pass_options;
  if (options.keep_names) pass_options["keep_names"] = "1";
  TypeCache types;  // inference shared by consecutive passes that change nothing
  RuleIndex index;  // likewise the rule passes' node index: one walk per round when nothing changes
  RewriteBudget budget;
  budget.limit = options.max_rewrites;
  const bool keep_rewrites = options.list_rewrites || options.max_rewrites >= 0;
  // not_applied leaves out the nodes a pass rewrote in a later round: it needs the list.
  budget.log = keep_rewrites || options.not_applied;
  NotAppliedLog not_applied;
  std::vector<Decline> run_declines;  // one pass's declines
  std::vector<Decline>* declines = options.declines || options.not_applied ? &run_declines : nullptr;
  auto take_declines = [&] {
    if (options.not_applied) not_applied.add(run_declines, !options.declines);
    if (options.declines) std::move(run_declines.begin(), run_declines.end(), std::back_inserter(*options.declines));
    run_declines.clear();
  };
  for (int it = 0; it < cap; ++it) {
    rep.iterations = it + 1;
    int64_t changes = 0;
    int64_t walks_before = index.own_builds();
    for (const PassInfo* p : list) {
      PassRecord r;
      r.name = p->name;
      r.accuracy_class = p->accuracy_class;
      r.iteration = it;
      bool verify = options.verify && p->accuracy_class > 0;
      // The model as it was, to go back to when the pass drifts: a copy of the structure that
      // shares the bytes (passes never change bytes in place, they make new tensors).
      std::unique_ptr<Model> before;
      if (verify) before = snapshot_model(*m);
      int64_t used_before = budget.used;
      size_t logged_before = budget.records.size();
      r.stats = run_pass(*m, *p, &pass_options, &types, &index, &budget, declines);
      take_declines();
      if (options.check_each_pass) check(*m, p->name);
      if (verify && r.stats.changes > 0) {
        if (!options.verify(*before, *m, r.note)) {
          // The snapshot views memory of the model it was taken from: it keeps that model.
          keep_alive(*before, std::move(m));
          m = std::move(before);
          types.invalidate();  // it described the model just replaced
          index.invalidate();
          budget.used = used_before;  // the rewrites were undone: they do not count
          budget.records.resize(logged_before);
          r.rolled_back = true;
          r.stats.nodes_after = r.stats.nodes_before;
          r.stats.bytes_after = r.stats.bytes_before;
          r.stats.changes = 0;
        }
      }
      changes += r.stats.changes;
      rep.records.push_back(std::move(r));
      if (options.progress &&
          !options.progress(static_cast<uint32_t>(rep.records.size()), static_cast<uint32_t>(list.size() * (it + 1))))
        fail(Status::kCancelled, "optimize: cancelled by the progress callback after pass '" + rep.records.back().name + "'");
    }
    rep.index_walks.push_back(index.own_builds() - walks_before);
    if (changes == 0) break;
  }
  const char* kSweep = "eliminate_unused_initializers";
  if (options.sweep_unused_weights && !options.only.empty() && !options.skip.count(kSweep) &&
      std::find(options.only.begin(), options.only.end(), kSweep) == options.only.end()) {
    PassRecord r;
    r.name = kSweep;
    const PassInfo* p = find_pass(kSweep);
    r.accuracy_class = p->accuracy_class;
    r.iteration = rep.iterations - 1;
    r.stats = run_pass(*m, *p, &pass_options, &types, &index, &budget, declines);
    take_declines();
    if (options.check_each_pass) check(*m, p->name);
    rep.records.push_back(std::move(r));
  }
  rep.rewrites_made = budget.used;
  if (options.not_applied) rep.not_applied = not_applied.finish(budget.records, *m);
  if (keep_rewrites) rep.rewrites = std::move(budget.records);
  declarations::drop_stale_value_info(*m);
  if (options.provenance) report_provenance(*m, rep);
  rep.nodes_after = count_nodes(*m);
  rep.bytes_after = initializer_bytes(*m);
  rep.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return rep;
}

}  // namespace ofg::passes
