// simplify_shape_chains: shape arithmetic (Shape -> Gather/Slice -> Unsqueeze -> Concat ->
// Reshape/Expand/...) is replaced by what type inference proves about it. Verified class: it
// relies on inference being right about every dim.
//  - A computed integer vector whose every element is known becomes an initializer.
//  - The shape input of a Reshape becomes a constant when each unknown element is either the
//    same dim of the data at the same position (written 0, "copy", when allowzero is 0) or the
//    only unknown left (written -1).
//  - Another partially known vector is rebuilt as Concat(constants, Shape(x)[i:j] ...) when that
//    takes fewer nodes than the chain it replaces.
//  - A symbolic dim is read from one canonical source, the first main-graph input that declares
//    it (input order, then dim order): Shape(k of layer 3)[2] and Shape(input_ids)[1] are both
//    "seq", and once both read input_ids eliminate_common_subexpressions merges the chains built
//    on them (one rotary cos/sin chain instead of one per layer). This rebuild may cost as many
//    nodes as it replaces; it still runs because it moves the read to the canonical source, and
//    it runs once (the rebuilt chain reads the canonical source already).
//  - A Where on shape vectors whose condition inference knows is replaced by the branch it takes.
//  - An element of an Expand's shape that equals the input's dim at the same (right-aligned)
//    position is written 1: broadcasting 1 against that dim gives the dim (repeat_kv's
//    Expand(Unsqueeze(kv), [batch, 2, 4, total, 32]) becomes a constant [1, 2, 4, 1, 32]).
// Symbolic dims stay dynamic: only dims inference proves static become constants, so the model
// still runs at any batch or sequence size.
#include <unordered_map>
#include <unordered_set>

#include "exec/infer_rules.h"
#include "exec/infer_types.h"
#include "ir/provenance.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {
using exec::SymVal;

bool all_const(const std::vector<SymVal>& c) {
  for (const SymVal& s : c)
    if (s.kind != SymVal::kConst) return false;
  return true;
}

bool int_type(const exec::IType* t) { return t && (t->elem == kInt64 || t->elem == kInt32) && t->ranked && t->dims.size() <= 1; }

Tensor* ints_tensor(Model& m, int32_t dtype, bool scalar, const std::vector<int64_t>& v) {
  std::vector<int64_t> dims;
  if (!scalar) dims.push_back(static_cast<int64_t>(v.size()));
  if (dtype == kInt64) return make_tensor(m, kInt64, dims.data(), dims.size(), v.data(), v.size() * 8);
  std::vector<int32_t> w(v.begin(), v.end());
  return make_tensor(m, kInt32, dims.data(), dims.size(), w.data(), w.size() * 4);
}

// Nodes that become dead when every use of v is rewired (v's producer and the part of its input
// cone that nothing else reads).
int64_t cone_size(const Model& m, const Value* v) {
  Node* p = v->producer;
  if (!p || !p->alive) return 0;
  for (Value* o : p->outputs)
    if (o && o != v && (o->uses.size || o->is_graph_output())) return 0;
  std::unordered_set<const Node*> dead{p};
  std::vector<const Node*> work{p};
  while (!work.empty()) {
    const Node* n = work.back();
    work.pop_back();
    for (Value* in : n->inputs) {
      if (!in || !in->producer || in->initializer || !in->producer->alive || dead.count(in->producer)) continue;
      Node* q = in->producer;
      if (!is_default(m, q) || q->graph != p->graph) continue;
      bool only_dead = true;
      for (Value* o : q->outputs) {
        if (!o) continue;
        if (o->is_graph_output()) only_dead = false;
        for (const Use& u : o->uses) only_dead = only_dead && dead.count(u.node);
      }
      if (only_dead) {
        dead.insert(q);
        work.push_back(q);
      }
    }
  }
  return static_cast<int64_t>(dead.size());
}

// The constant shape for Reshape(x, s) when one exists (see the file comment).
bool reshape_constant(const exec::TypeInference& ti, const Node* n, const std::vector<SymVal>& s, bool allowzero,
                      std::vector<int64_t>& out) {
  const exec::IType* xt = ti.type_of(n->inputs[0]);
  out.clear();
  int unresolved = -1;
  bool has_minus = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const SymVal& e = s[i];
    if (e.kind == SymVal::kConst) {
      if (e.value == -1) has_minus = true;
      if (e.value < -1) return false;
      out.push_back(e.value);
      continue;
    }
    bool copy = false;
    if (!allowzero && e.kind == SymVal::kDim && xt && xt->ranked && i < xt->dims.size()) {
      const exec::IDim& d = xt->dims[i];
      copy = (e.src == n->inputs[0] && e.index == static_cast<int>(i)) || (d.is_symbolic() && d.sym == e.sym && e.sym != kNoStr);
    }
    if (copy) {
      out.push_back(0);
      continue;
    }
    if (unresolved >= 0) return false;
    unresolved = static_cast<int>(i);
    out.push_back(-1);
  }
  if (unresolved >= 0 && has_minus) return false;
  return true;
}

