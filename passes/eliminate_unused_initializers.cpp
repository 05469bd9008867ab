// eliminate_unused_initializers: removes initializers that no node reads and that are neither
// graph inputs nor graph outputs. Exact.
#include "passes/util.h"

namespace ofg::passes {

void run_eliminate_unused_initializers(PassContext& ctx) {
  for (Graph* g : all_graphs(ctx.m)) {
    std::vector<Value*> unused;
    for (Value* v : g->initializers)
      if (v->uses.size == 0 && !v->is_graph_input && !v->is_graph_output()) unused.push_back(v);
    for (Value* v : unused) {
      remove_initializer(v);
      ++ctx.changes;
    }
  }
}

}  // namespace ofg::passes
