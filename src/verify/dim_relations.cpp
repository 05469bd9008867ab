#include "verify/dim_relations.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "exec/infer_types.h"
#include "ir/error.h"

namespace ofg::verify {

namespace {

// A dim as a linear expression of symbolic names: constant + sum(terms); or unknown.
struct Ex {
  bool known = false;
  int64_t c = 0;
  std::map<std::string, int64_t> terms;
  static Ex constant(int64_t v) {
    Ex e;
    e.known = true;
    e.c = v;
    return e;
  }
  static Ex symbol(const std::string& s) {
    Ex e;
    e.known = true;
    e.terms[s] = 1;
    return e;
  }
  bool is_one() const { return known && terms.empty() && c == 1; }
  bool operator==(const Ex& o) const { return known == o.known && c == o.c && terms == o.terms; }
};

Ex sum(const std::vector<Ex>& xs) {
  Ex r = Ex::constant(0);
  for (const Ex& x : xs) {
    if (!x.known) return Ex{};
    r.c += x.c;
    for (auto& [n, k] : x.terms)
      if ((r.terms[n] += k) == 0) r.terms.erase(n);
  }
  return r;
}

using Shape = std::vector<Ex>;

bool one_of(std::string_view op, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), op) != names.end();
}

class Walker {
 public:
  Walker(Model& m) : m_(m), ti_(m) { ti_.run(false); }

  std::vector<DimRelation> run() {
    Graph* g = m_.graph;
    for (Node* n = g->first; n; n = n->next)
      if (m_.str(n->domain).empty() || m_.str(n->domain) == "ai.onnx") node(n);
    // What the graph computes for an output agrees with its declaration.
    for (const ValueInfo& vi : g->outputs) {
      const Type* t = vi.type ? vi.type : vi.value->type;
      if (!t || !t->shape_known()) continue;
      Shape s = shape(vi.value);
      if (!t || s.size() != t->dims.size) continue;
      for (uint32_t i = 0; i < t->dims.size; ++i) equal(s[i], declared(t->dims[i]));
    }
    return std::move(relations_);
  }

 private:
  Ex declared(const Dim& d) const {
    if (d.is_static()) return Ex::constant(d.value);
    if (d.is_symbolic()) return Ex::symbol(std::string(m_.str(d.param)));
    return Ex{};
  }

  // v's dims: what the walk computed, else what type inference says (declared for inputs).
  Shape shape(const Value* v) {
    Shape out;
    auto it = shapes_.find(v);
    const exec::IType* t = ti_.type_of(v);
    if (t && t->ranked) {
      for (const exec::IDim& d : t->dims)
        out.push_back(d.is_static() ? Ex::constant(d.value)
                                    : d.is_symbolic() ? Ex::symbol(std::string(m_.str(d.sym))) : Ex{});
    } else if (v->is_graph_input && v->type && v->type->shape_known()) {
      for (const Dim& d : v->type->dims) out.push_back(declared(d));
    }
    if (it != shapes_.end()) {
      if (out.size() != it->second.size()) return it->second;
      for (size_t i = 0; i < out.size(); ++i)
        if (it->second[i].known) out[i] = it->second[i];
    }
    return out;
  }
  bool ranked(const Value* v) {
    const exec::IType* t = ti_.type_of(v);
    return shapes_.count(v) || (t && t->ranked) || (v->is_graph_input && v->type && v->type->shape_known());
  }

  // Two dims that must be the same size.
  void equal(const Ex& a, const Ex& b) {
    if (!a.known || !b.known || a == b) return;
    if (a.terms.empty() && b.terms.empty()) return;  // two numbers: nothing to learn
    DimRelation r;
    r.constant = a.c - b.c;
    for (auto& [n, k] : a.terms) r.coef[n] += k;
    for (auto& [n, k] : b.terms)
      if ((r.coef[n] -= k) == 0) r.coef.erase(n);
    if (r.coef.empty()) return;
    relations_.push_back(std::move(r));
  }

