// eliminate_duplicate_constants: initializers and Constant nodes with equal type, shape and bytes
// are merged into the first one (bucketed by a fingerprint, then compared byte for byte). Exact,
// no size cap.
//
// Hashing every byte of every weight would read the whole model (a third of the pipeline's time
// on a CNN). The bucket key is therefore a fingerprint of type, shape and a small sample of the
// bytes, which equal constants always share; only when a second constant lands in a bucket are
// full hashes computed (once per constant) and, where they agree, the bytes compared in full.
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
  return kernels::equal_bytes(a->bytes().data, b->bytes().data, a->data.size);
}

bool mergeable(const Tensor* t) {
  return t && t->storage != Tensor::kExternal && t->data_type != kString && dtype_size(t->data_type) != 0 &&
         t->data.size == static_cast<size_t>(t->numel()) * dtype_size(t->data_type);
}

// Type, shape and, for large tensors, the first and the last 64 bytes. Those two windows sit
// next to the tensor's own header and the next one's, which loading has already read, so taking
// them touches no new page of a mapped file (windows spread over the data cost a page fault
// each). Equal constants always share the fingerprint; constants that differ only between the
// windows fall into one bucket and are told apart by the full hash. Element-aligned offsets let a
// tensor still to be computed (Tensor::recipe) give the windows without being materialised.
uint64_t fingerprint(const Tensor* t) {
  constexpr size_t kWindow = 64;
  uint64_t h = (uint64_t(t->data_type) << 56) ^ (uint64_t(t->dims.size) << 48) ^ t->data.size;
  for (uint32_t i = 0; i < t->dims.size; ++i) h = h * 0x100000001b3ull ^ uint64_t(t->dims[i]);
  size_t n = t->data.size;
  if (n <= 2 * kWindow) return h ^ kernels::hash_bytes(t->bytes().data, n);
  alignas(64) uint8_t window[kWindow];
  for (size_t at : {size_t(0), n - kWindow}) {
    t->read(at, kWindow, window);
    h = h * 0x100000001b3ull ^ kernels::hash_bytes(window, kWindow);
  }
  return h;
}

struct Bucket {
  std::vector<Entry> entries;
  std::vector<uint64_t> full_hashes;  // filled for every entry once the bucket has two
};

}  // namespace

void run_eliminate_duplicate_constants(PassContext& ctx) {
  Model& m = ctx.m;
  for (Graph* g : all_graphs(m)) {
    std::unordered_map<uint64_t, Bucket> seen;
    // Returns the earlier equal constant, or records this one.
    auto earlier = [&](Value* v, const Tensor* t) -> Value* {
      Bucket& bucket = seen[fingerprint(t)];
      if (!bucket.entries.empty()) {
        while (bucket.full_hashes.size() < bucket.entries.size()) {
          const Tensor* e = bucket.entries[bucket.full_hashes.size()].t;
          bucket.full_hashes.push_back(kernels::hash_bytes(e->bytes().data, e->data.size));
        }
        uint64_t h = kernels::hash_bytes(t->bytes().data, t->data.size);
        for (size_t i = 0; i < bucket.entries.size(); ++i)
          if (bucket.full_hashes[i] == h && same(bucket.entries[i].t, t)) return bucket.entries[i].v;
        bucket.full_hashes.push_back(h);
      }
      bucket.entries.push_back({t, v});
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
