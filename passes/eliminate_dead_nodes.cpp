// eliminate_dead_nodes: removes nodes none of whose outputs is read (by a node, a subgraph or a
// graph output). Exact. Custom-domain nodes are kept: we cannot know what they do besides compute.
#include "passes/util.h"

namespace ofg::passes {

namespace {
bool dead(const Model& m, const Node* n) {
  if (!is_default(m, n)) return false;
  for (const Value* v : n->outputs)
    if (v && (v->uses.size > 0 || v->is_graph_output())) return false;
  return true;
}
}  // namespace

void run_eliminate_dead_nodes(PassContext& ctx) {
  Model& m = ctx.m;
  std::vector<Graph*> graphs = all_graphs(m);
  // Subgraphs last-to-first, each graph back to front: removing a consumer can free its producers
  // in the same sweep, and a dead node with a subgraph releases the outer values it reads.
  for (auto it = graphs.rbegin(); it != graphs.rend(); ++it) {
    Graph* g = *it;
    for (Node* n = g->last; n;) {
      Node* prev = n->prev;
      if (dead(m, n)) {
        // Its subgraphs' nodes go too, so the outer values they read become free.
        drop_with_subgraphs(ctx, n);
        ++ctx.changes;
      }
      n = prev;
    }
  }
}

}  // namespace ofg::passes
