// fold_constants: a deterministic default-domain node without subgraphs whose inputs are all
// constants is evaluated with the library's own kernels and its outputs become initializers
// (same value names). Float-bounded: the kernels round as a runtime would.
//
// It never grows the model beyond a budget: the bytes added (outputs) minus the bytes freed
// (inputs only this node reads) must stay within `fold_constants.budget_bytes` (default 4096),
// so Expand / Tile / ConstantOfShape of a big shape, or a copy of a weight shared with another
// consumer, stay as they are. The output size is known from type inference before running, so a
// huge result is never even allocated.
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "exec/infer_types.h"
#include "exec/interp.h"
#include "ir/provenance.h"
#include "kernels/kernels.h"
#include "ops/registry.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {
// The registry's traits of a default-domain op.
uint32_t traits(std::string_view op) { return ops::Registry::instance().traits("", op); }

bool has_subgraph(const Node* n) {
  for (const Attribute& a : n->attributes)
    if (a.g || a.graphs.size) return true;
  return false;
}

int64_t budget_bytes(const PassContext& ctx) {
  if (ctx.options) {
    auto it = ctx.options->find("fold_constants.budget_bytes");
    if (it != ctx.options->end()) return std::strtoll(it->second.c_str(), nullptr, 10);
  }
  return 4096;
}

// Bytes the outputs of n will take when inference knows their static shapes; -1 when unknown.
int64_t predicted_bytes(const exec::TypeInference& ti, const Node* n) {
  int64_t total = 0;
  for (Value* v : n->outputs) {
    if (!v) continue;
    const exec::IType* t = ti.type_of(v);
    if (!t || !t->ranked || dtype_size(t->elem) == 0) return -1;
    // Inferred dims come from the model's data: a product that overflows is "unknown" too.
    int64_t numel = 1, bytes = 0;
    for (const exec::IDim& d : t->dims)
      if (!d.is_static() || __builtin_mul_overflow(numel, d.value, &numel)) return -1;
    if (__builtin_mul_overflow(numel, static_cast<int64_t>(dtype_size(t->elem)), &bytes) ||
        __builtin_add_overflow(total, bytes, &total))
      return -1;
  }
  return total;
}

// Bytes that disappear with n: constant inputs read by nobody else.
int64_t freed_bytes(const Model& m, const Node* n) {
  int64_t freed = 0;
  for (uint32_t i = 0; i < n->inputs.size; ++i) {
    Value* v = n->inputs[i];
    // Count a value read twice once (nodes have a handful of inputs: a scan beats a hash set).
    if (!v || std::find(n->inputs.begin(), n->inputs.begin() + i, v) != n->inputs.begin() + i) continue;
    bool only_here = !v->is_graph_output();
    for (const Use& u : v->uses) only_here = only_here && u.node == n;
    if (only_here) freed += static_cast<int64_t>(const_tensor(m, v)->data.size);
  }
  return freed;
}

// Keeps an interpreter output buffer alive as the bytes of a folded initializer.
class HeldBuffer : public Backing {
 public:
  explicit HeldBuffer(std::shared_ptr<uint8_t> bytes) : bytes_(std::move(bytes)) {}

 private:
  std::shared_ptr<uint8_t> bytes_;
};

// Results at least this big keep the interpreter's buffer instead of being copied into the arena
// (folding the Transpose of a weight matrix otherwise writes it twice); smaller ones are copied,
// which costs less than holding one more allocation per folded shape scalar.
constexpr size_t kAdoptBytes = 4096;

Tensor* result_tensor(Model& m, const exec::RTensor& r) {
  size_t nbytes = r.nbytes();
  if (r.hold && nbytes >= kAdoptBytes) {
    m.backings.push_back(std::make_shared<HeldBuffer>(r.hold));
    return make_tensor_view(m, r.dtype, r.shape.data(), r.shape.size(), Bytes{r.ptr, nbytes});
  }
  return make_tensor(m, r.dtype, r.shape.data(), r.shape.size(), r.ptr, nbytes);
}

// Memory for large folded results, kept alive by the model. Chunks are advised for transparent
// huge pages: folding the transposed weights of a transformer writes megabytes of fresh memory,
// and faulting that in 4 KiB pages took longer than the transposition itself (one fault per
// 2 MiB instead of 512). Where huge pages are unavailable the advice is ignored and the memory
// behaves like any other anonymous mapping.
class ConstStore : public Backing {
 public:
  ConstStore() = default;
  ConstStore(const ConstStore&) = delete;
  ConstStore& operator=(const ConstStore&) = delete;
  ~ConstStore() override {
    for (const Chunk& c : chunks_) munmap(c.base, c.size);
  }