// The canonical source of each symbolic dim declared by a main-graph input: the first input (in
// input order) with that dim, and its position there.
struct Canon {
  const Value* src;
  int index;
};
using CanonMap = std::unordered_map<StrId, Canon>;

CanonMap canonical_dims(const Model& m, const exec::TypeInference& ti) {
  CanonMap out;
  for (const ValueInfo& vi : m.graph->inputs) {
    const Value* v = vi.value;
    if (!v || v->initializer) continue;  // an initializer's dims are the tensor's, not a name
    const exec::IType* t = ti.type_of(v);
    if (!t || !t->ranked) continue;
    for (size_t i = 0; i < t->dims.size(); ++i)
      if (t->dims[i].is_symbolic()) out.emplace(t->dims[i].sym, Canon{v, static_cast<int>(i)});
  }
  return out;
}

// True when dim j of x is, at run time, the dim e names: the same read, the same symbolic name,
// or (through an Unsqueeze with constant axes) the same dim of the Unsqueeze's input.
bool is_dim(const Model& m, const exec::TypeInference& ti, const Value* x, int j, const SymVal& e) {
  if (e.kind != SymVal::kDim) return false;
  for (int depth = 0; x && depth < 16; ++depth) {
    if (e.src == x && e.index == j) return true;
    const exec::IType* xt = ti.type_of(x);
    if (!xt || !xt->ranked || j < 0 || j >= static_cast<int>(xt->dims.size())) return false;
    const exec::IDim& d = xt->dims[j];
    if (d.is_symbolic() && d.sym == e.sym && e.sym != kNoStr) return true;
    const Node* p = x->producer;
    if (!p || !p->alive || !is_op(m, p, "Unsqueeze") || p->inputs.size == 0 || !p->inputs[0]) return false;
    std::vector<int64_t> axes;
    if (p->inputs.size >= 2 && p->inputs[1]) {
      if (!read_ints(const_tensor(m, p->inputs[1]), axes)) return false;
    } else {
      if (!attr_ints(m, p, "axes", axes)) return false;
    }
    int rank = static_cast<int>(xt->dims.size());
    int below = 0;  // inserted axes before position j
    for (int64_t a : axes) {
      int64_t k = a < 0 ? a + rank : a;
      if (k < 0 || k >= rank) return false;
      if (k == j) return false;  // j is an inserted 1
      if (k < j) ++below;
    }
    x = p->inputs[0];
    j -= below;
  }
  return false;
}

// Replaces every use of v by `w`.
void rewire(Value* v, Value* w) { replace_all_uses(v, w); }