  // Dims broadcast against each other at one position: equal unless one is 1; the result.
  Ex broadcast_dim(const Ex& a, const Ex& b) {
    if (a.is_one()) return b;
    if (b.is_one()) return a;
    if (!a.known) return b.known && !(b.terms.empty() && b.c == 1) ? b : Ex{};
    if (!b.known) return a;
    // A symbolic dim broadcast against another dim is taken to be equal to it: the input planner
    // then does not choose 1 for either, and a mask gets the length of what it masks.
    equal(a, b);
    return a.terms.empty() ? b : a;
  }
  Shape broadcast(const std::vector<Shape>& ss) {
    size_t r = 0;
    for (const Shape& s : ss) r = std::max(r, s.size());
    Shape out(r, Ex::constant(1));
    for (const Shape& s : ss)
      for (size_t i = 0; i < s.size(); ++i) out[r - s.size() + i] = broadcast_dim(out[r - s.size() + i], s[i]);
    return out;
  }

  int64_t attr_i(Node* n, const char* name, int64_t dflt) {
    const Attribute* a = n->attribute(m_, name);
    return a ? a->int_or(dflt) : dflt;
  }
  bool ints(Node* n, const char* name, size_t input, std::vector<int64_t>& out) {
    if (const Attribute* a = n->attribute(m_, name)) {
      out.assign(a->ints.begin(), a->ints.end());
      return true;
    }
    if (input >= n->inputs.size || !n->inputs[input]) return false;
    const std::vector<exec::SymVal>* c = ti_.contents(n->inputs[input]);
    if (!c) return false;
    out.clear();
    for (const exec::SymVal& s : *c) {
      if (s.kind != exec::SymVal::kConst) return false;
      out.push_back(s.value);
    }
    return true;
  }
  // An element of a small integer tensor (a shape being built) as a dim.
  Ex element(const exec::SymVal& s) {
    if (s.kind == exec::SymVal::kConst) return Ex::constant(s.value);
    if (s.kind == exec::SymVal::kDim && s.src) {
      Shape src = shape(s.src);
      if (s.index >= 0 && static_cast<size_t>(s.index) < src.size() && src[s.index].known) return src[s.index];
      if (s.sym != kNoStr) return Ex::symbol(std::string(m_.str(s.sym)));
    }
    return Ex{};
  }

