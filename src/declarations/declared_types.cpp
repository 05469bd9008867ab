// What a saved model declares about its values, kept true after the passes changed the graph.
#include "declarations/declarations.h"

#include <vector>

#include "exec/infer_types.h"
#include "ir/graph_ops.h"

namespace ofg::declarations {

namespace {

// A value is still defined when a live node produces it (a rewired node no longer lists the
// value it used to produce) or the graph takes it as input or weight.
bool defined(const Value* v) {
  if (v->is_graph_input || v->initializer) return true;
  const Node* n = v->producer;
  return n && n->alive && v->producer_output < n->outputs.size && n->outputs[v->producer_output] == v;
}

// The declaration `old` with every dim it leaves open that inference proved static filled in.
Type* refined(Model& m, const Type* old, const exec::IType& inf) {
  if (!old || old->kind != Type::kTensor || !inf.ranked) return nullptr;
  if (old->has_shape && old->dims.size != inf.dims.size()) return nullptr;
  if (old->has_elem_type && inf.elem && old->elem_type != inf.elem) return nullptr;
  std::vector<int64_t> dims(inf.dims.size(), -1);
  bool changed = !old->has_shape;
  for (size_t i = 0; i < inf.dims.size(); ++i) {
    bool declared_static = old->has_shape && old->dims[i].is_static();
    if (declared_static) dims[i] = old->dims[i].value;
    else if (inf.dims[i].is_static()) {
      dims[i] = inf.dims[i].value;
      changed = true;
    }
  }
  if (!changed) return nullptr;
  Type* t = make_tensor_type(m, old->has_elem_type ? old->elem_type : inf.elem, dims.data(), dims.size());
  // Dims still open keep the declaration's symbolic names.
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] < 0) {
      t->dims[i].has_value = false;
      t->dims[i].param = old->has_shape ? old->dims[i].param : inf.dims[i].sym;
    }
  return t;
}

}  // namespace

size_t drop_stale_value_info(Model& m) {
  size_t dropped = 0;
  for_each_graph(m.graph, [&](Graph* g) {
    for (uint32_t i = g->value_infos.size; i-- > 0;)
      if (!defined(g->value_infos[i].value)) {
        g->value_infos.erase_at(i);
        ++dropped;
      }
  });
  return dropped;
}

void refresh_declared_shapes(Model& m) {
  exec::TypeInference ti(m);
  ti.run(true);
  auto refresh = [&](ValueInfo& vi) {
    const exec::IType* inf = ti.type_of(vi.value);
    if (!inf) return;
    if (Type* t = refined(m, vi.type ? vi.type : vi.value->type, *inf)) {
      vi.type = t;
      vi.has_type = true;
    }
  };
  for (ValueInfo& vi : m.graph->outputs) refresh(vi);
  for (ValueInfo& vi : m.graph->value_infos) refresh(vi);
}

}  // namespace ofg::declarations