// Rebuilds partially known v as Concat of constant runs and Shape slices; false when not smaller.
bool rebuild(PassContext& ctx, const exec::TypeInference& ti, Value* v, const std::vector<SymVal>& given, int32_t dtype,
             bool scalar, const CanonMap& canon) {
  Model& m = ctx.m;
  Node* p = v->producer;
  Graph* g = p->graph;
  // Symbolic dims read from their canonical source (main graph only: that is where it lives).
  std::vector<SymVal> c = given;
  bool moved = false;
  if (g == m.graph) {
    for (SymVal& s : c) {
      if (s.kind != SymVal::kDim || s.sym == kNoStr) continue;
      auto it = canon.find(s.sym);
      if (it == canon.end() || (it->second.src == s.src && it->second.index == s.index)) continue;
      s.src = it->second.src;
      s.index = it->second.index;
      moved = true;
    }
  }
  for (const SymVal& s : c)
    if (s.kind == SymVal::kUnknown) return false;
  for (const SymVal& s : c)
    if (s.kind == SymVal::kDim && (!s.src || s.src->graph != g)) return false;
  int64_t opset_v = opset(m);
  if (opset_v < 10 || (scalar && c.size() != 1)) return false;
  // Pieces: runs of constants, runs of consecutive dims of one source.
  struct Piece { bool is_const; std::vector<int64_t> values; const Value* src; int lo, hi; };
  std::vector<Piece> pieces;
  for (const SymVal& s : c) {
    if (s.kind == SymVal::kConst) {
      if (pieces.empty() || !pieces.back().is_const) pieces.push_back({true, {}, nullptr, 0, 0});
      pieces.back().values.push_back(s.value);
    } else if (!pieces.empty() && !pieces.back().is_const && pieces.back().src == s.src && pieces.back().hi == s.index) {
      ++pieces.back().hi;
    } else {
      pieces.push_back({false, {}, s.src, s.index, s.index + 1});
    }
  }
  int64_t cost = 0;
  for (const Piece& pc : pieces) cost += pc.is_const ? 0 : (opset_v >= 15 && !scalar ? 1 : 2);
  if (pieces.size() > 1) ++cost;
  if (dtype != kInt64) ++cost;  // Shape gives int64: cast back
  int64_t cone = cone_size(m, v);
  if (cost > cone || (cost == cone && !moved)) return false;
  // Already minimal forms are left alone unless they move to the canonical source (this also
  // keeps the rewrite from repeating).
  std::string_view pop = m.str(p->op_type);
  if (!moved && pieces.size() == 1 && !pieces[0].is_const && (pop == "Shape" || pop == "Slice" || pop == "Gather")) return false;
  auto emit = [&](const char* op, std::vector<Value*> ins) {
    Node* n = new_node(g, m.intern(op), kNoStr, static_cast<uint32_t>(ins.size()), 1);
    n->name = node_name(m, p, (std::string("/shape_") + op).c_str());
    for (uint32_t i = 0; i < ins.size(); ++i) set_input(n, i, ins[i]);
    Value* out = new_value(g, unique_name(m, std::string(m.str(v->name)) + "_" + op));
    set_output(n, 0, out);
    insert_before(p, n);
    ++ctx.added;
    return n;
  };
  std::vector<Value*> parts;
  for (const Piece& pc : pieces) {
    if (pc.is_const) {
      parts.push_back(add_initializer(g, std::string(m.str(v->name)) + "_const", ints_tensor(m, kInt64, false, pc.values)));
      continue;
    }
    Value* src = const_cast<Value*>(pc.src);
    const exec::IType* st = ti.type_of(src);
    int64_t rank = st && st->ranked ? static_cast<int64_t>(st->dims.size()) : -1;
    if (scalar) {
      Node* sh = emit("Shape", {src});
      Value* idx = add_initializer(g, std::string(m.str(v->name)) + "_index", ints_tensor(m, kInt64, true, {pc.lo}));
      Node* ga = emit("Gather", {sh->outputs[0], idx});
      set_attr_int(m, ga, "axis", 0);  // as exporters write it, so CSE merges it with theirs
      parts.push_back(ga->outputs[0]);
    } else if (opset_v >= 15) {
      Node* sh = emit("Shape", {src});
      set_attr_int(m, sh, "start", pc.lo);
      if (pc.hi != rank) set_attr_int(m, sh, "end", pc.hi);
      parts.push_back(sh->outputs[0]);
    } else {
      Node* sh = emit("Shape", {src});
      Value* lo = add_initializer(g, std::string(m.str(v->name)) + "_start", ints_tensor(m, kInt64, false, {pc.lo}));
      Value* hi = add_initializer(g, std::string(m.str(v->name)) + "_end", ints_tensor(m, kInt64, false, {pc.hi}));
      parts.push_back(emit("Slice", {sh->outputs[0], lo, hi})->outputs[0]);
    }
  }
  Value* result = parts[0];
  if (parts.size() > 1) {
    Node* cat = emit("Concat", parts);
    set_attr_int(m, cat, "axis", 0);
    result = cat->outputs[0];
  }
  if (dtype != kInt64) {
    Node* cast = emit("Cast", {result});
    set_attr_int(m, cast, "to", dtype);
    result = cast->outputs[0];
  }
  result->type = v->type;
  rewire(v, result);
  return true;
}
}  // namespace

