// merge_parallel_matmuls: MatMuls that read the same x with constant weights of the same K rows
// (a transformer's Q/K/V projections, SwiGLU's gate and up) become one MatMul with the weights
// side by side and a Split of its last axis. When every one of them is followed by its own Add of
// a constant bias over its columns (Qwen2-style QKV bias), the biases are joined too and the one
// Add goes before the Split. One product of N1+N2+.. columns reads x once and launches once; the
// three projections of an attention block become two nodes, with biases six become three.
// Each output column is the same dot product as before; float-rounding bounded all the same (a
// kernel may block a wider product differently).
#include <algorithm>
#include <cstring>

#include "exec/infer_types.h"
#include "passes/rule.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {

struct Branch {
  Node* mm;
  Node* add = nullptr;  // the bias Add, when every branch has one
  int add_bias_input = 1;
};

// The constant bias of `add` over the n columns of the MatMul output it reads ([n] or [1,..,n],
// of rank at most the output's), or null.
const Tensor* column_bias(const Model& m, const Node* add, Value* mm_out, int rank, int64_t n, int32_t dtype, int& bias_input) {
  if (add->inputs.size != 2) return nullptr;
  bias_input = add->inputs[0] == mm_out ? 1 : 0;
  if (add->inputs[1 - bias_input] != mm_out) return nullptr;
  const Tensor* b = const_tensor(m, add->inputs[bias_input]);
  if (!b || b->data_type != dtype || b->numel() != n || !dense(b, dtype_size(dtype)) || static_cast<int>(b->dims.size) > rank || b->dims.size == 0) return nullptr;
  if (b->dims[b->dims.size - 1] != n) return nullptr;
  return b;
}

