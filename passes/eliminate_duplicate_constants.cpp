// eliminate_duplicate_constants: initializers and Constant nodes with equal type, shape and bytes
// are merged into the first one (hashed, then compared byte for byte). Exact, no size cap.
#include <unordered_map>

#include "kernels/kernels.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {

struct Entry {
  const Tensor* t;
  Value* v;
};

bool same(const Tensor* a, const Tensor* b) {
  if (a->data_type != b->data_type || a->dims.size != b->dims.size || a->data.size != b->data.size) return false;
  for (uint32_t i = 0; i < a->dims.size; ++i)
    if (a->dims[i] != b->dims[i]) return false;
  return kernels::bytes_equal(a->data.data, b->data.data, a->data.size);
}

bool mergeable(const Tensor* t) {
  return t && t->storage != Tensor::kExternal && t->data_type != kString && dtype_size(t->data_type) != 0 &&
         t->data.size == static_cast<size_t>(t->numel()) * dtype_size(t->data_type);
}

}  // namespace

void run_eliminate_duplicate_constants(PassContext& ctx) {
  Model& m = ctx.m;
  for (Graph* g : all_graphs(m)) {
    std::unordered_map<uint64_t, std::vector<Entry>> seen;
    // Returns the earlier equal constant, or records this one.
    auto earlier = [&](Value* v, const Tensor* t) -> Value* {
      uint64_t h = kernels::hash_bytes(t->data.data, t->data.size) ^ (uint64_t(t->data_type) << 56) ^ t->dims.size;
      std::vector<Entry>& bucket = seen[h];
      for (const Entry& e : bucket)
        if (same(e.t, t)) return e.v;
      bucket.push_back({t, v});
      return nullptr;
    };
    std::vector<Value*> inits(g->initializers.begin(), g->initializers.end());
    for (Value* v : inits) {
      if (v->is_graph_input || !mergeable(v->initializer)) continue;
      Value* first = earlier(v, v->initializer);
      if (!first || v->is_graph_output() || read_by_custom(m, v)) continue;
      replace_all_uses(v, first);
      remove_initializer(v);
      ++ctx.changes;
    }
    g->for_each_node([&](Node* n) {
      if (!is_op(m, n, "Constant") || n->outputs.size != 1 || !n->outputs[0]) return;
      const Tensor* t = const_tensor(m, n->outputs[0]);
      if (!mergeable(t)) return;
      Value* out = n->outputs[0];
      Value* first = earlier(out, t);
      if (!first || out->is_graph_output() || read_by_custom(m, out)) return;
      replace_all_uses(out, first);
      drop(ctx, n);
      ++ctx.changes;
    });
  }
}

}  // namespace ofg::passes
