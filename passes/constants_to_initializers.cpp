// constants_to_initializers: a Constant node holding a tensor becomes an initializer of its graph
// (same value name). Exact. Initializers are what the other passes and converters look for, and
// each lifted Constant is one node less.
#include "ir/provenance.h"
#include "passes/util.h"

namespace ofg::passes {

void run_constants_to_initializers(PassContext& ctx) {
  Model& m = ctx.m;
  // Before IR version 4 every initializer must also be a graph input: leave such models alone.
  if (m.has_ir_version && m.ir_version < 4) return;
  for_each_op(m, "Constant", [&](Graph*, Node* n) {
    if (n->outputs.size != 1 || !n->outputs[0]) return;
    Value* out = n->outputs[0];
    // A graph output that is an initializer is legal but unusual for converters: keep the node.
    if (out->is_graph_output() || n->attributes.size != 1) return;
    const Attribute& a = n->attributes[0];
    if (m.str(a.name) != "value" || !a.t || a.t->storage == Tensor::kExternal) return;
    Tensor* t = a.t;
    drop(ctx, n);
    record_folded(m, out, n);  // the report's "folded" (ir/provenance.h)
    out->producer = nullptr;
    set_initializer(out, t);
    if (!out->type) out->type = make_tensor_type(m, t->data_type, t->dims.data, t->dims.size);
    ++ctx.changes;
  });
}

}  // namespace ofg::passes
