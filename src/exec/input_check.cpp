// The one check of given inputs against the declared graph inputs (see input_check.h).
#include "exec/input_check.h"

#include <map>

namespace ofg::exec {
namespace {

std::string shape_text(const Shape& s) {
  std::string t = "[";
  for (size_t k = 0; k < s.size(); ++k) t += (k ? "," : "") + std::to_string(s[k]);
  return t + "]";
}

std::string tensor_text(const RTensor& t) { return std::string(dtype_name(t.dtype)) + shape_text(t.shape); }

// A static dim fixes the size; negative values (written by some exporters for "any") do not.
bool fixed(const Dim& d) { return d.is_static() && d.value >= 0; }

// True when the tensor fits the declared tensor type (what is declared: element type, rank,
// fixed dims).
bool fits(const Type& t, const RTensor& x) {
  if (t.has_elem_type && t.elem_type != 0 && t.elem_type != x.dtype) return false;
  if (!t.has_shape) return true;
  if (t.dims.size != x.shape.size()) return false;
  for (uint32_t k = 0; k < t.dims.size; ++k)
    if (fixed(t.dims[k]) && t.dims[k].value != x.shape[k]) return false;
  return true;
}

// The declaration of graph input `index`; null when it has none.
const Type* declared(const Model& m, size_t index) {
  const ValueInfo& vi = m.graph->inputs[index];
  if (!vi.has_type) return nullptr;
  return vi.type ? vi.type : vi.value->type;
}

std::string name_of(const Model& m, size_t index) { return std::string(m.str(m.graph->inputs[index].value->name)); }

[[noreturn]] void contradiction(const Model& m, size_t index, const std::string& given, const Type* t) {
  fail(Status::kInvalidArgument, "input '" + name_of(m, index) + "': given " + given + " but the model declares " +
                                     declared_type_text(m, t));
}

}  // namespace

std::string declared_type_text(const Model& m, const Type* t) {
  if (!t || t->kind == Type::kUnset) return "no type";
  switch (t->kind) {
    case Type::kSequence: return "sequence of " + declared_type_text(m, t->elem);
    case Type::kOptional: return "optional of " + declared_type_text(m, t->elem);
    case Type::kMap: return "map";
    case Type::kSparseTensor: return "sparse tensor";
    default: break;
  }
  std::string s = t->has_elem_type ? dtype_name(t->elem_type) : "tensor";
  if (!t->has_shape) return s + " (any shape)";
  s += "[";
  for (uint32_t k = 0; k < t->dims.size; ++k) {
    const Dim& d = t->dims[k];
    s += k ? "," : "";
    s += fixed(d) ? std::to_string(d.value) : d.is_symbolic() ? std::string(m.str(d.param)) : std::string("?");
  }
  return s + "]";
}

std::string given_value_text(const RValue& v) {
  switch (v.kind) {
    case RValue::kTensor: return tensor_text(v.t);
    case RValue::kSequence:
      return "sequence of " + std::to_string(v.seq.size()) + " " +
             (v.seq.empty() ? std::string(dtype_name(v.seq_elem_type)) : tensor_text(v.seq[0]) + (v.seq.size() > 1 ? ", ..." : ""));
    case RValue::kOptionalNone: return "an empty optional";
    default: return "no value";
  }
}

std::string input_names_text(const Model& m) {
  std::string s;
  for (const ValueInfo& vi : m.graph->inputs)
    if (!vi.value->initializer) s += (s.empty() ? "" : ", ") + std::string(m.str(vi.value->name));
  return s.empty() ? "none" : s;
}

void check_input(const Model& m, size_t index, const RValue& v) {
  const Type* t = declared(m, index);
  if (!t) return;
  // An optional takes a value of its element's type, or nothing.
  if (t->kind == Type::kOptional) {
    if (v.kind == RValue::kOptionalNone || !t->elem) return;
    t = t->elem;
  }
  if (t->kind == Type::kTensor) {
    if (v.kind != RValue::kTensor || !fits(*t, v.t)) contradiction(m, index, given_value_text(v), t);
  } else if (t->kind == Type::kSequence) {
    if (v.kind != RValue::kSequence) contradiction(m, index, given_value_text(v), t);
    const Type* e = t->elem;
    if (!e || e->kind != Type::kTensor) return;
    if (v.seq.empty() && e->has_elem_type && e->elem_type != 0 && v.seq_elem_type != 0 && v.seq_elem_type != e->elem_type)
      contradiction(m, index, given_value_text(v), t);
    for (size_t i = 0; i < v.seq.size(); ++i)
      if (!fits(*e, v.seq[i]))
        contradiction(m, index, "a sequence whose element " + std::to_string(i) + " is " + tensor_text(v.seq[i]), t);
  }
}

void check_inputs(const Model& m, const std::vector<std::pair<size_t, const RValue*>>& given) {
  struct Seen {
    int64_t size;
    size_t input;
  };
  std::map<std::string, Seen> symbols;
  for (auto& [index, v] : given) {
    check_input(m, index, *v);
    const Type* t = declared(m, index);
    if (!t || t->kind != Type::kTensor || !t->has_shape || v->kind != RValue::kTensor) continue;
    for (uint32_t k = 0; k < t->dims.size; ++k) {
      if (!t->dims[k].is_symbolic()) continue;
      std::string sym(m.str(t->dims[k].param));
      auto [it, first] = symbols.emplace(sym, Seen{v->t.shape[k], index});
      if (first || it->second.size == v->t.shape[k]) continue;
      const Seen& s = it->second;
      if (s.input == index)
        fail(Status::kInvalidArgument, "input '" + name_of(m, index) + "': given " + tensor_text(v->t) +
                                           " but the model declares " + declared_type_text(m, t) + " (one size for '" +
                                           sym + "')");
      const RValue* other = nullptr;
      for (auto& g : given)
        if (g.first == s.input) other = g.second;
      fail(Status::kInvalidArgument,
           "input '" + name_of(m, index) + "': given " + tensor_text(v->t) + " but input '" + name_of(m, s.input) +
               "' is given " + tensor_text(other->t) + ", and the model names both sizes '" + sym + "' (" +
               name_of(m, s.input) + " " + declared_type_text(m, declared(m, s.input)) + ", " + name_of(m, index) +
               " " + declared_type_text(m, t) + ")");
    }
  }
}

}  // namespace ofg::exec
