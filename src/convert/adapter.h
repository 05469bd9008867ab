// Opset adapters: one table row per (op type, opset where its signature changed) with a step that
// rewrites a node written for the older signature into the newer one (up) and one that rewrites it
// back (down). The driver (opset_convert.cpp) walks each node across the boundaries between the
// model's opset and the target and applies the rows it crosses, in order.
//
// A step either edits the node (and may replace it by several nodes) and returns null, or returns
// why the node cannot be expressed on the other side of the boundary and changes nothing: the
// driver collects every such answer and fails the whole conversion before the model is touched.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "exec/infer_types.h"
#include "ir/ir.h"

namespace ofg::convert {

struct AdaptCtx {
  Model& m;
  Node* n;
  int64_t target;  // the opset the model is being converted to
  const exec::TypeInference* types;  // inference of the model before conversion (null: none)
  const char* what = nullptr;  // what the step did, for the report (a static text)
  // The rank of v (declared, else inferred before the conversion), -1 when unknown.
  int rank(const Value* v) const;
  // The element type of v (declared, else inferred), 0 when unknown.
  int32_t elem(const Value* v) const;
};

// null when done, else why the node has no form on the other side (a static text: the table is
// kept small, the driver adds node, op and versions).
using StepFn = const char* (*)(AdaptCtx&);

struct Adapter {
  const char* op;      // default-domain op type the row applies to (before the step)
  int64_t boundary;    // first opset with the newer signature
  StepFn up;           // older -> newer (null: nothing to change but the opset number)
  StepFn down;         // newer -> older (null: same)
  const char* change;  // what changed at `boundary`, for the coverage list
};

// Every adapter of every family, in no particular order (the driver picks rows by op and boundary).
const std::vector<Adapter>& adapters();

// The families' tables (one file each).
void add_axes_adapters(std::vector<Adapter>& out);     // attributes that became inputs
void add_resize_adapters(std::vector<Adapter>& out);   // Upsample / Resize
void add_lowering_adapters(std::vector<Adapter>& out); // new ops <-> their decompositions
void add_rotary_lowering_adapters(std::vector<Adapter>& out);  // RotaryEmbedding -> its decomposition
void add_attention_lowering_adapters(std::vector<Adapter>& out);  // Attention -> its decomposition
void add_semantic_adapters(std::vector<Adapter>& out); // axis meaning, removed attributes, renames
void add_added_attribute_adapters(std::vector<Adapter>& out);  // attributes added later, *OrEqual

// ---- helpers shared by the families (adapter_util.cpp)
// The constant tensor behind v (initializer or Constant node) read as int64 / double; false when
// v is not a constant.
bool const_ints(const Model& m, const Value* v, std::vector<int64_t>& out);
bool const_doubles(const Model& m, const Value* v, std::vector<double>& out);
// A new int64 / typed initializer in n's graph (a 1-D tensor, or a scalar when scalar is set).
Value* int_const(Model& m, Node* n, const char* base, const std::vector<int64_t>& v, bool scalar = false);
Value* float_const(Model& m, Node* n, const char* base, int32_t dtype, const std::vector<double>& v,
                   bool scalar);
// Puts v at input `index` of n, growing the input list with empty slots as needed.
void put_input(Node* n, uint32_t index, Value* v);
// Drops inputs from `index` on (trailing empty slots go too).
void truncate_inputs(Node* n, uint32_t index);
bool has_input(const Node* n, uint32_t index);
// insert_op (ir/graph_ops.h) adds a decomposition's steps.
// A node of `op` with `inputs` input slots placed right after c.n: c.n's output 0 becomes a fresh
// value (named after `mid`) that the new node reads at input 0, and the new node (named after
// `base`) writes what c.n wrote. The caller fills the other inputs and the attributes.
Node* insert_after(AdaptCtx& c, const char* op, uint32_t inputs, const char* mid, const char* base);
// Replaces c.n by the nodes inserted before it: `last` takes over output 0. Returns null (done).
const char* replace_by(AdaptCtx& c, Node* last, const char* what);
// Renames c.n's op (same inputs, outputs and attributes). Returns null (done).
const char* rename_op(AdaptCtx& c, const char* op, const char* what);
// The axes from c.n's `axis` attribute (default -1) to the last one, for the normalisations:
// {-1} when the axis is -1 and minus_one_ok, else the non-negative list, which needs the input's
// rank. Returns why not (unknown rank), else null.
const char* trailing_axes(AdaptCtx& c, bool minus_one_ok, std::vector<int64_t>& axes);
// The node's name or "#op" for the report.
std::string node_label(const Model& m, const Node* n);

}  // namespace ofg::convert
