// fold_scales_into_matmul: constant scales that travel into a MatMul's constant weight, one node
// fewer each. Float-rounding bounded (x * w then x.W rounds differently from x.(w W)).
//
// channel_scale_into_weight: y = x * w, w a constant that scales x's last axis only ([K], [1,..,K]
// or one element, never raising x's rank), read by nothing but MatMul(y, B) with constant B of K
// rows: MatMul(x, diag(w) B). Transformers write their norms' learned scale this way (RMSNorm's
// weight * h before the Q/K/V or gate/up projections).
//
// scalar_scale_into_weights: Div(v, c) or Mul(v, c) with c a constant of one element, where v is
// linear in constants upstream: every path back from v runs through ops that commute with a
// scalar factor (Transpose, Reshape, Gather, Add of two scaled values, Mul or MatMul with one
// scaled operand, ...) to a constant operand of a MatMul, Mul, Add or Sub. Those constants take
// the factor and the Div goes. Attention's 1/sqrt(d) after Q.K^T lands in Q's projection weight.
// Every value on the way must be read only on the way (nobody else may see it scaled), and every
// constant that takes the factor only by the nodes that take it.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "exec/infer_types.h"
#include "passes/rule.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {

// A constant input that takes a factor: node `node` reads it at `index`.
struct Slot {
  Node* node;
  uint32_t index;
};

bool same_graph_default(const Model& m, const Node* n, const Graph* g) {
  return n && n->alive && n->graph == g && is_default(m, n);
}

// --- channel_scale_into_weight -------------------------------------------------------------

RuleMatch match_channel_scale(const RuleCtx& rc, Graph* g, Node* mul) {
  const Model& m = rc.m;
  if (mul->inputs.size != 2 || !mul->inputs[0] || !mul->inputs[1] || !mul->outputs[0])
    return RuleMatch::decline("not a two-input Mul with an output");
  Value* y = mul->outputs[0];
  if (y->is_graph_output() || y->uses.size == 0) return RuleMatch::decline("the product is a graph output or unread");
  for (int k = 0; k < 2; ++k) {
    const Tensor* w = const_tensor(m, mul->inputs[k]);
    Value* x = mul->inputs[1 - k];
    if (!w || const_tensor(m, x)) continue;
    if (!is_float_type(w->data_type)) return RuleMatch::decline("the scale is not a float constant");
    for (uint32_t i = 0; i + 1 < w->dims.size; ++i)
      if (w->dims[i] != 1) return RuleMatch::decline("the scale varies along more than the last axis");
    int64_t kw = w->dims.size ? w->dims[w->dims.size - 1] : 1;
    const exec::IType* xt = rc.types().type_of(x);
    if (!xt || !xt->ranked || xt->elem != w->data_type || xt->dims.size() < w->dims.size)
      return RuleMatch::decline("x's type or rank is unknown, or the scale would raise its rank or change its type");
    if (kw != 1 && (xt->dims.empty() || xt->dims.back().value != kw))
      return RuleMatch::decline("x's last dim is not known to equal the scale's length");
    std::vector<Node*> readers;
    for (const Use& u : y->uses) {
      Node* r = u.node;
      if (!same_graph_default(m, r, g) || m.str(r->op_type) != "MatMul" || u.index != 0 || r->inputs.size != 2)
        return RuleMatch::decline("the product is read by something other than a MatMul's first input");
      const Tensor* b = const_tensor(m, r->inputs[1]);
      if (!b || b->data_type != w->data_type || b->dims.size < 2 || !dense(b, dtype_size(b->data_type)))
        return RuleMatch::decline("a reading MatMul's weight is not a constant matrix of the same type");
      if (kw != 1 && b->dims[b->dims.size - 2] != kw) return RuleMatch::decline("a reading MatMul's weight does not have K rows");
      if (std::find(readers.begin(), readers.end(), r) == readers.end()) readers.push_back(r);
    }
    // Each weight must be read by these MatMuls only: scaling a shared one would copy it.
    for (Node* r : readers)
      for (const Use& u : r->inputs[1]->uses)
        if (std::find(readers.begin(), readers.end(), u.node) == readers.end() || u.index != 1)
          return RuleMatch::decline("a weight is also read by another node (scaling it would copy it)");
    std::vector<double> scale;
    if (!read_doubles(w, scale)) return RuleMatch::decline("the scale cannot be read as numbers");
    return RuleMatch::rewrite("x * w -> MatMul weights scaled by w", [g, mul, x, readers, scale](PassContext& ctx) -> int64_t {
      Model& m = ctx.m;
      std::map<Value*, Value*> scaled;  // old weight -> new one (MatMuls may share a weight)
      for (Node* r : readers) {
        Value* bv = r->inputs[1];
        auto it = scaled.find(bv);
        if (it == scaled.end()) {
          const Tensor* b = const_tensor(m, bv);
          size_t cols = static_cast<size_t>(b->dims[b->dims.size - 1]), rows = static_cast<size_t>(b->dims[b->dims.size - 2]);
          Tensor* t = map_float_tensor(m, b, [&](size_t i, double x) { return x * scale[scale.size() == 1 ? 0 : (i / cols) % rows]; });
          it = scaled.emplace(bv, add_initializer(g, std::string(m.str(bv->name)) + "_scaled", t)).first;
        }
        set_input(r, 1, it->second);
        set_input(r, 0, x);
      }
      drop(ctx, mul);
      return 1;
    });
  }
  return RuleMatch::decline("no operand is a constant beside a computed one");
}