  // n bytes, 64-byte aligned; null when the system refuses the mapping.
  uint8_t* allocate(size_t n) {
    n = (n + 63) / 64 * 64;
    if (chunks_.empty() || chunks_.back().size - used_ < n) {
      size_t size = std::max(kHuge, (n + kHuge - 1) / kHuge * kHuge);
      // Over-allocate by one huge page so the chunk can start on a 2 MiB boundary.
      void* raw = mmap(nullptr, size + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (raw == MAP_FAILED) return nullptr;
      uintptr_t r = reinterpret_cast<uintptr_t>(raw);
      uintptr_t base = (r + kHuge - 1) / kHuge * kHuge;
      if (base > r) munmap(raw, base - r);
      if (base + size < r + size + kHuge) munmap(reinterpret_cast<void*>(base + size), r + size + kHuge - (base + size));
#ifdef MADV_HUGEPAGE
      madvise(reinterpret_cast<void*>(base), size, MADV_HUGEPAGE);
#endif
      chunks_.push_back({reinterpret_cast<uint8_t*>(base), size});
      used_ = 0;
    }
    uint8_t* p = chunks_.back().base + used_;
    used_ += n;
    return p;
  }

  // Unmaps the whole pages of the last chunk that were never handed out (nothing more is
  // allocated from this store), so the rounding to huge pages does not cost resident memory.
  void trim() {
    if (chunks_.empty()) return;
    Chunk& c = chunks_.back();
    size_t keep = (used_ + kPage - 1) / kPage * kPage;
    if (keep < c.size) {
      munmap(c.base + keep, c.size - keep);
      c.size = keep;
    }
    if (c.size == 0) chunks_.pop_back();
  }

 private:
  static constexpr size_t kHuge = size_t(2) << 20;
  static constexpr size_t kPage = 4096;
  struct Chunk {
    uint8_t* base;
    size_t size;
  };
  std::vector<Chunk> chunks_;
  size_t used_ = 0;
};

// Transpose of a constant evaluated without the interpreter: the kernel reads the constant's
// bytes where they are (at any alignment) and writes into `store`, so the result is neither
// zero-filled nor copied afterwards. Returns null (nothing changed) for anything but a plain
// permutation of a supported dense tensor; the interpreter handles those cases.
Tensor* fold_transpose(Model& m, const Node* n, ConstStore& store) {
  if (n->inputs.size != 1 || n->outputs.size != 1 || !n->inputs[0]) return nullptr;
  const Tensor* t = const_tensor(m, n->inputs[0]);
  size_t es = dtype_size(t->data_type);
  size_t rank = t->dims.size;
  if (!exec::is_supported_type(t->data_type) || (es != 1 && es != 2 && es != 4 && es != 8) || rank > 8 ||
      !dense(t, es))
    return nullptr;
  std::vector<int64_t> perm;
  if (!attr_ints(m, n, "perm", perm)) {
    for (size_t i = 0; i < rank; ++i) perm.push_back(static_cast<int64_t>(rank - 1 - i));
  }
  if (!valid_perm(perm, rank)) return nullptr;  // negative axes, wrong length: interpreter path
  std::vector<size_t> p(perm.begin(), perm.end());
  std::vector<int64_t> out_dims(rank);
  for (size_t i = 0; i < rank; ++i) out_dims[i] = t->dims[p[i]];
  size_t nbytes = t->data.size;
  const uint8_t* src = t->bytes().data;
  uint8_t* dst = store.allocate(nbytes);
  if (!dst) return nullptr;
  if (nbytes) kernels::transpose(src, dst, es, t->dims.data, p.data(), rank);
  return make_tensor_view(m, t->data_type, out_dims.data(), rank, Bytes{dst, nbytes});
}

// The 2-D Transpose of a constant weight (exporters write [out, in] -> [in, out] for MatMul) is
// not computed by the pass: the result's recipe transposes rows of the output when they are read,
// so saving streams it through a small buffer and the model never holds the transposed copy.
// Output row o is column o of the source.
class Transpose2DRecipe final : public TensorRecipe {
 public:
  Transpose2DRecipe(Model& m, const Tensor* src, size_t elem)
      : TensorRecipe(&m.arena), model_(&m), src_(src), elem_(elem),
        rows_(static_cast<size_t>(src->dims[0])), cols_(static_cast<size_t>(src->dims[1])) {}
  void set_source_dead() { source_dead_ = true; }

