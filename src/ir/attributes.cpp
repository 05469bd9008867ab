#include "ir/attributes.h"

#include "ir/graph_ops.h"

namespace ofg {

int64_t attr_int(const Model& m, const Node* n, std::string_view name, int64_t dflt) {
  const Attribute* a = attr(m, n, name);
  return a ? a->int_or(dflt) : dflt;
}

float attr_float(const Model& m, const Node* n, std::string_view name, float dflt) {
  const Attribute* a = attr(m, n, name);
  return a ? a->float_or(dflt) : dflt;
}

std::string attr_string(const Model& m, const Node* n, std::string_view name, const std::string& dflt) {
  const Attribute* a = attr(m, n, name);
  return a && a->has_string() ? std::string(a->s.view()) : dflt;
}

bool attr_ints(const Model& m, const Node* n, std::string_view name, std::vector<int64_t>& out) {
  const Attribute* a = attr(m, n, name);
  if (!a) return false;
  out.assign(a->ints.begin(), a->ints.end());
  return true;
}

bool attr_floats(const Model& m, const Node* n, std::string_view name, std::vector<float>& out) {
  const Attribute* a = attr(m, n, name);
  if (!a) return false;
  out.assign(a->floats.begin(), a->floats.end());
  return true;
}

Graph* attr_graph(const Model& m, const Node* n, std::string_view name) {
  const Attribute* a = attr(m, n, name);
  return a ? a->g : nullptr;
}

namespace {
// The new attribute `name` of that kind, in place of any attribute of that name.
Attribute* replace_attribute(Model& m, Node* n, std::string_view name, Attribute::Kind kind) {
  StrId id = m.intern(name);
  remove_attribute(n, id);
  return add_attribute(n, id, kind);
}
}  // namespace

void set_attr_int(Model& m, Node* n, std::string_view name, int64_t v) {
  Attribute* a = replace_attribute(m, n, name, Attribute::kInt);
  a->i = v;
  a->present = Attribute::kI;
}

void set_attr_float(Model& m, Node* n, std::string_view name, float v) {
  Attribute* a = replace_attribute(m, n, name, Attribute::kFloat);
  a->f = v;
  a->present = Attribute::kF;
}

void set_attr_ints(Model& m, Node* n, std::string_view name, const std::vector<int64_t>& v) {
  Attribute* a = replace_attribute(m, n, name, Attribute::kInts);
  a->ints.data = m.arena.copy_array(v.data(), v.size());
  a->ints.size = static_cast<uint32_t>(v.size());
}

void set_attr_string(Model& m, Node* n, std::string_view name, std::string_view v) {
  Attribute* a = replace_attribute(m, n, name, Attribute::kString);
  a->s = Bytes{reinterpret_cast<const uint8_t*>(m.arena.copy_array(v.data(), v.size())), v.size()};
  a->present = Attribute::kS;
}

}  // namespace ofg
