// The one typed attribute API: reads with a default for absent attributes and writes that replace
// an attribute of the same name. The interpreter's OpCtx, type inference's InferCtx and the passes
// all read through these (they keep their short member names as forwarders).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.h"

namespace ofg {

// The attribute named `name` of n (m: the model whose strings n uses), or null.
inline const Attribute* attr(const Model& m, const Node* n, std::string_view name) { return n->attribute(m, name); }

// The value when the attribute is present and holds that kind (Attribute::int_or etc.), else dflt.
int64_t attr_int(const Model& m, const Node* n, std::string_view name, int64_t dflt);
float attr_float(const Model& m, const Node* n, std::string_view name, float dflt);
std::string attr_string(const Model& m, const Node* n, std::string_view name, const std::string& dflt);
// false (out untouched) when absent; a present attribute without ints gives an empty out.
bool attr_ints(const Model& m, const Node* n, std::string_view name, std::vector<int64_t>& out);
bool attr_floats(const Model& m, const Node* n, std::string_view name, std::vector<float>& out);
// The graph attribute, or null.
Graph* attr_graph(const Model& m, const Node* n, std::string_view name);

// Writes (the node's attribute of that name is replaced).
void set_attr_int(Model& m, Node* n, std::string_view name, int64_t v);
void set_attr_float(Model& m, Node* n, std::string_view name, float v);
void set_attr_ints(Model& m, Node* n, std::string_view name, const std::vector<int64_t>& v);
void set_attr_string(Model& m, Node* n, std::string_view name, std::string_view v);

}  // namespace ofg
