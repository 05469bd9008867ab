// The diff's result as JSON (keys documented in docs/diff.md; keep them stable).
#include "diff/diff.h"
#include "ir/json.h"

namespace ofg::diff {
namespace {

using json::string;

std::string ref(const NodeRef& n) {
  return "{\"name\":" + string(n.name) + ",\"op\":" + string(n.op) + ",\"index\":" + std::to_string(n.index) + "}";
}

template <class T, class F>
std::string list(const std::vector<T>& v, F item) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + item(v[i]);
  return s + "]";
}

std::string strings(const std::vector<std::string>& v) {
  return list(v, [](const std::string& x) { return string(x); });
}

std::string group(const NodeGroup& g, const char* one, const char* many) {
  return std::string("{\"") + one + "\":" + ref(g.one) + ",\"" + many + "\":" + list(g.many, ref) +
         ",\"how\":" + string(g.how) + "}";
}

std::string section(const Section& s) {
  auto vd = [](const ValueDiff& d) {
    std::string o = "{\"name\":" + string(d.name) + ",\"a\":" + string(d.a) + ",\"b\":" + string(d.b);
    if (!d.changes.empty()) o += ",\"changes\":" + string(d.changes);
    return o + "}";
  };
  auto rn = [](const Rename& x) { return "{\"a\":" + string(x.a) + ",\"b\":" + string(x.b) + "}"; };
  return "{\"added\":" + list(s.added, vd) + ",\"removed\":" + list(s.removed, vd) + ",\"changed\":" + list(s.changed, vd) +
         ",\"renamed\":" + list(s.renamed, rn) + "}";
}

}  // namespace

std::string diff_json(const Result& r) {
  auto n = [](size_t v) { return std::to_string(v); };
  std::string s = "{\"identical\":";
  s += r.identical() ? "true" : "false";
  s += ",\"provenance\":";
  s += r.with_provenance ? "true" : "false";
  s += ",\"summary\":{\"a_nodes\":" + n(r.a_nodes) + ",\"b_nodes\":" + n(r.b_nodes) + ",\"b_matched\":" + n(r.b_matched()) +
       ",\"same\":" + n(r.same) + ",\"changed\":" + n(r.changed.size()) + ",\"fused\":" + n(r.fused.size()) +
       ",\"split\":" + n(r.split.size()) + ",\"folded\":" + n(r.folded.size()) + ",\"added\":" + n(r.added.size()) + ",\"removed\":" + n(r.removed.size()) +
       ",\"matched_by\":{\"provenance\":" + n(r.by_provenance) + ",\"output_name\":" + n(r.by_output_name) +
       ",\"structure\":" + n(r.by_structure) + "}}";
  s += ",\"nodes\":{\"changed\":" + list(r.changed, [](const NodePair& p) {
         return "{\"a\":" + ref(p.a) + ",\"b\":" + ref(p.b) + ",\"how\":" + string(p.how) + ",\"changes\":" + strings(p.changes) + "}";
       });
  s += ",\"fused\":" + list(r.fused, [](const NodeGroup& g) { return group(g, "b", "a"); });
  s += ",\"split\":" + list(r.split, [](const NodeGroup& g) { return group(g, "a", "b"); });
  s += ",\"folded\":" + list(r.folded, [](const NodeGroup& g) {
         return "{\"initializer\":" + string(g.one.name) + ",\"a\":" + list(g.many, ref) + "}";
       });
  s += ",\"added\":" + list(r.added, ref) + ",\"removed\":" + list(r.removed, ref) + "}";
  s += ",\"unknown_provenance\":{\"b\":" + strings(r.unknown_b) + ",\"a\":" + strings(r.unknown_a) + "}";
  s += ",\"inputs\":" + section(r.inputs) + ",\"outputs\":" + section(r.outputs) + ",\"initializers\":" + section(r.initializers);
  s += ",\"opsets\":" + list(r.opsets, [](const OpsetDiff& o) {
         return "{\"domain\":" + string(o.domain) + ",\"a\":" + std::to_string(o.a) + ",\"b\":" + std::to_string(o.b) + "}";
       });
  s += ",\"op_counts\":" + list(r.op_counts, [](const OpCount& c) {
         return "{\"op\":" + string(c.op) + ",\"a\":" + std::to_string(c.a) + ",\"b\":" + std::to_string(c.b) + "}";
       });
  return s + "}";
}

}  // namespace ofg::diff
