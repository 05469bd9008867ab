// Text forms of ops, types, tensors and attributes for the diff.
#include "diff/describe.h"

#include <cstdio>

namespace ofg::diff {
namespace {

uint64_t fnv(uint64_t h, const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

std::string dims_text(const int64_t* d, size_t n) {
  std::string s = "[";
  for (size_t i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

std::string float_text(float f) {
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", static_cast<double>(f));
  return b;
}

std::string tensor_text(const Tensor& t) {
  char b[24];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(tensor_hash(t)));
  return "tensor " + tensor_head(t) + " #" + b;
}

std::string graph_text(const Model& m, const Graph* g) {
  std::string s = "graph[";
  for (const Node* n = g ? g->first : nullptr; n; n = n->next) s += (n == g->first ? "" : ",") + op_key(m, *n);
  return s + "]";
}

}  // namespace

std::string op_key(const Model& m, const Node& n) {
  std::string op(m.str(n.op_type));
  if (is_default_domain(m, n.domain)) return op;
  return std::string(m.str(n.domain)) + ":" + op;
}

std::string type_text(const Model& m, const Type* t) {
  if (!t) return "";
  if (t->kind == Type::kSequence || t->kind == Type::kOptional)
    return std::string(t->kind == Type::kSequence ? "seq(" : "optional(") + type_text(m, t->elem) + ")";
  if (t->kind != Type::kTensor && t->kind != Type::kSparseTensor) return "?";
  std::string s = t->has_elem_type ? dtype_name(t->elem_type) : "?";
  if (!t->has_shape) return s;
  s += "[";
  for (uint32_t i = 0; i < t->dims.size; ++i) {
    const Dim& d = t->dims[i];
    s += i ? "," : "";
    s += d.has_value ? std::to_string(d.value) : d.param != kNoStr ? std::string(m.str(d.param)) : "?";
  }
  return s + "]";
}

std::string tensor_head(const Tensor& t) { return std::string(dtype_name(t.data_type)) + dims_text(t.dims.data, t.dims.size); }

uint64_t tensor_hash(const Tensor& t) {
  uint64_t h = 14695981039346656037ull;
  if (t.data_type == kString) {
    for (const Bytes& s : t.strings) {
      uint64_t n = s.size;
      h = fnv(h, reinterpret_cast<const uint8_t*>(&n), sizeof n);  // so ["ab","c"] differs from ["a","bc"]
      h = fnv(h, s.data, s.size);
    }
    return h;
  }
  Bytes b = t.bytes();
  return fnv(h, b.data, b.size);
}

std::string attribute_text(const Model& m, const Attribute& a) {
  int32_t type = a.type;
  if (!a.has_type || type == Attribute::kUndefined) {  // older files: the field that is set says it
    type = a.present & Attribute::kF ? Attribute::kFloat
           : a.present & Attribute::kI ? Attribute::kInt
           : a.present & Attribute::kS ? Attribute::kString
           : a.present & Attribute::kT ? Attribute::kTensor
           : a.present & Attribute::kG ? Attribute::kGraph
           : a.floats.size ? Attribute::kFloats
           : a.ints.size ? Attribute::kInts
           : a.strings.size ? Attribute::kStrings
           : a.tensors.size ? Attribute::kTensors
           : a.graphs.size ? Attribute::kGraphs : Attribute::kUndefined;
  }
  std::string s;
  switch (type) {
    case Attribute::kFloat: return float_text(a.f);
    case Attribute::kInt: return std::to_string(a.i);
    case Attribute::kString: return "\"" + std::string(a.s.view()) + "\"";
    case Attribute::kTensor: return a.t ? tensor_text(*a.t) : "tensor";
    case Attribute::kGraph: return graph_text(m, a.g);
    case Attribute::kFloats:
      for (float f : a.floats) s += (s.empty() ? "" : ",") + float_text(f);
      return "[" + s + "]";
    case Attribute::kInts:
      for (int64_t i : a.ints) s += (s.empty() ? "" : ",") + std::to_string(i);
      return "[" + s + "]";
    case Attribute::kStrings:
      for (const Bytes& b : a.strings) s += (s.empty() ? "\"" : ",\"") + std::string(b.view()) + "\"";
      return "[" + s + "]";
    case Attribute::kTensors:
      for (const Tensor* t : a.tensors) s += (s.empty() ? "" : ",") + tensor_text(*t);
      return "[" + s + "]";
    case Attribute::kGraphs:
      for (const Graph* g : a.graphs) s += (s.empty() ? "" : ",") + graph_text(m, g);
      return "[" + s + "]";
    default:
      // Sparse tensors and type protos are kept as raw fields: compare their encoding.
      uint64_t h = 14695981039346656037ull;
      for (uint32_t i = 0; i < a.extra.size; ++i) h = fnv(h, a.extra.data[i].encoded.data, a.extra.data[i].encoded.size);
      return "raw#" + std::to_string(h);
  }
}

std::string shorten(const std::string& s, size_t max) { return s.size() <= max ? s : s.substr(0, max) + "..."; }

}  // namespace ofg::diff
