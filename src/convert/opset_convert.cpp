// The driver: walks every node of every graph across the opset boundaries between the model's
// opset and the target, applying the adapter rows it crosses in order (adapter.h), then checks
// that every op exists at the target and sets the opset import.
#include "convert/opset_convert.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "convert/adapter.h"
#include "convert/op_versions.h"
#include "exec/infer_types.h"
#include "ir/error.h"
#include "ir/graph_ops.h"
#include "ir/provenance.h"
#include "ops/registry.h"
#include "passes/util.h"

namespace ofg::convert {

const std::vector<Adapter>& adapters() {
  static const std::vector<Adapter> table = [] {
    std::vector<Adapter> t;
    add_axes_adapters(t);
    add_resize_adapters(t);
    add_lowering_adapters(t);
    add_rotary_lowering_adapters(t);
    add_attention_lowering_adapters(t);
    add_semantic_adapters(t);
    add_added_attribute_adapters(t);
    return t;
  }();
  return table;
}

int64_t newest_opset() {
  static const int64_t newest = [] {
    int64_t best = 0;
    for (const ops::OpEntry* e : ops::Registry::instance().all_entries())
      if (e->domain.empty() && e->since < (1 << 30)) best = std::max(best, e->since);
    return best;
  }();
  return newest;
}

namespace {

// The IR version an opset came out with (so that a raised model declares one that knows it and a
// lowered one loads in the tools of its time).
int64_t ir_for_opset(int64_t opset) {
  static const int64_t table[] = {/*7*/ 3, 3, 4, 5, 6, 7, 7, 7, 8, 8, 8, 8, 9, 9, 10, 10, 11, 11, 11, 11, 11, 11};
  if (opset < 7) return 3;
  size_t i = static_cast<size_t>(opset - 7);
  return i < std::size(table) ? table[i] : table[std::size(table) - 1];
}

struct Walk {
  Model& m;
  int64_t from, to;
  const exec::TypeInference* types;
  OpsetReport& report;
  std::vector<std::string>& problems;

  // The next row for op after version v in the direction of the conversion, or null.
  const Adapter* next(std::string_view op, int64_t v) const {
    const Adapter* best = nullptr;
    for (const Adapter& a : adapters()) {
      if (op != a.op) continue;
      if (to > from) {
        if (a.boundary > v && a.boundary <= to && (!best || a.boundary < best->boundary)) best = &a;
      } else {
        if (a.boundary <= v && a.boundary > to && (!best || a.boundary > best->boundary)) best = &a;
      }
    }
    return best;
  }

  void node(Node* n) {
    int64_t v = from;
    std::string label = node_label(m, n);
    // Nodes an adapter makes from n stand for n (ir/provenance.h).
    ProvenanceScope scope(m, n);
    while (n->alive) {
      std::string op(m.str(n->op_type));
      const Adapter* a = next(op, v);
      if (!a) break;
      StepFn step = to > from ? a->up : a->down;
      int64_t lo = a->boundary - 1, hi = a->boundary;
      if (step) {
        AdaptCtx c{m, n, to, types, nullptr};
        if (const char* why = step(c)) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "opset %lld -> %lld", static_cast<long long>(to > from ? lo : hi),
                        static_cast<long long>(to > from ? hi : lo));
          problems.push_back("node '" + label + "' (" + op + ", " + buf + "): " + why);
          return;
        }
        if (c.what)
          report.adapted.push_back({label, op, to > from ? lo : hi, to > from ? hi : lo, c.what});
      }
      v = to > from ? a->boundary : a->boundary - 1;
    }
  }
};

}  // namespace

OpsetReport convert_opset(Model& m, int64_t target) {
  OpsetReport report;
  int64_t from = m.opset_version("");
  int64_t newest = newest_opset();
  if (target < kOldestOpset || target > newest)
    fail(Status::kInvalidArgument, "convert_opset: target opset " + std::to_string(target) + " is outside " +
                                       std::to_string(kOldestOpset) + ".." + std::to_string(newest));
  report.from = from;
  report.to = target;
  seed_provenance(m);
  for (const OpsetId& o : m.opsets)
    if (!is_default_domain(m, o.domain)) report.other_domains.push_back(std::string(m.str(o.domain)) + " " + std::to_string(o.version));
  // A model of other domains only (ai.onnx.ml): nothing of the default domain to convert.
  if (from == 0) return report;
  if (from < kOldestOpset || from > newest)
    fail(Status::kUnsupported, "convert_opset: the model's opset " + std::to_string(from) + " is outside " +
                                   std::to_string(kOldestOpset) + ".." + std::to_string(newest));
  std::vector<Graph*> graphs = passes::all_graphs(m);
  for (Graph* g : graphs) report.nodes_before += g->node_count;
  if (from != target) {
    exec::TypeInference types(m);
    types.run(false);
    std::vector<std::string> problems;
    Walk w{m, from, target, &types, report, problems};
    for (Graph* g : graphs) {
      std::vector<Node*> nodes;
      for (Node* n = g->first; n; n = n->next)
        if (is_default_domain(m, n->domain)) nodes.push_back(n);
      for (Node* n : nodes) w.node(n);
    }
    // Ops the target does not have (and no adapter replaced).
    for (Graph* g : graphs)
      for (Node* n = g->first; n; n = n->next) {
        if (!is_default_domain(m, n->domain)) continue;
        std::string op(m.str(n->op_type));
        OpRange r = op_range(op);
        if (target >= r.since && target <= r.until) continue;
        std::string why = target < r.since ? "introduced in opset " + std::to_string(r.since)
                                           : "replaced after opset " + std::to_string(r.until);
        problems.push_back("node '" + node_label(m, n) + "' (" + op + ", opset " + std::to_string(from) + " -> " +
                           std::to_string(target) + "): " + why + ", no adapter");
      }
    if (!problems.empty()) {
      std::string msg = "convert_opset: " + std::to_string(problems.size()) + " node(s) cannot be converted from opset " +
                        std::to_string(from) + " to " + std::to_string(target) + ":";
      for (const std::string& p : problems) msg += "\n  " + p;
      fail(Status::kUnsupported, msg);
    }
    for (OpsetId& o : m.opsets)
      if (is_default_domain(m, o.domain)) o.version = target;
    int64_t ir = ir_for_opset(target);
    if (target > from && m.ir_version < ir) m.ir_version = ir;
    if (target < from && m.ir_version > std::max<int64_t>(ir, 4)) m.ir_version = std::max<int64_t>(ir, 4);
    std::string bad = check_consistency(m);
    if (!bad.empty()) fail(Status::kInternal, "convert_opset: the converted graph is inconsistent: " + bad);
  }
  for (Graph* g : passes::all_graphs(m)) report.nodes_after += g->node_count;
  return report;
}

}  // namespace ofg::convert