  void fill(size_t offset, size_t size, uint8_t* dst) const override {
    const size_t row = rows_ * elem_;  // bytes of one output row
    const size_t end = offset + size;
    for (size_t at = offset; at < end;) {
      const size_t o = at / row, skip = at - o * row;
      if (skip == 0 && end - at >= row) {
        const size_t count = (end - at) / row;
        rows(o, count, dst + (at - offset));
        at += count * row;
      } else {  // part of a row (the range's ends): only its elements, one by one
        const size_t n = std::min(row - skip, end - at);
        const uint8_t* column = src_->data.data + o * elem_;
        for (size_t r = skip / elem_, k = 0; k < n; ++r, k += elem_)
          std::memcpy(dst + (at - offset) + k, column + r * cols_ * elem_, elem_);
        at += n;
      }
    }
  }
  void release_sources() const override {
    if (source_dead_) release_loaded_bytes(*model_, src_->data);
  }

 private:
  // Output rows [o, o + count) = source columns [o, o + count), read where the weight is (the
  // kernel takes any alignment).
  void rows(size_t o, size_t count, uint8_t* dst) const {
    kernels::active_table().transpose2d(elem_, src_->data.data + o * elem_, cols_, dst, rows_, rows_, count);
  }

  const Model* model_;
  const Tensor* src_;
  size_t elem_, rows_, cols_;
  bool source_dead_ = false;
};

// A computed result for a 2-D Transpose of a constant; null for anything else.
Tensor* computed_transpose_2d(Model& m, const Node* n) {
  if (n->inputs.size != 1 || n->outputs.size != 1 || !n->inputs[0]) return nullptr;
  const Tensor* t = const_tensor(m, n->inputs[0]);
  const size_t es = dtype_size(t->data_type);
  if (t->dims.size != 2 || !exec::is_supported_type(t->data_type) || (es != 1 && es != 2 && es != 4 && es != 8) ||
      !dense(t, es) || t->recipe)
    return nullptr;
  std::vector<int64_t> perm;
  if (attr_ints(m, n, "perm", perm) && perm != std::vector<int64_t>{1, 0}) return nullptr;
  auto* recipe = m.arena.make<Transpose2DRecipe>(m, t, es);
  if (n->inputs[0]->uses.size == 1 && !n->inputs[0]->is_graph_output()) recipe->set_source_dead();
  const int64_t dims[2] = {t->dims[1], t->dims[0]};
  return make_computed_tensor(m, t->data_type, dims, 2, t->data.size, recipe);
}

// Unsqueeze, Squeeze, Reshape and Flatten of a constant only give its bytes other dims: the
// result views the same bytes with the static shape inference found for the output (checked to
// hold as many elements), with no interpreter run and no copy. Null when the shape is not known.
Tensor* reshaped_view(Model& m, const exec::TypeInference& ti, const Node* n) {
  std::string_view op = m.str(n->op_type);
  if ((op != "Unsqueeze" && op != "Squeeze" && op != "Reshape" && op != "Flatten") || n->outputs.size != 1 ||
      !n->outputs[0] || !n->inputs[0])
    return nullptr;
  const Tensor* t = const_tensor(m, n->inputs[0]);
  const exec::IType* out = ti.type_of(n->outputs[0]);
  const size_t es = dtype_size(t->data_type);
  if (!out || !out->ranked || out->elem != t->data_type || es == 0 || !dense(t, es)) return nullptr;
  std::vector<int64_t> dims;
  int64_t numel = 1;
  for (const exec::IDim& d : out->dims) {
    if (!d.is_static() || d.value < 0 || __builtin_mul_overflow(numel, d.value, &numel)) return nullptr;
    dims.push_back(d.value);
  }
  if (numel != t->numel()) return nullptr;
  return make_tensor_view(m, t->data_type, dims.data(), dims.size(), t->bytes());
}

// Outputs at least this big take the direct Transpose path (smaller ones are cheap either way).
constexpr int64_t kDirectBytes = 64 * 1024;

bool foldable(const Model& m, const Node* n) {
  if (!is_default(m, n) || has_subgraph(n) || n->inputs.size == 0) return false;
  std::string_view op = m.str(n->op_type);
  if (op == "Constant") return false;
  for (Value* v : n->inputs) {
    if (!v) continue;
    const Tensor* t = const_tensor(m, v);
    if (!t || t->storage == Tensor::kExternal || t->data_type == kString) return false;
  }
  for (Value* v : n->outputs)
    if (v && (v->is_graph_output() || read_by_custom(m, v))) return false;
  // Asked last: most nodes have a computed input, and the checks above are cheaper.
  return !(traits(op) & ops::kRandom);
}

// Removes folded node n; its outputs become initializers holding `results` (same value names).
void replace_by_initializers(PassContext& ctx, Node* n, const std::vector<Tensor*>& results) {
  Model& m = ctx.m;
  drop(ctx, n);
  for (uint32_t i = 0; i < n->outputs.size; ++i) {
    Value* v = n->outputs[i];
    if (!v) continue;
    record_folded(m, v, n);  // the report's "folded" (ir/provenance.h)
    v->producer = nullptr;
    set_initializer(v, results[i]);
    v->type = make_tensor_type(m, results[i]->data_type, results[i]->dims.data, results[i]->dims.size);
  }
  ++ctx.changes;
}
// The report's not_applied entry for a constant node left unfolded by the size budget.
void over_budget(PassContext& ctx, const Node* n, int64_t added, int64_t budget) {
  ctx.decline("size_budget", n,
              "folding would add " + std::to_string(added) + " bytes to the model, above the budget of " +
                  std::to_string(budget) + " per fold (--fold-budget raises it)");
}
}  // namespace

