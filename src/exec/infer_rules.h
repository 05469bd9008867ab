// The per-op rules of type inference (infer_rules*.cpp), separate from the graph walk.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "exec/infer_types.h"

namespace ofg::exec {

struct InferCtx {
  Model& m;
  Node& node;
  std::vector<const IType*> in;                         // null: unknown / omitted
  std::vector<const std::vector<SymVal>*> in_contents;  // null: untracked
  std::vector<const Value*> in_values;
  std::vector<IType> out;
  std::vector<std::vector<SymVal>> out_contents;

  // A view of the interned op type (no copy: rules compare it against many names per node).
  std::string_view op() const { return m.str(node.op_type); }
  const IType* t(size_t i) const { return i < in.size() ? in[i] : nullptr; }
  const std::vector<SymVal>* data(size_t i) const { return i < in_contents.size() ? in_contents[i] : nullptr; }
  // Fully constant integer contents of input i.
  bool const_ints(size_t i, std::vector<int64_t>& out) const;
  const Attribute* attr(const char* name) const;
  int64_t attr_i(const char* name, int64_t dflt) const;
  bool attr_ints(const char* name, std::vector<int64_t>& out) const;
  int64_t opset() const;
};

// Fills out/out_contents for a default-domain node; false when the op has no rule.
bool apply_rule(InferCtx& c);
// ai.onnxforge ops (FusedConv).
bool apply_custom_rule(InferCtx& c);

// Broadcast of two dims (multidirectional, as ONNX elementwise ops do).
IDim broadcast_dim(const IDim& a, const IDim& b);

}  // namespace ofg::exec
