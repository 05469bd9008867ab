// Editing operations on the IR. Every change of a node's inputs goes through these so that use
// lists always match the inputs.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.h"

namespace ofg {

// A value with a name that no other string in the model has (so it is unique in every scope).
Value* new_value(Graph* g, StrId name);
StrId unique_name(Model& m, std::string_view base);

// Creates a node (not yet linked) with `n_inputs` / `n_outputs` slots.
Node* new_node(Graph* g, StrId op_type, StrId domain, uint32_t n_inputs, uint32_t n_outputs);
void append_node(Graph* g, Node* n);
void insert_before(Node* position, Node* n);
// A node of `op` inserted before `before` in its graph, reading `inputs`, with one fresh output;
// the node and its output are named uniquely after `base` (decompositions and fusions that add
// a step of their own).
Node* insert_op(Model& m, Node* before, const char* op, const std::vector<Value*>& inputs, const std::string& base);
// Unlinks a node and drops its input uses; its outputs keep pointing at it as producer only if
// they are still used, which check_consistency reports.
void remove_node(Node* n);

void set_input(Node* n, uint32_t index, Value* v);  // v may be null (omitted input)
void set_output(Node* n, uint32_t index, Value* v);
// Grows or shrinks the input list (new slots are empty).
void resize_inputs(Node* n, uint32_t count);
// Rewires every node input that reads `from` to read `to` (graph outputs are not touched).
void replace_all_uses(Value* from, Value* to);
void add_use(Value* v, Node* n, uint32_t index);
void remove_use(Value* v, Node* n, uint32_t index);

Attribute* add_attribute(Node* n, StrId name, int32_t kind);
void remove_attribute(Node* n, StrId name);

// Makes `v` an initializer of its graph holding `t`.
void set_initializer(Value* v, Tensor* t);
// Removes the initializer entry of `v` (the value then has no definition unless redefined).
void remove_initializer(Value* v);

// Reorders the nodes of g (not of subgraphs) so that producers come before consumers, keeping
// the existing order where it is already valid. Returns false when the graph has a cycle.
bool topological_sort(Graph* g);

// Checks the invariants every pass must keep (recursively into subgraphs): use lists match the
// inputs, each value has one definition, every used value is defined before its use or in an
// enclosing scope, nodes are in topological order. Returns "" when consistent, else a message.
std::string check_consistency(Model& m);

// Calls f(graph) for g and every subgraph below it, parents first.
template <class F>
void for_each_graph(Graph* g, F&& f) {
  f(g);
  for (Node* n = g->first; n != nullptr; n = n->next) {
    for (Attribute& a : n->attributes) {
      if (a.g) for_each_graph(a.g, f);
      for (Graph* sub : a.graphs) for_each_graph(sub, f);
    }
  }
}

// Appends to out the values that the subgraphs of n, at any depth, read from outside themselves
// (their Graph::captures; a value may come more than once).
void append_subgraph_captures(Node* n, std::vector<Value*>& out);

// Recomputes Graph::captures of g and its subgraphs from what their nodes read (for graphs
// built in memory; the loader records captures as it resolves names).
void recompute_captures(Graph* g);

// Tensor helpers for passes and tests: tensors whose bytes live in the arena.
Tensor* make_tensor(Model& m, int32_t dtype, const int64_t* dims, size_t rank, const void* data,
                    size_t nbytes);
// A tensor whose bytes are not copied: `data` must stay valid as long as the model (bytes the
// model already owns, or a buffer kept alive by an entry of Model::backings).
Tensor* make_tensor_view(Model& m, int32_t dtype, const int64_t* dims, size_t rank, Bytes data);
// A tensor whose bytes (`nbytes` of them) are computed by `recipe` when first read or streamed
// when saved (see TensorRecipe).
Tensor* make_computed_tensor(Model& m, int32_t dtype, const int64_t* dims, size_t rank, size_t nbytes,
                             const TensorRecipe* recipe);
Type* make_tensor_type(Model& m, int32_t elem_type, const int64_t* dims, size_t rank);

}  // namespace ofg