void run_fold_constants(PassContext& ctx) {
  Model& m = ctx.m;
  // Before IR version 4 initializers must be graph inputs too: leave such models alone.
  if (m.has_ir_version && m.ir_version < 4) return;
  int64_t budget = budget_bytes(ctx);
  const exec::TypeInference& ti = ctx.inferred_types();
  exec::Interpreter interp(m);
  std::shared_ptr<ConstStore> store;  // made on the first large Transpose
  std::vector<exec::RValue> args;     // reused from node to node
  for (Graph* g : all_graphs(m)) {
    g->for_each_node([&](Node* n) {
      if (!n->alive || !foldable(m, n)) return;
      int64_t freed = freed_bytes(m, n);
      int64_t predicted = predicted_bytes(ti, n);
      if (predicted - freed > budget) return over_budget(ctx, n, predicted - freed, budget);
      // Ops whose result size is not bounded by their inputs are run only when it is known.
      if (predicted < 0 && (traits(m.str(n->op_type)) & ops::kMayGrow)) return;
      if (Tensor* r = reshaped_view(m, ti, n)) {
        replace_by_initializers(ctx, n, {r});
        return;
      }
      // A 2-D Transpose of any size is left to be computed when read: nothing to run now.
      if (is_op(m, n, "Transpose")) {
        if (Tensor* r = computed_transpose_2d(m, n)) {
          replace_by_initializers(ctx, n, {r});
          return;
        }
      }
      if (predicted >= kDirectBytes && is_op(m, n, "Transpose")) {
        if (!store) {
          store = std::make_shared<ConstStore>();
          m.backings.push_back(store);
        }
        if (Tensor* r = fold_transpose(m, n, *store)) {
          replace_by_initializers(ctx, n, {r});
          return;
        }
      }
      args.clear();
      for (Value* v : n->inputs)
        args.push_back(v ? exec::RValue::tensor(exec::from_ir(*const_tensor(m, v))) : exec::RValue{});
      std::vector<exec::RValue> outs;
      try {
        outs = interp.run_node(n, args);
      } catch (const std::exception&) {
        return;  // a kernel that rejects these inputs: leave the node for the runtime to report
      }
      int64_t actual = 0;
      for (const exec::RValue& o : outs)
        if (o.kind == exec::RValue::kTensor) actual += static_cast<int64_t>(o.t.nbytes());
      if (actual - freed > budget) return over_budget(ctx, n, actual - freed, budget);
      std::vector<Tensor*> results(n->outputs.size, nullptr);
      for (uint32_t i = 0; i < n->outputs.size; ++i) {
        if (!n->outputs[i]) continue;
        if (outs[i].kind != exec::RValue::kTensor) return;
        const exec::RTensor& r = outs[i].t;
        if (dtype_size(r.dtype) == 0) return;
        results[i] = result_tensor(m, r);
      }
      replace_by_initializers(ctx, n, results);
    });
  }
  if (store) store->trim();
}

}  // namespace ofg::passes
