// Small helpers the passes share: matching, constants, attributes, safe rewiring.
#pragma once
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "ir/attributes.h"
#include "ir/graph_ops.h"
#include "ir/ir.h"
#include "passes/pass.h"

namespace ofg::passes {

// The main graph and every subgraph below it, parents first (collected before a pass edits them).
std::vector<Graph*> all_graphs(Model& m);

// Default domain and op type. Takes a string_view so that a literal's length is known at the call
// site (no strlen per comparison: the passes call this for every node of every round).
bool is_op(const Model& m, const Node* n, std::string_view op);
bool is_default(const Model& m, const Node* n);
// The live producer of v when it is the default-domain `op`, else null. With `graph`, also null
// when the producer is in another graph (a fusion must not join a node of an If/Loop body with a
// node of the enclosing graph: the fused node and the constants it needs would be in one scope
// while the value it writes or reads is in the other).
Node* producer_if(const Model& m, const Value* v, std::string_view op, const Graph* graph = nullptr);
// Calls f(g, n) for every live default-domain node n of type `op` in every graph g (the graphs are
// collected first and each graph's walk allows edits: f may rewrite around n).
template <class F>
void for_each_op(Model& m, std::string_view op, F&& f) {
  for (Graph* g : all_graphs(m))
    g->for_each_node([&](Node* n) {
      if (is_op(m, n, op)) f(g, n);
    });
}
// True when v is read by exactly one node input and is no graph output.
bool single_use(const Value* v);
// The only consumer of v (v not a graph output) in v's own graph, else null: a pattern never
// spans an If/Loop body and the graph around it.
Node* only_user(const Value* v);
// The other input of a binary node `n` than `v`.
Value* other_input(const Node* n, const Value* v);
// True when a custom-domain node reads v (such values and their producers are left alone).
bool read_by_custom(const Model& m, const Value* v);

// The constant tensor behind v: a non-input initializer or a Constant node's `value`.
const Tensor* const_tensor(const Model& m, const Value* v);
// Whole tensor as doubles / int64 (false when the type is not supported or data is missing).
bool read_doubles(const Tensor* t, std::vector<double>& out);
bool read_ints(const Tensor* t, std::vector<int64_t>& out);
bool is_float_type(int32_t dtype);
// True when t's element bytes (elem bytes each) are all present, densely.
bool dense(const Tensor* t, size_t elem);  // float, double, float16, bfloat16
// A new tensor of `dtype` (float types) holding `values`.
Tensor* tensor_from_doubles(Model& m, int32_t dtype, const std::vector<int64_t>& dims,
                            const std::vector<double>& values);
Tensor* tensor_from_ints(Model& m, const std::vector<int64_t>& dims, const std::vector<int64_t>& values);
// A new tensor of t's float type and dims holding f(i, t[i]) for each element i; null when t's
// values cannot be read. float32 tensors are read and written as float (a weight of millions of
// values is not widened to double and back), the others through doubles.
template <class F>
Tensor* map_float_tensor(Model& m, const Tensor* t, F f);
// A new initializer of g named after `base` (made unique), with its type declared.
Value* add_initializer(Graph* g, const std::string& base, Tensor* t);

template <class F>
Tensor* map_float_tensor(Model& m, const Tensor* t, F f) {
  std::vector<int64_t> dims(t->dims.begin(), t->dims.end());
  if (t->data_type == kFloat && dense(t, 4)) {
    Bytes b = t->bytes();
    std::vector<float> v(static_cast<size_t>(t->numel()));
    if (!v.empty()) std::memcpy(v.data(), b.data, 4 * v.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(f(i, static_cast<double>(v[i])));
    return make_tensor(m, kFloat, dims.data(), dims.size(), v.data(), 4 * v.size());
  }
  std::vector<double> v;
  if (!read_doubles(t, v)) return nullptr;
  for (size_t i = 0; i < v.size(); ++i) v[i] = f(i, v[i]);
  return tensor_from_doubles(m, t->data_type, dims, v);
}

// Attributes: ir/attributes.h (attr_int, attr_float, attr_string, attr_ints, set_attr_*).

int64_t opset(const Model& m);
// Rank of v as the type inference of the model finds it (ctx.inferred_types(): declared types,
// constants and every op's registered shape rule); -1 when unknown. Values the pass created after
// the inference ran are unknown.
int inferred_rank(PassContext& ctx, const Value* v);

// Removes n (counted in ctx).
void drop(PassContext& ctx, Node* n);
// Removes n and every node of its subgraphs (counted in ctx), so the outer values those nodes
// read lose those uses.
void drop_with_subgraphs(PassContext& ctx, Node* n);
// Puts the new node `with` before the pattern's last node (counted in ctx as added), removes the
// nodes of the matched pattern (counted as removed) and makes `with` produce what the last node
// produced (output 0), the value downstream nodes read.
void replace_pattern(PassContext& ctx, const std::vector<Node*>& pattern, Node* last, Node* with);
// A fusion's new node put in place of the matched pattern by replace_pattern: `op_type` in the
// default domain, named after `name_from` plus `suffix`, reading `inputs` (a null one is an
// omitted input; trailing nulls are left off). Returns it, for its attributes.
Node* fuse_pattern(PassContext& ctx, const std::vector<Node*>& pattern, Node* last, const char* op_type,
                   const Node* name_from, const char* suffix, std::initializer_list<Value*> inputs);
// True when optimize.keep_names is on (pass option "keep_names"): a pass must not give a value
// that stays in the model another name.
bool keep_names(const PassContext& ctx);
// Removes node n whose output `out` carries the same data as `in`. When `out` is a graph output,
// the producer of `in` is made to produce `out` instead (only if `in` has no other reader and is
// no graph input/output/initializer); returns false and changes nothing when that is impossible,
// or under keep_names (`in` would take the output's name).
bool bypass(PassContext& ctx, Node* n, Value* in, Value* out);
// Makes `producer` write `out` (the value downstream nodes read) in place of its output `index`,
// whose old value must have no other use. Used when fusing a consumer into its producer.
void take_output(Node* producer, uint32_t index, Value* out);
// A node name derived from `base`, unique in the model.
StrId node_name(Model& m, const Node* from, const char* suffix);

}  // namespace ofg::passes

namespace ofg::passes {
// A new tensor holding t transposed by perm (any fixed-size element type); null when t's bytes
// are not available.
Tensor* transpose_tensor(Model& m, const Tensor* t, const std::vector<int64_t>& perm);
// True when perm is a permutation of 0..rank-1.
bool valid_perm(const std::vector<int64_t>& perm, size_t rank);
}  // namespace ofg::passes
