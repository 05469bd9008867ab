// The context and utilities of the per-op type/shape rules. A rule lives next to its op's kernel
// (exec/ops/<family>.cpp) and is registered with it: Registry::add(...).infer(rules::x).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "exec/infer_types.h"
#include "ir/int128.h"

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
// Utilities of the rules (infer_rules.cpp).
IDim st(int64_t v);  // a static dim
SymVal cval(int64_t v);
// Arithmetic on dims and values taken from the model: a result that does not fit in int64 is
// left unknown (signed overflow is undefined behaviour; a rule never guesses).
IDim st_add(int64_t a, int64_t b);
IDim st_mul(int64_t a, int64_t b);
IDim st_wide(int128 v);  // unknown when negative or beyond int64
// A tensor of `rank` unknown dims, the rank taken from a shape input's static length: a length
// no real tensor has (the data may say anything) leaves the rank unknown instead of allocating it.
constexpr int64_t kMaxInferredRank = 1024;
IType unknown_dims(int32_t elem, int64_t rank);
IType ranked(int32_t elem, std::vector<IDim> dims);
// Multidirectional broadcast of the shapes; false when a rank is unknown.
bool broadcast(const std::vector<const IType*>& ts, std::vector<IDim>& out);
int64_t norm(int64_t axis, int64_t rank);
// Marks the axes (negative counts from the end) in a mask of `rank` entries; false when one is
// outside [-rank, rank).
bool mark_axes(const std::vector<int64_t>& axes, int64_t rank, std::vector<bool>& mask);
// Output 0 of input 0's element type and unknown shape; returns true (what a rule says when the
// input's rank is unknown).
bool unknown_output(InferCtx& c);
// A tensor whose shape is the contents of input i, when they are not tracked: as many unknown
// dims as input i's static length, else an unknown rank.
IType shape_from_untracked(const InferCtx& c, size_t i, int32_t elem);
int32_t elem0(const InferCtx& c, size_t i = 0);  // element type of input i, 0 when unknown
// Contents of Add/Sub/Mul/Div/Equal (op) on two tracked integer inputs.
bool binary_contents(InferCtx& c, std::string_view op);

// The rules, defined in the family file of their op. One grammar: `rule_<op>` for the rule of one op
// (or of one family sharing a shape law, as rule_pool, rule_reduce), a name for what it does when
// ops of different kinds share it (same_type, elementwise, int_arith, compare).
bool same_type(InferCtx& c);            // output 0 like input 0
bool rule_identity(InferCtx& c);        // same_type, contents kept
bool rule_neg(InferCtx& c);             // same_type, contents negated
bool rule_dropout(InferCtx& c);         // same_type, mask of bool
bool rule_cast(InferCtx& c);
bool rule_cast_like(InferCtx& c);
bool elementwise(InferCtx& c);          // multidirectional broadcast of every input
bool int_arith(InferCtx& c);            // elementwise, contents of Add/Sub/Mul/Div kept
bool compare(InferCtx& c);              // broadcast, bool output
bool rule_equal(InferCtx& c);           // compare, contents kept
bool rule_where(InferCtx& c);
bool rule_conv(InferCtx& c);
bool rule_conv_transpose(InferCtx& c);
bool rule_pool(InferCtx& c);
bool rule_global_pool(InferCtx& c);
bool rule_matmul(InferCtx& c);
bool rule_gemm(InferCtx& c);
bool rule_reshape(InferCtx& c);
bool rule_shape(InferCtx& c);
bool rule_size(InferCtx& c);
bool rule_transpose(InferCtx& c);
bool rule_gather(InferCtx& c);
bool rule_slice(InferCtx& c);
bool rule_concat(InferCtx& c);
bool rule_unsqueeze(InferCtx& c);
bool rule_squeeze(InferCtx& c);
bool rule_expand(InferCtx& c);
bool rule_flatten(InferCtx& c);
bool rule_reduce(InferCtx& c);          // Reduce*, ArgMax, ArgMin
bool rule_split(InferCtx& c);
bool rule_constant(InferCtx& c);
bool rule_constant_of_shape(InferCtx& c);
bool rule_range(InferCtx& c);
bool rule_tile(InferCtx& c);
bool rule_pad(InferCtx& c);
bool rule_resize(InferCtx& c);          // Resize and Upsample: constant sizes, or scales on static dims
bool rule_rms_norm(InferCtx& c);        // X's shape, the scale's element type
bool rule_attention(InferCtx& c);       // Attention (23): Y, present key/value, QK scores
}  // namespace rules

// Broadcast of two dims (multidirectional, as ONNX elementwise ops do).
IDim broadcast_dim(const IDim& a, const IDim& b);

}  // namespace ofg::exec