void run_simplify_shape_chains(PassContext& ctx) {
  Model& m = ctx.m;
  if (m.has_ir_version && m.ir_version < 4) return;  // initializers would have to be inputs too
  const exec::TypeInference& ti = ctx.inferred_types();
  const CanonMap canon = canonical_dims(m, ti);
  for (Graph* g : all_graphs(m)) {
    g->for_each_node([&](Node* n) {
      if (!n->alive || !is_default(m, n)) return;
      ProvenanceScope scope(m, n);  // what is built from n's values stands for n (ir/provenance.h)
      // Reshape shapes first: they may become constant even when only partly known.
      if (is_op(m, n, "Reshape") && n->inputs.size == 2 && n->inputs[0] && n->inputs[1] && !const_tensor(m, n->inputs[1])) {
        const std::vector<SymVal>* c = ti.contents(n->inputs[1]);
        std::vector<int64_t> shape;
        bool allowzero = attr_int(m, n, "allowzero", 0) != 0;
        if (c && !c->empty() && reshape_constant(ti, n, *c, allowzero, shape)) {
          Value* k = add_initializer(g, std::string(m.str(n->inputs[1]->name)) + "_const", tensor_from_ints(m, {static_cast<int64_t>(shape.size())}, shape));
          set_input(n, 1, k);
          ++ctx.changes;
        }
      }
      // A Where on shape vectors whose condition inference knows is the branch it takes
      // (PyTorch's Where(shape == -1, 1, shape): dims are never negative).
      if (is_op(m, n, "Where") && n->inputs.size == 3 && n->inputs[0] && n->inputs[1] && n->inputs[2] && n->outputs[0] &&
          !n->outputs[0]->is_graph_output() && !read_by_custom(m, n->outputs[0])) {
        const std::vector<SymVal>* k = ti.contents(n->inputs[0]);
        const exec::IType* ot = ti.type_of(n->outputs[0]);
        if (k && !k->empty() && all_const(*k) && int_type(ot)) {
          bool any_true = false, any_false = false;
          for (const SymVal& e : *k) (e.value ? any_true : any_false) = true;
          Value* pick = any_true == any_false ? nullptr : (any_true ? n->inputs[1] : n->inputs[2]);
          const exec::IType* pt = pick ? ti.type_of(pick) : nullptr;
          if (pt && pt->elem == ot->elem && pt->ranked && pt->dims.size() == ot->dims.size() &&
              (ot->dims.empty() || (pt->dims[0].is_static() && pt->dims[0].value == ot->dims[0].value))) {
            rewire(n->outputs[0], pick);
            ++ctx.changes;
            return;
          }
        }
      }
      // Expand shapes: elements equal to the input's dim become 1 (see the file comment).
      if (is_op(m, n, "Expand") && n->inputs.size == 2 && n->inputs[0] && n->inputs[1] && !const_tensor(m, n->inputs[1]) &&
          !n->inputs[1]->is_graph_input) {
        const std::vector<SymVal>* c = ti.contents(n->inputs[1]);
        const exec::IType* xt = ti.type_of(n->inputs[0]);
        if (c && !c->empty() && xt && xt->ranked) {
          std::vector<SymVal> s = *c;
          int shift = static_cast<int>(s.size()) - static_cast<int>(xt->dims.size());
          bool changed = false;
          for (size_t i = 0; i < s.size(); ++i) {
            int j = static_cast<int>(i) - shift;
            if (j >= 0 && is_dim(m, ti, n->inputs[0], j, s[i])) {
              s[i] = exec::rules::cval(1);
              changed = true;
            }
          }
          if (changed && all_const(s)) {
            std::vector<int64_t> vals;
            for (const SymVal& e : s) vals.push_back(e.value);
            Value* k = add_initializer(g, std::string(m.str(n->inputs[1]->name)) + "_const",
                                       tensor_from_ints(m, {static_cast<int64_t>(vals.size())}, vals));
            set_input(n, 1, k);
            ++ctx.changes;
          } else if (changed && single_use(n->inputs[1]) && n->inputs[1]->producer && ti.type_of(n->inputs[1]) &&
                     ti.type_of(n->inputs[1])->elem == kInt64 && rebuild(ctx, ti, n->inputs[1], s, kInt64, false, canon)) {
            ++ctx.changes;
          }
        }
      }
      std::string_view op = m.str(n->op_type);
      if (op == "Shape" || op == "Constant") return;
      for (Value* v : n->outputs) {
        if (!v || v->is_graph_output() || v->uses.size == 0 || read_by_custom(m, v) || v->initializer) continue;
        const std::vector<SymVal>* c = ti.contents(v);
        const exec::IType* t = ti.type_of(v);
        if (!c || !int_type(t)) continue;
        bool scalar = t->dims.empty();
        if (scalar && c->size() != 1) continue;
        if (all_const(*c)) {
          std::vector<int64_t> vals;
          for (const SymVal& s : *c) vals.push_back(s.value);
          Value* k = add_initializer(g, std::string(m.str(v->name)) + "_const", ints_tensor(m, t->elem, scalar, vals));
          rewire(v, k);
          ++ctx.changes;
        } else if (rebuild(ctx, ti, v, *c, t->elem, scalar, canon)) {
          ++ctx.changes;
        }
      }
    });
  }
  // A subgraph may now read a new initializer of an enclosing graph.
  if (ctx.changes) recompute_captures(m.graph);
}

}  // namespace ofg::passes
