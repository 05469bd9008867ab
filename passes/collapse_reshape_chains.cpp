// collapse_reshape_chains: a Reshape whose shape is a constant without 0 entries ignores the shape
// of its input (only the element order matters, which Reshape/Flatten/Squeeze/Unsqueeze never
// change), so when its data comes from such an op read by nobody else, that op is skipped:
// Reshape(Flatten(Reshape(x))) -> Reshape(x). Exact.
// Also (exact, each rule's comment says why):
//  - Unsqueeze(Unsqueeze(x, a), b) -> Unsqueeze(x, a and b in the final positions);
//  - Squeeze(Squeeze(x, a), b) -> Squeeze(x, a and b in x's positions);
//  - Squeeze(Slice(C, ...), a) on a constant C, a not sliced -> Slice(Squeeze(C, a), ...), whose
//    Squeeze fold_constants folds (a rotary cos/sin cache sliced to the sequence length).
#include <algorithm>

#include "passes/rule.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {
bool is_reshape_like(const Model& m, const Node* n) {
  return is_op(m, n, "Reshape") || is_op(m, n, "Flatten") || is_op(m, n, "Squeeze") || is_op(m, n, "Unsqueeze");
}

// The reshape-like producer of n's data that can be skipped, or null.
Node* skippable(const Model& m, Graph* g, Node* n) {
  Value* in = n->inputs[0];
  Node* p = in->producer;
  if (!p || p->graph != g || in->initializer || in->is_graph_input || !is_reshape_like(m, p) || !single_use(in)) return nullptr;
  if (p->inputs.size == 0 || !p->inputs[0]) return nullptr;  // a malformed node without its data input
  return p;
}

RuleMatch match_reshape_chain(const RuleCtx& rc, Graph* g, Node* n) {
  const Model& m = rc.m;
  if (n->inputs.size != 2 || !n->inputs[0] || !n->inputs[1]) return RuleMatch::decline("Reshape without data and shape");
  std::vector<int64_t> shape;
  if (!read_ints(const_tensor(m, n->inputs[1]), shape)) return RuleMatch::decline("the shape is not constant");
  // A 0 copies a dim of the input (unless allowzero), so the input's shape would matter.
  for (int64_t d : shape)
    if (d == 0) return RuleMatch::decline("the shape has a 0 entry (copies an input dim that the chain changes)");
  if (!skippable(m, g, n)) return RuleMatch::decline("the data is not a reshape-like op read only here");
  // Skip every reshape-like producer read only by this chain (one rewrite).
  return RuleMatch::rewrite("reshape chain -> one Reshape", [g, n](PassContext& ctx) -> int64_t {
    while (Node* p = skippable(ctx.m, g, n)) {
      set_input(n, 0, p->inputs[0]);
      drop(ctx, p);
    }
    return 1;
  });
}

// The axes of Squeeze/Unsqueeze n, normalized to [0, rank) (rank: of the output for Unsqueeze,
// of the input for Squeeze) and sorted; false when not constant, absent, out of range or repeated.
bool node_axes(const RuleCtx& rc, const Node* n, int rank, std::vector<int64_t>& axes) {
  const Model& m = rc.m;
  axes.clear();
  if (n->inputs.size >= 2 && n->inputs[1]) {
    if (!read_ints(const_tensor(m, n->inputs[1]), axes)) return false;
  } else if (!attr_ints(m, n, "axes", axes)) {
    return false;
  }
  if (axes.empty() || rank < 0) return false;
  for (int64_t& a : axes) {
    if (a < -rank || a >= rank) return false;
    if (a < 0) a += rank;
  }
  std::sort(axes.begin(), axes.end());
  return std::adjacent_find(axes.begin(), axes.end()) == axes.end();
}

// How many axes Squeeze/Unsqueeze n names; -1 when not constant or absent.
int axes_count(const Model& m, const Node* n) {
  std::vector<int64_t> axes;
  if (n->inputs.size >= 2 && n->inputs[1]) {
    if (!read_ints(const_tensor(m, n->inputs[1]), axes)) return -1;
  } else if (!attr_ints(m, n, "axes", axes)) {
    return -1;
  }
  return static_cast<int>(axes.size());
}