  void node(Node* n) {
    std::string_view op = m_.str(n->op_type);
    if (n->outputs.size == 0 || !n->outputs[0]) return;
    Value* out = n->outputs[0];
    auto in = [&](size_t i) -> Value* { return i < n->inputs.size ? n->inputs[i] : nullptr; };
    if (one_of(op, {"Add", "Sub", "Mul", "Div", "Pow", "Mod", "Where", "Equal", "Less", "Greater", "LessOrEqual",
                    "GreaterOrEqual", "And", "Or", "Xor", "Max", "Min", "Sum", "Mean", "PRelu", "BitShift"})) {
      std::vector<Shape> ss;
      for (Value* v : n->inputs) {
        if (!v || !ranked(v)) return;
        ss.push_back(shape(v));
      }
      shapes_[out] = broadcast(ss);
    } else if (op == "Concat") {
      std::vector<Shape> ss;
      for (Value* v : n->inputs) {
        if (!v || !ranked(v)) return;
        ss.push_back(shape(v));
        if (ss.back().size() != ss[0].size()) return;
      }
      if (ss.empty() || ss[0].empty()) return;
      int64_t rank = static_cast<int64_t>(ss[0].size()), axis = attr_i(n, "axis", 0);
      if (axis < 0) axis += rank;
      if (axis < 0 || axis >= rank) return;
      Shape o = ss[0];
      std::vector<Ex> parts;
      for (const Shape& s : ss) {
        parts.push_back(s[axis]);
        for (int64_t i = 0; i < rank; ++i)
          if (i != axis) o[i] = broadcast_dim(o[i], s[i]);  // the same size (Concat does not broadcast)
      }
      o[axis] = sum(parts);
      shapes_[out] = o;
    } else if (op == "MatMul") {
      if (!in(1) || !ranked(in(0)) || !ranked(in(1))) return;
      Shape a = shape(in(0)), b = shape(in(1));
      if (a.size() < 2 || b.size() < 2) return;
      equal(a[a.size() - 1], b[b.size() - 2]);
      Shape o = broadcast({Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2)});
      o.push_back(a[a.size() - 2]);
      o.push_back(b[b.size() - 1]);
      shapes_[out] = o;
    } else if (op == "Transpose") {
      if (!ranked(in(0))) return;
      Shape a = shape(in(0));
      std::vector<int64_t> perm;
      if (!ints(n, "perm", 99, perm))
        for (size_t i = a.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
      if (perm.size() != a.size()) return;
      Shape o;
      for (int64_t p : perm) {
        if (p < 0 || p >= static_cast<int64_t>(a.size())) return;
        o.push_back(a[p]);
      }
      shapes_[out] = o;
    } else if (op == "Unsqueeze") {
      if (!ranked(in(0))) return;
      Shape a = shape(in(0));
      std::vector<int64_t> axes;
      if (!ints(n, "axes", 1, axes)) return;
      int64_t r = static_cast<int64_t>(a.size() + axes.size());
      std::vector<bool> at(r, false);
      for (int64_t x : axes) {
        if (x < 0) x += r;
        if (x < 0 || x >= r || at[x]) return;
        at[x] = true;
      }
      Shape o;
      size_t k = 0;
      for (int64_t i = 0; i < r; ++i) o.push_back(at[i] ? Ex::constant(1) : a[k++]);
      shapes_[out] = o;
    } else if (op == "Expand" || op == "Reshape") {
      if (!ranked(in(0)) || !in(1)) return;
      const std::vector<exec::SymVal>* c = ti_.contents(in(1));
      if (!c) return;
      Shape a = shape(in(0)), target;
      for (const exec::SymVal& s : *c) target.push_back(element(s));
      if (op == "Expand") {
        shapes_[out] = broadcast({a, target});
        return;
      }
      // Reshape: 0 copies the input's dim (unless allowzero), -1 is whatever is left.
      bool allowzero = attr_i(n, "allowzero", 0) != 0;
      for (size_t i = 0; i < target.size(); ++i) {
        if (target[i].known && target[i].terms.empty() && target[i].c == 0 && !allowzero)
          target[i] = i < a.size() ? a[i] : Ex{};
        else if (target[i].known && target[i].terms.empty() && target[i].c < 0)
          target[i] = Ex{};
      }
      shapes_[out] = target;
    } else if (one_of(op, {"Cast", "CastLike", "Softmax", "LogSoftmax", "Relu", "Neg", "Sqrt", "Exp", "Log", "Sigmoid",
                           "Tanh", "Erf", "Not", "Identity", "Dropout", "Reciprocal", "Abs", "Clip", "IsNaN", "IsInf",
                           "Gelu", "HardSigmoid", "HardSwish", "LeakyRelu", "Elu", "Softplus", "Trilu",
                           "LayerNormalization", "SimplifiedLayerNormalization", "Sin", "Cos"})) {
      if (in(0) && ranked(in(0))) shapes_[out] = shape(in(0));
    }
  }

  Model& m_;
  exec::TypeInference ti_;
  std::map<const Value*, Shape> shapes_;
  std::vector<DimRelation> relations_;
};

}  // namespace

std::vector<DimRelation> derive_dim_relations(Model& m) {
  try {
    return Walker(m).run();
  } catch (const Error&) {
    return {};  // a graph inference cannot read: no relations, the planner's other sizes remain
  }
}

