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

// The rules the op families register with their kernels (Registry::add(...).infer(rule)). Each
// fills out/out_contents (the caller gives at least one output) and returns false when it can
// say nothing.
namespace rules {
bool same_type(InferCtx& c);       // output 0 like input 0
bool identity(InferCtx& c);        // same_type, contents kept
bool neg(InferCtx& c);             // same_type, contents negated
bool dropout(InferCtx& c);         // same_type, mask of bool
bool cast(InferCtx& c);
bool cast_like(InferCtx& c);
bool elementwise(InferCtx& c);     // multidirectional broadcast of every input
bool int_arith(InferCtx& c);       // elementwise, contents of Add/Sub/Mul/Div kept
bool compare(InferCtx& c);         // broadcast, bool output
bool equal(InferCtx& c);           // compare, contents kept
bool rule_where(InferCtx& c);
bool conv(InferCtx& c);
bool conv_transpose(InferCtx& c);
bool rule_pool(InferCtx& c);
bool global_pool(InferCtx& c);
bool rule_matmul(InferCtx& c);
bool rule_gemm(InferCtx& c);
bool rule_reshape(InferCtx& c);
bool rule_shape(InferCtx& c);
bool size(InferCtx& c);
bool rule_transpose(InferCtx& c);
bool rule_gather(InferCtx& c);
bool rule_slice(InferCtx& c);
bool rule_concat(InferCtx& c);
bool rule_unsqueeze(InferCtx& c);
bool rule_squeeze(InferCtx& c);
bool rule_expand(InferCtx& c);
bool rule_flatten(InferCtx& c);
bool rule_reduce(InferCtx& c);     // Reduce*, ArgMax, ArgMin
bool rule_split(InferCtx& c);
bool rule_constant(InferCtx& c);
bool rule_constant_of_shape(InferCtx& c);
bool rule_range(InferCtx& c);
bool rule_tile(InferCtx& c);
bool rule_pad(InferCtx& c);
}  // namespace rules

// Broadcast of two dims (multidirectional, as ONNX elementwise ops do).
IDim broadcast_dim(const IDim& a, const IDim& b);

}  // namespace ofg::exec