// Writes `axes` as n's axes: an input from opset 13, the attribute before.
void set_axes(PassContext& ctx, Graph* g, Node* n, const std::vector<int64_t>& axes) {
  Model& m = ctx.m;
  if (opset(m) >= 13) {
    Value* k = add_initializer(g, std::string(m.str(n->outputs[0]->name)) + "_axes",
                               tensor_from_ints(m, {static_cast<int64_t>(axes.size())}, axes));
    set_input(n, 1, k);
  } else {
    set_attr_ints(m, n, "axes", axes);
  }
}

// The producer of n's data when it has op `op`, lives in g and is read only by n.
Node* single_use_producer(const Model& m, Graph* g, const Node* n, const char* op) {
  if (n->inputs.size == 0 || !n->inputs[0]) return nullptr;
  Value* in = n->inputs[0];
  Node* p = in->producer;
  if (!p || p->graph != g || !p->alive || !is_op(m, p, op) || !single_use(in) || p->inputs.size == 0 || !p->inputs[0])
    return nullptr;
  return p;
}

// Two chained Squeezes (or Unsqueezes) as one: `direct` are sorted positions in [0, rank) of the
// wider side, `nested` index the positions of [0, rank) that `direct` leaves, in order. The union
// of both as positions of the wider side, sorted.
std::vector<int64_t> merged_axes(int64_t rank, const std::vector<int64_t>& direct, const std::vector<int64_t>& nested) {
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < rank; ++i)
    if (!std::binary_search(direct.begin(), direct.end(), i)) kept.push_back(i);
  std::vector<int64_t> all = direct;
  for (int64_t i : nested) all.push_back(kept[static_cast<size_t>(i)]);
  std::sort(all.begin(), all.end());
  return all;
}

// The outer node n takes the inner p's data and the merged axes; p goes.
RuleMatch merge_into_outer(const char* what, Graph* g, Node* n, Node* p, std::vector<int64_t> all) {
  return RuleMatch::rewrite(what, [g, n, p, all](PassContext& ctx) -> int64_t {
    set_input(n, 0, p->inputs[0]);
    set_axes(ctx, g, n, all);
    drop(ctx, p);
    return 1;
  });
}

// Unsqueeze(Unsqueeze(x, a), b): b names positions of the final output; the other final positions,
// in order, are the inner output's, so a's positions map to the a-th of them.
RuleMatch match_unsqueeze_chain(const RuleCtx& rc, Graph* g, Node* n) {
  Node* p = single_use_producer(rc.m, g, n, "Unsqueeze");
  if (!p) return RuleMatch::decline("the data is not an Unsqueeze read only here");
  int r_in = rc.rank(p->inputs[0]);
  if (r_in < 0) return RuleMatch::decline("the rank of the inner Unsqueeze input is unknown");
  int na = axes_count(rc.m, p), nb = axes_count(rc.m, n);
  if (na <= 0 || nb <= 0) return RuleMatch::decline("the Unsqueeze axes are not constant");
  int r_mid = r_in + na, r_out = r_mid + nb;
  std::vector<int64_t> a, b;
  if (!node_axes(rc, p, r_mid, a)) return RuleMatch::decline("the inner Unsqueeze axes are out of range or repeated");
  if (!node_axes(rc, n, r_out, b)) return RuleMatch::decline("the outer Unsqueeze axes are not constant, out of range or repeated");
  // The outer axes b are final positions; the inner a index the final positions b leaves.
  return merge_into_outer("Unsqueeze chain -> one Unsqueeze", g, n, p, merged_axes(r_out, b, a));
}

// Squeeze(Squeeze(x, a), b): b names positions of the inner output, which are x's positions not in
// a, in order.
RuleMatch match_squeeze_chain(const RuleCtx& rc, Graph* g, Node* n) {
  Node* p = single_use_producer(rc.m, g, n, "Squeeze");
  if (!p) return RuleMatch::decline("the data is not a Squeeze read only here");
  int r_in = rc.rank(p->inputs[0]);
  std::vector<int64_t> a, b;
  if (r_in < 0 || !node_axes(rc, p, r_in, a)) return RuleMatch::decline("inner axes unknown (absent, or rank unknown)");
  int r_mid = r_in - static_cast<int>(a.size());
  if (!node_axes(rc, n, r_mid, b)) return RuleMatch::decline("the outer Squeeze axes are not constant (or absent with an unknown rank)");
  // The inner axes a are x's positions; the outer b index the positions of x that a leaves.
  return merge_into_outer("Squeeze chain -> one Squeeze", g, n, p, merged_axes(r_in, a, b));
}