RuleMatch match_parallel_matmuls(const RuleCtx& rc, Graph* g, Node* first) {
  const Model& m = rc.m;
  if (first->inputs.size != 2 || !first->inputs[0] || !first->outputs[0]) return RuleMatch::decline("not a two-input MatMul");
  Value* x = first->inputs[0];
  const Tensor* w0 = const_tensor(m, first->inputs[1]);
  if (!w0 || w0->dims.size != 2 || !is_float_type(w0->data_type)) return RuleMatch::decline("the weight is not a constant float matrix");
  int rank = rc.rank(x);
  if (rank < 2) return RuleMatch::decline("x's rank is unknown or below 2");
  std::vector<Branch> branches;
  for (const Use& u : x->uses) {
    Node* n = u.node;
    if (u.index != 0 || !is_op(m, n, "MatMul") || n->graph != g || n->inputs.size != 2 || !n->outputs[0]) continue;
    const Tensor* w = const_tensor(m, n->inputs[1]);
    if (!w || w->dims.size != 2 || w->data_type != w0->data_type || w->dims[0] != w0->dims[0] || !dense(w, dtype_size(w->data_type))) continue;
    if (n->inputs[1]->uses.size != 1) continue;  // a shared weight would be copied
    if (std::none_of(branches.begin(), branches.end(), [n](const Branch& b) { return b.mm == n; })) branches.push_back({n});
  }
  if (branches.size() < 2) return RuleMatch::decline("no other MatMul reads x with a constant weight of the same rows");
  // The first in node order takes the merged product (all of x's readers come after x).
  for (Node* k = g->first; k; k = k->next) {
    auto it = std::find_if(branches.begin(), branches.end(), [k](const Branch& b) { return b.mm == k; });
    if (it != branches.end()) {
      if (it->mm != first) return RuleMatch::decline("an earlier MatMul of the group makes the merge");
      break;
    }
  }
  bool biased = true;
  for (Branch& b : branches) {
    Value* out = b.mm->outputs[0];
    Node* add = only_user(out);
    int bi = 1;
    if (!is_op(m, add, "Add") || read_by_custom(m, add->outputs[0]) ||
        !column_bias(m, add, out, rank, const_tensor(m, b.mm->inputs[1])->dims[1], w0->data_type, bi)) {
      biased = false;
      break;
    }
    b.add = add;
    b.add_bias_input = bi;
  }
  if (!biased)
    for (Branch& b : branches) b.add = nullptr;
  std::string what = std::to_string(branches.size()) + " MatMuls of one input" + (biased ? " with their biases" : "") +
                     " -> one MatMul" + (biased ? " + Add" : "") + " + Split";
  return RuleMatch::rewrite(what, [g, first, x, branches, biased, rank](PassContext& ctx) -> int64_t {
    Model& m = ctx.m;
    int64_t rows = const_tensor(m, first->inputs[1])->dims[0];
    int32_t dtype = const_tensor(m, first->inputs[1])->data_type;
    std::vector<int64_t> widths;
    int64_t total = 0;
    for (const Branch& b : branches) widths.push_back(const_tensor(m, b.mm->inputs[1])->dims[1]), total += widths.back();
    // The weights side by side (row r is row r of each weight in turn), and the biases one after
    // another: byte copies, in any float type.
    size_t elem = dtype_size(dtype);
    std::vector<uint8_t> joined(static_cast<size_t>(rows * total) * elem), bias;
    int64_t col0 = 0;
    for (size_t i = 0; i < branches.size(); ++i) {
      Bytes w = const_tensor(m, branches[i].mm->inputs[1])->bytes();
      size_t row_bytes = static_cast<size_t>(widths[i]) * elem;
      for (int64_t r = 0; r < rows; ++r)
        std::memcpy(&joined[(static_cast<size_t>(r * total + col0)) * elem], w.data + r * row_bytes, row_bytes);
      col0 += widths[i];
      if (biased) {
        Bytes bb = const_tensor(m, branches[i].add->inputs[branches[i].add_bias_input])->bytes();
        bias.insert(bias.end(), bb.data, bb.data + bb.size);
      }
    }
    int64_t wdims[2] = {rows, total};
    std::string base = std::string(m.str(first->inputs[1]->name));
    Value* wv = add_initializer(g, base + "_merged", make_tensor(m, dtype, wdims, 2, joined.data(), joined.size()));
    Node* mm = insert_op(m, first, "MatMul", {x, wv}, std::string(m.str(first->outputs[0]->name)) + "_merged");
    ++ctx.added;
    Value* joined_out = mm->outputs[0];
    if (biased) {
      Value* bv = add_initializer(g, base + "_merged_bias", make_tensor(m, dtype, &total, 1, bias.data(), bias.size()));
      Node* add = insert_op(m, first, "Add", {joined_out, bv}, std::string(m.str(joined_out->name)) + "_bias");
      ++ctx.added;
      joined_out = add->outputs[0];
    }
    Node* split = new_node(g, m.intern("Split"), kNoStr, opset(m) >= 13 ? 2 : 1, static_cast<uint32_t>(branches.size()));
    split->name = node_name(m, first, "_split");
    insert_before(first, split);
    ++ctx.added;
    set_input(split, 0, joined_out);
    set_attr_int(m, split, "axis", rank - 1);
    if (opset(m) >= 13) set_input(split, 1, add_initializer(g, base + "_split", tensor_from_ints(m, {static_cast<int64_t>(widths.size())}, widths)));
    else set_attr_ints(m, split, "split", widths);
    for (size_t i = 0; i < branches.size(); ++i) {
      Node* last = branches[i].add ? branches[i].add : branches[i].mm;
      Value* out = last->outputs[0];
      if (branches[i].add) drop(ctx, branches[i].add);
      drop(ctx, branches[i].mm);
      take_output(split, static_cast<uint32_t>(i), out);
    }
    return 1;
  });
}

}  // namespace

OFG_RULE_GROUP(merge_parallel_matmuls_rules,
  {"parallel_matmuls", {"MatMul"}, "", 1, kNoOpsetLimit, match_parallel_matmuls});

}  // namespace ofg::passes
