#include "verify/dim_relations.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>

#include "exec/infer_types.h"
#include "ir/attributes.h"
#include "ir/error.h"

namespace ofg::verify {

namespace {

// A dim as a linear expression of symbolic names: constant + sum(terms); or unknown. Terms are
// (name, coefficient) sorted by name, none with coefficient 0.
using Terms = std::vector<std::pair<StrId, int64_t>>;
struct Ex {
  bool known = false;
  int64_t c = 0;
  Terms terms;
  static Ex constant(int64_t v) {
    Ex e;
    e.known = true;
    e.c = v;
    return e;
  }
  static Ex symbol(StrId s) {
    Ex e;
    e.known = true;
    e.terms.push_back({s, 1});
    return e;
  }
  bool is_one() const { return known && terms.empty() && c == 1; }
  bool operator==(const Ex& o) const { return known == o.known && c == o.c && terms == o.terms; }
};

// terms += k * add
void add_terms(Terms& terms, const Terms& add, int64_t k) {
  for (const auto& [n, c] : add) {
    auto it = std::lower_bound(terms.begin(), terms.end(), std::make_pair(n, INT64_MIN));
    if (it != terms.end() && it->first == n) {
      it->second += k * c;
      if (it->second == 0) terms.erase(it);
    } else {
      terms.insert(it, {n, k * c});
    }
  }
}

Ex sum(const std::vector<Ex>& xs) {
  Ex r = Ex::constant(0);
  for (const Ex& x : xs) {
    if (!x.known || __builtin_add_overflow(r.c, x.c, &r.c)) return Ex{};
    add_terms(r.terms, x.terms, 1);
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
    std::vector<DimRelation> out;
    for (const auto& [terms, c] : relations_) {
      DimRelation r;
      r.constant = c;
      for (const auto& [n, k] : terms) r.coef.push_back({std::string(m_.str(n)), k});
      out.push_back(std::move(r));
    }
    return out;
  }

 private:
  Ex declared(const Dim& d) const {
    if (d.is_static()) return Ex::constant(d.value);
    if (d.is_symbolic()) return Ex::symbol(d.param);
    return Ex{};
  }

  // v's dims: what the walk computed, else what type inference says (declared for inputs).
  Shape shape(const Value* v) {
    Shape out;
    if (!v) return out;
    auto it = shapes_.find(v);
    const exec::IType* t = ti_.type_of(v);
    if (t && t->ranked) {
      for (const exec::IDim& d : t->dims)
        out.push_back(d.is_static() ? Ex::constant(d.value)
                                    : d.is_symbolic() ? Ex::symbol(d.sym) : Ex{});
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
    if (!v) return false;
    const exec::IType* t = ti_.type_of(v);
    return shapes_.count(v) || (t && t->ranked) || (v->is_graph_input && v->type && v->type->shape_known());
  }

  // Two dims that must be the same size.
  void equal(const Ex& a, const Ex& b) {
    if (!a.known || !b.known || a == b) return;
    if (a.terms.empty() && b.terms.empty()) return;  // two numbers: nothing to learn
    Terms t = a.terms;
    add_terms(t, b.terms, -1);
    if (t.empty()) return;
    relations_.push_back({std::move(t), a.c - b.c});
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

  int64_t attr_i(Node* n, const char* name, int64_t dflt) { return attr_int(m_, n, name, dflt); }
  bool ints(Node* n, const char* name, size_t input, std::vector<int64_t>& out) {
    if (attr_ints(m_, n, name, out)) return true;
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
      if (s.sym != kNoStr) return Ex::symbol(s.sym);
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
  std::vector<std::pair<Terms, int64_t>> relations_;
};

}  // namespace

std::vector<DimRelation> derive_dim_relations(Model& m) {
  try {
    return Walker(m).run();
  } catch (const Error&) {
    return {};  // a graph inference cannot read: no relations, the planner's other sizes remain
  }
}

int DimSolver::index(const std::string& name) const {
  for (size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return static_cast<int>(i);
  return -1;
}

DimSolver::DimSolver(const std::vector<DimRelation>& relations, const std::vector<std::string>& keep_free,
                     const std::vector<std::string>& inputs) {
  for (const DimRelation& r : relations)
    for (const auto& nk : r.coef)
      if (index(nk.first) < 0) names_.push_back(nk.first);
  const size_t n = names_.size();
  pivot_row_.assign(n, -1);
  auto listed = [](const std::vector<std::string>& list, const std::string& name) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  for (const DimRelation& r : relations) {
    std::vector<double> coef(n, 0.0);
    double constant = static_cast<double>(r.constant);
    for (const auto& [name, k] : r.coef) coef[index(name)] += static_cast<double>(k);
    // Substitute the pivots chosen so far.
    for (const Row& row : rows_) {
      double k = coef[row.pivot];
      if (k == 0) continue;
      for (size_t j = 0; j < n; ++j) coef[j] -= k * row.coef[j];
      coef[row.pivot] = 0;
      constant -= k * row.constant;
    }
    int pos = 0, neg = 0;
    for (double& c : coef) {
      if (std::fabs(c) < 1e-9) c = 0;
      pos += c > 0;
      neg += c < 0;
    }
    if (pos + neg == 0) continue;  // repeats (or contradicts) what is known
    // The pivot: not a given size; a name no input declares; the name whose sign is alone.
    int pivot = -1, best = -1;
    for (size_t j = 0; j < n; ++j) {
      if (coef[j] == 0 || listed(keep_free, names_[j])) continue;
      int score = (listed(inputs, names_[j]) ? 0 : 4) + (((coef[j] > 0 && pos == 1) || (coef[j] < 0 && neg == 1)) ? 2 : 0);
      if (score > best) best = score, pivot = static_cast<int>(j);
    }
    if (pivot < 0) continue;
    Row row;
    row.pivot = static_cast<size_t>(pivot);
    const double p = coef[row.pivot];
    for (double& c : coef) c /= p;
    coef[row.pivot] = 0;
    row.coef = std::move(coef);
    row.constant = constant / p;
    // Eliminate the new pivot from the rows before it.
    for (Row& old : rows_) {
      double k = old.coef[row.pivot];
      if (k == 0) continue;
      for (size_t j = 0; j < n; ++j) old.coef[j] -= k * row.coef[j];
      old.coef[row.pivot] = 0;
      old.constant -= k * row.constant;
    }
    pivot_row_[row.pivot] = static_cast<int>(rows_.size());
    rows_.push_back(std::move(row));
  }
}

std::string DimSolver::describe() const {
  std::string out;
  auto term = [](std::string& s, double k, const std::string& name) {
    const double a = std::fabs(k);
    s += s.empty() ? (k < 0 ? "-" : "") : (k < 0 ? " - " : " + ");
    if (name.empty() || std::fabs(a - 1) > 1e-9) s += std::to_string(static_cast<int64_t>(std::llround(a))) + (name.empty() ? "" : "*");
    s += name;
  };
  for (const Row& row : rows_) {
    std::string rhs;
    for (size_t j = 0; j < names_.size(); ++j)
      if (std::fabs(row.coef[j]) > 1e-9) term(rhs, -row.coef[j], names_[j]);
    if (std::fabs(row.constant) > 1e-9 || rhs.empty()) term(rhs, -row.constant, "");
    out += (out.empty() ? "" : ", ") + names_[row.pivot] + " = " + rhs;
  }
  return out;
}

bool DimSolver::solve(std::vector<int64_t>& values) const {
  bool ok = true;
  for (const Row& row : rows_) {
    double v = -row.constant;
    bool all = true;
    for (size_t j = 0; j < names_.size() && all; ++j) {
      if (std::fabs(row.coef[j]) < 1e-9) continue;
      if (values[j] < 0) all = false;
      v -= row.coef[j] * static_cast<double>(values[j]);
    }
    if (!all) continue;
    const double r = std::round(v);
    if (std::fabs(v - r) > 1e-6 || r < 0) {
      ok = false;
      continue;
    }
    values[row.pivot] = static_cast<int64_t>(r);
  }
  return ok;
}

}  // namespace ofg::verify