// Squeeze(Slice(C, starts, ends, axes[, steps]), a) with C constant, its dims at a equal to 1 and
// no sliced axis in a: squeezing first gives the same values (slicing other axes never changes a
// size-1 dim) and makes Squeeze(C) a constant. The Slice's axes are renumbered.
RuleMatch match_squeeze_of_sliced_constant(const RuleCtx& rc, Graph* g, Node* n) {
  const Model& m = rc.m;
  Node* s = single_use_producer(m, g, n, "Slice");
  if (!s) return RuleMatch::decline("the data is not a Slice read only here");
  const Tensor* c = const_tensor(m, s->inputs[0]);
  if (!c) return RuleMatch::decline("the sliced data is not a constant");
  if (s->inputs.size < 4 || !s->inputs[3]) return RuleMatch::decline("Slice without axes (opset >= 10 form wanted)");
  std::vector<int64_t> sliced;
  const Tensor* at = const_tensor(m, s->inputs[3]);
  if (!read_ints(at, sliced)) return RuleMatch::decline("Slice axes not constant");
  if (at->data_type != kInt64) return RuleMatch::decline("int32 Slice indices (the new axes would have to match)");
  if (n->outputs[0] && n->outputs[0]->is_graph_output()) return RuleMatch::decline("the Squeeze gives a graph output");
  int rank = static_cast<int>(c->dims.size);
  std::vector<int64_t> a;
  if (!node_axes(rc, n, rank, a)) return RuleMatch::decline("the Squeeze axes are not constant (or absent with an unknown rank)");
  for (int64_t& x : sliced) {
    if (x < -rank || x >= rank) return RuleMatch::decline("Slice axis out of range");
    if (x < 0) x += rank;
    if (std::binary_search(a.begin(), a.end(), x)) return RuleMatch::decline("a squeezed axis is sliced");
  }
  for (int64_t x : a)
    if (c->dims[x] != 1) return RuleMatch::decline("a squeezed dim of the constant is not 1");
  std::vector<int64_t> renumbered;
  for (int64_t x : sliced) renumbered.push_back(x - (std::lower_bound(a.begin(), a.end(), x) - a.begin()));
  return RuleMatch::rewrite("Squeeze of a sliced constant -> Slice of the squeezed constant",
                            [g, n, s, renumbered](PassContext& ctx) -> int64_t {
    Model& mm = ctx.m;
    // Squeeze(C) takes the Slice's place; the Slice moves after it and gives n's output.
    Node* sq = new_node(g, mm.intern("Squeeze"), kNoStr, n->inputs.size, 1);
    sq->name = node_name(mm, n, "/squeezed");
    set_input(sq, 0, s->inputs[0]);
    for (uint32_t i = 1; i < n->inputs.size; ++i) set_input(sq, i, n->inputs[i]);
    for (const Attribute& at : n->attributes)
      if (mm.str(at.name) == "axes") {
        std::vector<int64_t> ax(at.ints.begin(), at.ints.end());
        set_attr_ints(mm, sq, "axes", ax);
      }
    Value* squeezed = new_value(g, unique_name(mm, std::string(mm.str(s->inputs[0]->name)) + "_squeezed"));
    set_output(sq, 0, squeezed);
    insert_before(s, sq);
    ++ctx.added;
    set_input(s, 0, squeezed);
    set_input(s, 3, add_initializer(g, std::string(mm.str(s->outputs[0]->name)) + "_axes",
                                    tensor_from_ints(mm, {static_cast<int64_t>(renumbered.size())}, renumbered)));
    // n's readers now read the Slice.
    Value* out = n->outputs[0];
    replace_all_uses(out, s->outputs[0]);
    drop(ctx, n);
    return 1;
  });
}

}  // namespace

OFG_RULE_GROUP(collapse_reshape_chains_rules,
  {"collapse_reshape_chain", {"Reshape"}, "", 1, kNoOpsetLimit, match_reshape_chain},
  {"merge_unsqueeze_chain", {"Unsqueeze"}, "", 1, kNoOpsetLimit, match_unsqueeze_chain},
  {"merge_squeeze_chain", {"Squeeze"}, "", 1, kNoOpsetLimit, match_squeeze_chain},
  {"squeeze_of_sliced_constant", {"Squeeze"}, "", 10, kNoOpsetLimit, match_squeeze_of_sliced_constant, "Slice with axes inputs"});

}  // namespace ofg::passes