DimSolver::DimSolver(const std::vector<DimRelation>& relations, const std::vector<std::string>& keep_free,
                     const std::vector<std::string>& inputs) {
  std::set<std::string> fixed(keep_free.begin(), keep_free.end()), declared(inputs.begin(), inputs.end());
  for (const DimRelation& r : relations) {
    // Substitute the pivots chosen so far.
    std::map<std::string, double> coef;
    double constant = static_cast<double>(r.constant);
    for (auto& [n, k] : r.coef) coef[n] += static_cast<double>(k);
    for (const Row& row : rows_) {
      auto it = coef.find(row.pivot);
      if (it == coef.end()) continue;
      double k = it->second;
      coef.erase(it);
      for (auto& [n, c] : row.coef) coef[n] -= k * c;
      constant -= k * row.constant;
    }
    for (auto it = coef.begin(); it != coef.end();) it = std::fabs(it->second) < 1e-9 ? coef.erase(it) : std::next(it);
    if (coef.empty()) continue;  // repeats (or contradicts) what is known
    // The pivot: not a given size; a name no input declares; the name whose sign is alone.
    int pos = 0, neg = 0;
    for (auto& [n, c] : coef) (c > 0 ? pos : neg)++;
    std::string pivot;
    int best = -1;
    for (auto& [n, c] : coef) {
      if (fixed.count(n)) continue;
      int score = (declared.count(n) ? 0 : 4) + (((c > 0 && pos == 1) || (c < 0 && neg == 1)) ? 2 : 0);
      if (score > best) best = score, pivot = n;
    }
    if (pivot.empty()) continue;
    Row row;
    row.pivot = pivot;
    double p = coef[pivot];
    for (auto& [n, c] : coef)
      if (n != pivot) row.coef[n] = c / p;
    row.constant = constant / p;
    // Eliminate the new pivot from the rows before it.
    for (Row& old : rows_) {
      auto it = old.coef.find(pivot);
      if (it == old.coef.end()) continue;
      double k = it->second;
      old.coef.erase(it);
      for (auto& [n, c] : row.coef) old.coef[n] -= k * c;
      old.constant -= k * row.constant;
    }
    rows_.push_back(std::move(row));
    pivots_.push_back(pivot);
  }
}

std::string DimSolver::describe() const {
  std::string out;
  for (const Row& row : rows_) {
    std::string rhs;
    for (auto& [n, c] : row.coef) {
      if (std::fabs(c) < 1e-9) continue;
      double k = -c;
      rhs += std::string(rhs.empty() ? (k < 0 ? "-" : "") : (k < 0 ? " - " : " + ")) +
             (std::fabs(std::fabs(k) - 1) < 1e-9 ? "" : std::to_string(static_cast<int64_t>(std::fabs(k))) + "*") + n;
    }
    if (std::fabs(row.constant) > 1e-9 || rhs.empty()) {
      double k = -row.constant;
      rhs += std::string(rhs.empty() ? (k < 0 ? "-" : "") : (k < 0 ? " - " : " + ")) +
             std::to_string(static_cast<int64_t>(std::fabs(k)));
    }
    out += (out.empty() ? "" : ", ") + row.pivot + " = " + rhs;
  }
  return out;
}

bool DimSolver::solve(std::map<std::string, int64_t>& values) const {
  bool ok = true;
  for (const Row& row : rows_) {
    double v = -row.constant;
    bool all = true;
    for (auto& [n, c] : row.coef) {
      if (std::fabs(c) < 1e-9) continue;
      auto it = values.find(n);
      if (it == values.end()) {
        all = false;
        break;
      }
      v -= c * static_cast<double>(it->second);
    }
    if (!all) continue;
    double r = std::round(v);
    if (std::fabs(v - r) > 1e-6 || r < 0) {
      ok = false;
      continue;
    }
    values[row.pivot] = static_cast<int64_t>(r);
  }
  return ok;
}

}  // namespace ofg::verify
