// fold_constants: a deterministic default-domain node without subgraphs whose inputs are all
// constants is evaluated with the library's own kernels and its outputs become initializers
// (same value names). Float-bounded: the kernels round as a runtime would.
//
// It never grows the model beyond a budget: the bytes added (outputs) minus the bytes freed
// (inputs only this node reads) must stay within `fold_constants.budget_bytes` (default 4096),
// so Expand / Tile / ConstantOfShape of a big shape, or a copy of a weight shared with another
// consumer, stay as they are. The output size is known from type inference before running, so a
// huge result is never even allocated.
#include <cstdlib>
#include <unordered_set>

#include "exec/infer_types.h"
#include "exec/interp.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {
bool nondeterministic(std::string_view op) {
  return op == "RandomNormal" || op == "RandomUniform" || op == "RandomNormalLike" || op == "RandomUniformLike" ||
         op == "Multinomial" || op == "Bernoulli";
}

bool grows(std::string_view op) {
  return op == "Expand" || op == "Tile" || op == "ConstantOfShape" || op == "Range" || op == "Resize" ||
         op == "Upsample" || op == "Pad" || op == "OneHot" || op == "EyeLike" || op == "MatMul" || op == "Gemm" ||
         op == "Einsum" || op == "ConvTranspose";
}

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
    int64_t numel = 1;
    for (const exec::IDim& d : t->dims) {
      if (!d.is_static()) return -1;
      numel *= d.value;
    }
    total += numel * static_cast<int64_t>(dtype_size(t->elem));
  }
  return total;
}

// Bytes that disappear with n: constant inputs read by nobody else.
int64_t freed_bytes(const Model& m, const Node* n) {
  int64_t freed = 0;
  std::unordered_set<const Value*> seen;
  for (Value* v : n->inputs) {
    if (!v || !seen.insert(v).second) continue;
    bool only_here = !v->is_graph_output();
    for (const Use& u : v->uses) only_here = only_here && u.node == n;
    if (only_here) freed += static_cast<int64_t>(const_tensor(m, v)->data.size);
  }
  return freed;
}

bool foldable(const Model& m, const Node* n) {
  if (!is_default(m, n) || has_subgraph(n) || n->inputs.size == 0) return false;
  std::string_view op = m.str(n->op_type);
  if (op == "Constant" || nondeterministic(op)) return false;
  for (Value* v : n->inputs) {
    if (!v) continue;
    const Tensor* t = const_tensor(m, v);
    if (!t || t->storage == Tensor::kExternal || t->data_type == kString) return false;
  }
  for (Value* v : n->outputs)
    if (v && (v->is_graph_output() || read_by_custom(m, v))) return false;
  return true;
}
}  // namespace

void run_fold_constants(PassContext& ctx) {
  Model& m = ctx.m;
  // Before IR version 4 initializers must be graph inputs too: leave such models alone.
  if (m.has_ir_version && m.ir_version < 4) return;
  int64_t budget = budget_bytes(ctx);
  exec::TypeInference ti(m);
  ti.run(false);
  exec::Interpreter interp(m);
  for (Graph* g : all_graphs(m)) {
    g->for_each_node([&](Node* n) {
      if (!n->alive || !foldable(m, n)) return;
      int64_t freed = freed_bytes(m, n);
      int64_t predicted = predicted_bytes(ti, n);
      if (predicted - freed > budget) return;
      // Ops whose result size is not bounded by their inputs are run only when it is known.
      if (predicted < 0 && grows(m.str(n->op_type))) return;
      exec::Frame f;
      for (Value* v : n->inputs)
        if (v) f.values[v] = exec::RValue::tensor(exec::from_ir(*const_tensor(m, v)));
      try {
        interp.run_node(n, f);
      } catch (const std::exception&) {
        return;  // a kernel that rejects these inputs: leave the node for the runtime to report
      }
      int64_t actual = 0;
      for (Value* v : n->outputs) {
        auto it = v ? f.values.find(v) : f.values.end();
        if (it != f.values.end() && it->second.kind == exec::RValue::kTensor)
          actual += static_cast<int64_t>(it->second.t.nbytes());
      }
      if (actual - freed > budget) return;
      std::vector<Tensor*> results(n->outputs.size, nullptr);
      for (uint32_t i = 0; i < n->outputs.size; ++i) {
        Value* v = n->outputs[i];
        if (!v) continue;
        auto it = f.values.find(v);
        if (it == f.values.end() || it->second.kind != exec::RValue::kTensor) return;
        const exec::RTensor& r = it->second.t;
        if (dtype_size(r.dtype) == 0) return;
        results[i] = make_tensor(m, r.dtype, r.shape.data(), r.shape.size(), r.ptr, r.nbytes());
      }
      drop(ctx, n);
      for (uint32_t i = 0; i < n->outputs.size; ++i) {
        Value* v = n->outputs[i];
        if (!v) continue;
        v->producer = nullptr;
        set_initializer(v, results[i]);
        v->type = make_tensor_type(m, results[i]->data_type, results[i]->dims.data, results[i]->dims.size);
      }
      ++ctx.changes;
    });
  }
}

}  // namespace ofg::passes
