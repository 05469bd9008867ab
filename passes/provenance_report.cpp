// The pipeline report's "provenance" and "folded" (ir/provenance.h explains how origins are kept).
#include <unordered_map>

#include "ir/graph_ops.h"
#include "ir/provenance.h"
#include "passes/pipeline.h"

namespace ofg::passes {

void report_provenance(Model& m, PipelineReport& rep) {
  rep.has_provenance = true;
  rep.provenance.clear();
  rep.folded.clear();
  // Report keys must name output nodes: an unnamed one gets `<op>_ofg<k>` (unique in the model).
  // Nodes sharing a name (ONNX allows it) share one entry, the union of their origins.
  uint64_t generated = 0;
  std::unordered_map<std::string, size_t> entry_of;
  for_each_graph(m.graph, [&](Graph* g) {
    for (Node* n = g->first; n; n = n->next) {
      if (n->name == kNoStr || m.str(n->name).empty())
        n->name = unique_name(m, std::string(m.str(n->op_type)) + "_ofg" + std::to_string(generated++));
      std::string name(m.str(n->name));
      auto it = entry_of.find(name);
      bool fresh = it == entry_of.end();
      if (fresh) {
        it = entry_of.emplace(name, rep.provenance.size()).first;
        rep.provenance.push_back({name, {}});
      }
      std::vector<std::string>& origins = rep.provenance[it->second].second;
      for (uint32_t id : n->origins) {
        std::string o = origin_name(m, id);
        bool seen = false;
        if (!fresh)  // a node's own ids never repeat; another node of the same name's may
          for (const std::string& e : origins) seen |= e == o;
        if (!seen) origins.push_back(std::move(o));
      }
    }
    for (Value* v : g->initializers) {
      auto f = m.folded_origins.find(v->name);
      if (f == m.folded_origins.end()) continue;
      std::vector<std::string> names;
      for (uint32_t id : f->second) names.push_back(origin_name(m, id));
      rep.folded.push_back({std::string(m.str(v->name)), std::move(names)});
    }
  });
}

}  // namespace ofg::passes