// --- scalar_scale_into_weights -------------------------------------------------------------

// The walk back from the scaled value: the nodes whose outputs carry the factor (region) and
// the constant inputs that take it (slots).
class ScaleWalk {
 public:
  ScaleWalk(const Model& m, const Graph* g) : m_(m), g_(g) {}
  std::vector<Node*> region;
  std::vector<Slot> slots;

  // True when u can carry the factor: u is computed in g by ops linear in it down to constants.
  bool carry(Value* u) {
    if (std::find(values_.begin(), values_.end(), u) != values_.end()) return true;
    Node* p = u->producer;
    if (!same_graph_default(m_, p, g_) || u->is_graph_output() || u->is_graph_input || u->initializer) return false;
    if (region.size() >= kMaxRegion) return false;
    values_.push_back(u);
    region.push_back(p);
    std::string_view op = m_.str(p->op_type);
    bool ok = false;
    if (op == "MatMul" || op == "Mul") {
      // One operand takes the factor: a constant one directly, else the first that can carry it.
      if (p->inputs.size == 2 && p->inputs[0] && p->inputs[1] && p->inputs[0] != p->inputs[1]) {
        for (uint32_t i : {1u, 0u})
          if (!ok && is_const(p->inputs[i])) ok = take(p, i);
        for (uint32_t i : {0u, 1u})
          if (!ok && !is_const(p->inputs[i])) ok = attempt([&] { return carry(p->inputs[i]); });
      }
    } else if (op == "Add" || op == "Sub" || op == "Concat") {
      ok = p->inputs.size >= 1;
      for (uint32_t i = 0; ok && i < p->inputs.size; ++i)
        ok = p->inputs[i] && (is_const(p->inputs[i]) ? take(p, i) : carry(p->inputs[i]));
    } else if (op == "Transpose" || op == "Reshape" || op == "Unsqueeze" || op == "Squeeze" || op == "Flatten" ||
               op == "Identity" || op == "Gather" || op == "Slice" || op == "Expand" || op == "Neg") {
      ok = p->inputs.size >= 1 && p->inputs[0] && !is_const(p->inputs[0]) && carry(p->inputs[0]);
    }
    return ok;
  }

 private:
  static constexpr size_t kMaxRegion = 32;
  const Model& m_;
  const Graph* g_;
  std::vector<Value*> values_;

  bool is_const(const Value* v) const { return const_tensor(m_, v) != nullptr; }
  bool take(Node* n, uint32_t i) {
    const Tensor* t = const_tensor(m_, n->inputs[i]);
    if (!t || !is_float_type(t->data_type) || !dense(t, dtype_size(t->data_type))) return false;
    slots.push_back({n, i});
    return true;
  }
  // Runs f; on failure restores the walk to where it was.
  template <class F>
  bool attempt(F f) {
    size_t r = region.size(), s = slots.size(), v = values_.size();
    if (f()) return true;
    region.resize(r);
    slots.resize(s);
    values_.resize(v);
    return false;
  }
};

RuleMatch match_scalar_scale(const RuleCtx& rc, Graph* g, Node* op) {
  const Model& m = rc.m;
  bool is_div = m.str(op->op_type) == "Div";
  if (op->inputs.size != 2 || !op->inputs[0] || !op->inputs[1] || !op->outputs[0])
    return RuleMatch::decline("not a two-input op with an output");
  int ci = -1;
  for (int k = is_div ? 1 : 0; k < 2; ++k) {
    const Tensor* t = const_tensor(m, op->inputs[k]);
    if (t && t->numel() == 1 && !const_tensor(m, op->inputs[1 - k])) ci = k;
  }
  if (ci < 0) return RuleMatch::decline("no one-element constant factor beside a computed value");
  const Tensor* c = const_tensor(m, op->inputs[ci]);
  Value* v = op->inputs[1 - ci];
  std::vector<double> cv;
  if (!is_float_type(c->data_type) || !read_doubles(c, cv) || !std::isfinite(cv[0]) || cv[0] == 0.0)
    return RuleMatch::decline("the factor is not a finite non-zero float");
  const exec::IType* vt = rc.types().type_of(v);
  if (!vt || !vt->ranked || vt->elem != c->data_type || static_cast<int>(vt->dims.size()) < static_cast<int>(c->dims.size))
    return RuleMatch::decline("the scaled value's type or rank is unknown, or the factor would raise its rank");
  ScaleWalk walk(m, g);
  if (!walk.carry(v) || walk.slots.empty())
    return RuleMatch::decline("the value is not linear in constants through ops a factor commutes with");
  std::set<const Node*> inside(walk.region.begin(), walk.region.end());
  inside.insert(op);
  for (Node* n : walk.region)
    for (Value* out : n->outputs)
      if (out)
        for (const Use& u : out->uses)
          if (!inside.count(u.node)) return RuleMatch::decline("a value on the way is also read elsewhere");
  for (const Slot& s : walk.slots)
    for (const Use& u : s.node->inputs[s.index]->uses) {
      bool ours = false;
      for (const Slot& t : walk.slots) ours = ours || (t.node == u.node && t.index == u.index);
      if (!ours) return RuleMatch::decline("a constant that would take the factor is also read elsewhere");
    }
  for (const Slot& s : walk.slots)
    if (const_tensor(m, s.node->inputs[s.index])->data_type != c->data_type)
      return RuleMatch::decline("a constant on the way has another type than the factor");
  std::vector<Slot> slots = walk.slots;
  return RuleMatch::rewrite(is_div ? "v / c -> the constants v is linear in, divided by c" : "v * c -> the constants v is linear in, times c",
                            [g, op, v, slots, is_div, c0 = cv[0]](PassContext& ctx) -> int64_t {
    Model& m = ctx.m;
    if (!bypass(ctx, op, v, op->outputs[0])) return 0;
    std::map<Value*, Value*> scaled;
    for (const Slot& s : slots) {
      Value* old = s.node->inputs[s.index];
      auto it = scaled.find(old);
      if (it == scaled.end()) {
        Tensor* t = map_float_tensor(m, const_tensor(m, old), [&](size_t, double x) { return is_div ? x / c0 : x * c0; });
        it = scaled.emplace(old, add_initializer(g, std::string(m.str(old->name)) + "_scaled", t)).first;
      }
      set_input(s.node, s.index, it->second);
    }
    return 1;
  });
}

}  // namespace

OFG_RULE_GROUP(fold_scales_into_matmul_rules,
  {"channel_scale_into_weight", {"Mul"}, "", 1, kNoOpsetLimit, match_channel_scale},
  {"scalar_scale_into_weights", {"Div", "Mul"}, "", 1, kNoOpsetLimit, match_scalar_scale});

}  // namespace ofg::passes
