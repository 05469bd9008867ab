// fuse_rotary_embedding: rotary position embeddings as PyTorch exports write them become
// RotaryEmbedding (opset 23). x is [B, H, S, D] (heads before sequence), cos and sin are rows of a
// constant table gathered by position ids [B, S] and unsqueezed to [B, 1, S, W]:
//   half form (LLaMA/Qwen rotate_half, interleaved=0):
//     rot(x) = Concat(Neg(Slice(x, h:, -1)), Slice(x, :h, -1), axis -1)          h = R/2
//   interleaved form (GPT-J rotate_every_two, interleaved=1):
//     rot(x) = Reshape(Concat(Unsqueeze(Neg(x[..., 1::2]), -1), Unsqueeze(x[..., ::2], -1), -1))
//   y = x * cos + rot(x) * sin   (operand orders free)
// optionally on the first R of D channels only (partial rotary: x = Slice(x0, :R, -1) and
// y0 = Concat(y, Slice(x0, R:, -1), -1)), which becomes rotary_embedding_dim=R on x0.
// The op reads one value per rotated pair, so the table's two copies of it must be equal (columns
// k and k+h in the half form, 2k and 2k+1 interleaved); the new caches [P, R/2] hold those values.
// x may also be [B, S, H, D] with cos/sin [B, S, 1, W] (the rotary before the heads are
// transposed): the op then reads Reshape(x, [B, S, H*D]) with num_heads = H, reshaped back after.
// The cos/sin operand is found by walking back through Unsqueeze/Squeeze to Gather(table,
// position_ids, axis 0) whose table is a constant reached through Squeeze and Slices from 0 (a
// prefix of its rows: the rows the op indexes are the same). Shapes must be proven by inference:
// position_ids [B, S] with x's B and S (or [1, S], then expanded: the op does not broadcast them),
// x's last dim static. Below opset 23, the rule rotate_as_gather writes rot(x) * sin as one Gather
// of x times a signed sin (match_rotate_as_gather).
#include <algorithm>

#include "exec/infer_types.h"
#include "passes/rule.h"
#include "ir/attributes.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {

using exec::IDim;
using exec::IType;

bool same_dim(const IDim& a, const IDim& b) {
  return (a.is_static() && b.is_static() && a.value == b.value) || (a.is_symbolic() && b.is_symbolic() && a.sym == b.sym);
}

// Slice's constant parameters (opset >= 10: inputs); axes default to 0.., steps to 1.
struct SliceArgs {
  std::vector<int64_t> starts, ends, axes, steps;
};

// With any_end, the ends may be computed at run time (a.ends is then left empty).
bool slice_args(const Model& m, const Node* s, int rank, SliceArgs& a, bool any_end = false) {
  if (!is_op(m, s, "Slice") || s->inputs.size < 3 || rank <= 0) return false;
  if (!read_ints(const_tensor(m, s->inputs[1]), a.starts)) return false;
  size_t n = a.starts.size();
  a.ends.clear();
  if (!any_end && (!read_ints(const_tensor(m, s->inputs[2]), a.ends) || a.ends.size() != n)) return false;
  a.axes.clear();
  a.steps.assign(n, 1);
  if (s->inputs.size > 3 && s->inputs[3]) {
    if (!read_ints(const_tensor(m, s->inputs[3]), a.axes) || a.axes.size() != n) return false;
  } else {
    for (size_t i = 0; i < n; ++i) a.axes.push_back(static_cast<int64_t>(i));
  }
  if (s->inputs.size > 4 && s->inputs[4] && (!read_ints(const_tensor(m, s->inputs[4]), a.steps) || a.steps.size() != n))
    return false;
  for (int64_t& ax : a.axes) {
    if (ax < 0) ax += rank;
    if (ax < 0 || ax >= rank) return false;
  }
  return true;
}

// s = Slice(x, start : end by step) on x's last axis only, with `end` covering [.., want_end)
// (any end >= dim when want_end is the dim). Returns false on anything else.
bool last_axis_slice(const RuleCtx& rc, const Node* s, const Value* x, int64_t dim, int64_t start, int64_t end, int64_t step) {
  const Model& m = rc.m;
  if (!is_op(m, s, "Slice") || s->inputs[0] != x) return false;
  SliceArgs a;
  if (!slice_args(m, s, rc.rank(x), a) || a.axes.size() != 1 || a.axes[0] != rc.rank(x) - 1) return false;
  int64_t e = a.ends[0];
  if (e < 0) e += dim;
  if (e > dim) e = dim;
  return a.starts[0] == start && e == end && a.steps[0] == step;
}

// A constant viewed as a matrix [P, W]: every dim but the last two is 1.
struct Table {
  const Tensor* t = nullptr;
  int64_t rows = 0, cols = 0;
  Value* pos = nullptr;  // the position ids it is gathered by
};

// Walks v (the cos or sin operand of a Mul) back to Gather(constant table, position_ids).
const char* find_table(const RuleCtx& rc, Value* v, Table& out) {
  const Model& m = rc.m;
  const Graph* g = v->graph;
  // [B, S, W] -> [B, 1, S, W] by Unsqueeze (and possibly Squeeze steps around it)
  while (v && v->producer && v->producer->graph == g && (is_op(m, v->producer, "Unsqueeze") || is_op(m, v->producer, "Squeeze")))
    v = v->producer->inputs.size ? v->producer->inputs[0] : nullptr;
  if (!v) return "cos/sin is not gathered on axis 0";
  Node* gather = producer_if(m, v, "Gather", g);
  if (!gather || gather->inputs.size != 2 || attr_int(m, gather, "axis", 0) != 0) return "cos/sin is not gathered on axis 0";
  Value* data = gather->inputs[0];
  // The table: a constant, through Squeeze and prefix Slices that never touch its last axis.
  while (!const_tensor(m, data)) {
    Node* p = data ? data->producer : nullptr;
    if (!p || p->graph != g || p->inputs.size < 1 || !p->inputs[0]) return "the gathered table is not a constant";
    if (is_op(m, p, "Squeeze")) {
      data = p->inputs[0];
      continue;
    }
    SliceArgs a;
    int r = rc.rank(p->inputs[0]);
    if (!slice_args(m, p, r, a, true)) return "the gathered table is not a constant";
    for (size_t i = 0; i < a.axes.size(); ++i)
      if (a.starts[i] != 0 || a.steps[i] != 1 || a.axes[i] == r - 1) return "the table is sliced other than a prefix of rows";
    data = p->inputs[0];
  }
  const Tensor* t = const_tensor(m, data);
  size_t r = t->dims.size;
  if (r < 2) return "the table has rank < 2";
  for (size_t i = 0; i + 2 < r; ++i)
    if (t->dims[i] != 1) return "the table is not [1, .., 1, P, W]";
  if (rc.rank(gather->inputs[0]) != 2) return "the gathered table is not 2-D";
  out.t = t;
  out.rows = t->dims[r - 2];
  out.cols = t->dims[r - 1];
  out.pos = gather->inputs[1];
  return nullptr;
}

// The cache a RotaryEmbedding reads, [P, half]: columns k (half form) or 2k (interleaved) of the
// table, when their partners (k + half, or 2k + 1) hold the same values.
bool rotary_cache(const Table& tb, int64_t half, bool interleaved, std::vector<double>& out) {
  std::vector<double> all;
  if (!read_doubles(tb.t, all) || tb.cols != 2 * half) return false;
  out.resize(static_cast<size_t>(tb.rows * half));
  for (int64_t p = 0; p < tb.rows; ++p)
    for (int64_t k = 0; k < half; ++k) {
      const double* row = &all[static_cast<size_t>(p * tb.cols)];
      double a = interleaved ? row[2 * k] : row[k];
      double b = interleaved ? row[2 * k + 1] : row[k + half];
      if (!(a == b)) return false;
      out[static_cast<size_t>(p * half + k)] = a;
    }
  return true;
}

// Every value of the pattern but x, cos and sin is read only inside it.
bool internal(const Value* v, const Node* reader) { return only_user(v) == reader; }

struct Rotate {
  Value* x = nullptr;        // the rotated tensor
  Value* out = nullptr;      // rot(x)
  int64_t half = 0;
  bool interleaved = false;
  std::vector<Node*> nodes;  // Slices, Neg, Concat (Unsqueezes, Reshape)
};

// rot(x) from its Neg, in either form.
const char* match_rotate(const RuleCtx& rc, Graph* g, Node* neg, Rotate& r) {
  const Model& m = rc.m;
  if (neg->outputs.size != 1 || !neg->outputs[0]) return "Neg without its output";
  Value* nin = neg->inputs.size == 1 ? neg->inputs[0] : nullptr;
  Node* s2 = producer_if(m, nin, "Slice", g);
  if (!s2 || !internal(nin, neg) || !s2->inputs[0]) return "Neg does not read a Slice of its own";
  Value* x = s2->inputs[0];
  const IType* xt = rc.types().type_of(x);
  if (!xt || xt->rank() != 4 || !xt->dims[3].is_static() || !is_float_type(xt->elem)) return "x is not a float [B, H, S, D] with a static D";
  int64_t d = xt->dims[3].value;
  if (d < 2 || d % 2) return "odd head size";
  Node* next = only_user(neg->outputs[0]);
  r.x = x;
  if (is_op(m, next, "Concat") && last_axis_slice(rc, s2, x, d, d / 2, d, 1)) {
    // half form: Concat(Neg(x[h:]), x[:h])
    Node* cat = next;
    if (cat->inputs.size != 2 || cat->inputs[0] != neg->outputs[0]) return "Neg is not the first half of the Concat";
    int64_t ax = attr_int(m, cat, "axis", 0);
    if (ax != -1 && ax != 3) return "the halves are not concatenated on the last axis";
    Node* s1 = producer_if(m, cat->inputs[1], "Slice", g);
    if (!s1 || !internal(cat->inputs[1], cat) || !last_axis_slice(rc, s1, x, d, 0, d / 2, 1))
      return "the second half is not x[..., :h]";
    r.half = d / 2;
    r.out = cat->outputs[0];
    r.nodes = {s1, s2, neg, cat};
    return nullptr;
  }
  if (is_op(m, next, "Unsqueeze") && last_axis_slice(rc, s2, x, d, 1, d, 2)) {
    // interleaved: Reshape(Concat(Unsqueeze(-x[1::2], -1), Unsqueeze(x[::2], -1), -1), x's shape)
    Node* u2 = next;
    Node* cat = only_user(u2->outputs[0]);
    if (!is_op(m, cat, "Concat") || cat->inputs.size != 2 || cat->inputs[0] != u2->outputs[0]) return "no stack of (-x2, x1)";
    Node* u1 = producer_if(m, cat->inputs[1], "Unsqueeze", g);
    if (!u1 || !internal(cat->inputs[1], cat)) return "no stack of (-x2, x1)";
    Node* s1 = producer_if(m, u1->inputs[0], "Slice", g);
    if (!s1 || !internal(u1->inputs[0], u1) || !last_axis_slice(rc, s1, x, d, 0, d, 2)) return "the even channels are not x[..., ::2]";
    // both Unsqueezes add a last axis ([B, H, S, D/2, 1]) and the Concat joins on it
    for (Node* u : {u1, u2}) {
      const IType* ut = rc.types().type_of(u->outputs[0]);
      if (!ut || ut->rank() != 5 || !ut->dims[4].is_static() || ut->dims[4].value != 1) return "the stack is not on a new last axis";
    }
    int64_t ax = attr_int(m, cat, "axis", 0);
    if (ax != -1 && ax != 4) return "the stack is not on a new last axis";
    Node* rs = only_user(cat->outputs[0]);
    const IType* rt = rs ? rc.types().type_of(rs->outputs[0]) : nullptr;
    if (!is_op(m, rs, "Reshape") || !rt || rt->rank() != 4) return "the stack is not flattened back";
    // The first three dims must be proven x's; the last may be left unknown by inference (a
    // Reshape to [B, S, H, -1] with symbolic B, S): the stack holds exactly x's element count
    // ([.., D/2, 2]), so that dim is D whenever the tensor is not empty.
    for (int i = 0; i < 4; ++i) {
      const IDim& rd = rt->dims[static_cast<size_t>(i)];
      if (i == 3 && !rd.is_static() && !rd.is_symbolic()) continue;
      if (!same_dim(rd, xt->dims[static_cast<size_t>(i)])) return "the flattened stack does not have x's shape";
    }
    r.half = d / 2;
    r.interleaved = true;
    r.out = rs->outputs[0];
    r.nodes = {s1, s2, neg, u1, u2, cat, rs};
    return nullptr;
  }
  return "Neg is not in a rotate_half or rotate_every_two";
}

// The rotated part x = x0[..., :R] of a partial rotary is read by the pattern alone (or by a
// Shape feeding its Reshape, which then joins the pattern).
bool rotated_part_internal(const Model& m, const Value* x, std::vector<Node*>& pattern) {
  auto in_pattern = [&](const Node* n) { return std::find(pattern.begin(), pattern.end(), n) != pattern.end(); };
  std::vector<Node*> shapes;
  for (const Use& u : x->uses) {
    if (in_pattern(u.node)) continue;
    if (is_op(m, u.node, "Shape") && in_pattern(only_user(u.node->outputs[0]))) shapes.push_back(u.node);
    else return false;
  }
  pattern.insert(pattern.end(), shapes.begin(), shapes.end());
  return true;
}

// Partial rotary: x is x0[..., :R] (a Slice, or output 0 of a Split of x0 into [R, D0 - R] on the
// last axis), read by the pattern alone, and Concat(y, x0[..., R:]) follows the Add. Returns x0 and
// adds the split and the Concat (last) to the pattern; else null and the pattern is unchanged.
Value* partial_source(const RuleCtx& rc, Graph* g, Value* x, Node* add, int64_t rot, std::vector<Node*>& pattern) {
  const Model& m = rc.m;
  Node* tail = only_user(add->outputs[0]);
  if (!is_op(m, tail, "Concat") || tail->inputs.size != 2 || tail->inputs[0] != add->outputs[0] || !tail->inputs[1] ||
      x->is_graph_output())
    return nullptr;
  int64_t ax = attr_int(m, tail, "axis", 0);
  if (ax != -1 && ax != 3) return nullptr;
  Node* split = x->producer && x->producer->graph == g ? x->producer : nullptr;
  Value* x0 = split && split->inputs.size ? split->inputs[0] : nullptr;
  const IType* x0t = x0 ? rc.types().type_of(x0) : nullptr;
  if (!x0t || x0t->rank() != 4 || !x0t->dims[3].is_static()) return nullptr;
  int64_t d0 = x0t->dims[3].value;
  std::vector<Node*> extra;
  if (is_op(m, split, "Slice")) {
    Node* rest = producer_if(m, tail->inputs[1], "Slice", g);
    if (!last_axis_slice(rc, split, x0, d0, 0, rot, 1) || !rest || !internal(tail->inputs[1], tail) ||
        !last_axis_slice(rc, rest, x0, d0, rot, d0, 1))
      return nullptr;
    extra = {split, rest, tail};
  } else if (is_op(m, split, "Split")) {
    std::vector<int64_t> sizes;
    int64_t sax = attr_int(m, split, "axis", 0);
    if (split->outputs.size != 2 || split->outputs[0] != x || tail->inputs[1] != split->outputs[1] ||
        !internal(split->outputs[1], tail) || (sax != -1 && sax != 3))
      return nullptr;
    if (split->inputs.size > 1 && split->inputs[1]) {
      if (!read_ints(const_tensor(m, split->inputs[1]), sizes)) return nullptr;
    } else if (d0 % 2 == 0) {
      sizes = {d0 / 2, d0 / 2};  // num_outputs = 2: equal parts
    }
    if (sizes.size() != 2 || sizes[0] != rot || sizes[1] != d0 - rot) return nullptr;
    extra = {split, tail};
  } else {
    return nullptr;
  }
  std::vector<Node*> with = pattern;
  if (!rotated_part_internal(m, x, with)) return nullptr;
  with.insert(with.end(), extra.begin(), extra.end());
  pattern = with;
  return x0;
}

// A node of `op` reading `inputs`, with a fresh output, put before `before` or (after set) right
// after it; counted as added.
Node* add_node(PassContext& ctx, Graph* g, Node* before, const char* op, std::initializer_list<Value*> inputs, const char* suffix,
               bool after = false) {
  Model& m = ctx.m;
  Node* n = new_node(g, m.intern(op), kNoStr, static_cast<uint32_t>(inputs.size()), 1);
  uint32_t i = 0;
  for (Value* v : inputs) set_input(n, i++, v);
  n->name = node_name(m, before, suffix);
  set_output(n, 0, new_value(g, unique_name(m, std::string(m.str(n->name)) + "_output")));
  if (!after) insert_before(before, n);
  else if (before->next) insert_before(before->next, n);
  else append_node(g, n);
  ++ctx.added;
  return n;
}

// ids [1, S] expanded to [B, S] with B read from x: Expand(ids, Concat(Shape(x)[0:1], Shape(ids)[1:])).
Value* expanded_ids(PassContext& ctx, Graph* g, Node* before, Value* x, Value* ids) {
  Model& m = ctx.m;
  Node* b = add_node(ctx, g, before, "Shape", {x}, "/rotary_batch");
  set_attr_int(m, b, "start", 0);
  set_attr_int(m, b, "end", 1);
  Node* s = add_node(ctx, g, before, "Shape", {ids}, "/rotary_seq");
  set_attr_int(m, s, "start", 1);
  Node* shape = add_node(ctx, g, before, "Concat", {b->outputs[0], s->outputs[0]}, "/rotary_ids_shape");
  set_attr_int(m, shape, "axis", 0);
  return add_node(ctx, g, before, "Expand", {ids, shape->outputs[0]}, "/rotary_ids")->outputs[0];
}

// x [B, S, H, D] given to RotaryEmbedding as [B, S, H*D] with num_heads = H, and the result
// reshaped back: Reshape(x, [0, 0, -1]) before `re`, Reshape(y, [0, 0, H, -1]) after it.
void heads_last(PassContext& ctx, Graph* g, Node* re, int64_t heads) {
  Model& m = ctx.m;
  set_attr_int(m, re, "num_heads", heads);
  Value* flat = add_initializer(g, "rotary_flat_shape", tensor_from_ints(m, {3}, {0, 0, -1}));
  Node* in = add_node(ctx, g, re, "Reshape", {re->inputs[0], flat}, "/rotary_flat");
  set_input(re, 0, in->outputs[0]);
  Value* y = re->outputs[0];
  set_output(re, 0, new_value(g, unique_name(m, std::string(m.str(re->name)) + "_flat")));
  Value* split = add_initializer(g, "rotary_heads_shape", tensor_from_ints(m, {4}, {0, 0, heads, -1}));
  Node* out = add_node(ctx, g, re, "Reshape", {re->outputs[0], split}, "/rotary_heads", true);
  set_output(out, 0, y);
}

RuleMatch match_rotary(const RuleCtx& rc, Graph* g, Node* neg) {
  const Model& m = rc.m;
  Rotate r;
  if (const char* why = match_rotate(rc, g, neg, r)) return RuleMatch::decline(why);
  Value* x = r.x;
  // y = x * cos + rot(x) * sin
  Node* msin = only_user(r.out);
  if (!is_op(m, msin, "Mul") || msin->inputs.size != 2) return RuleMatch::decline("rot(x) is not multiplied by sin");
  Value* sin = other_input(msin, r.out);
  Node* add = only_user(msin->outputs[0]);
  if (!is_op(m, add, "Add") || add->inputs.size != 2) return RuleMatch::decline("rot(x) * sin is not added");
  Value* xc = other_input(add, msin->outputs[0]);
  Node* mcos = producer_if(m, xc, "Mul", g);
  if (!mcos || !internal(xc, add) || mcos->inputs.size != 2 || (mcos->inputs[0] != x && mcos->inputs[1] != x))
    return RuleMatch::decline("no x * cos added");
  Value* cos = other_input(mcos, x);
  Table tc, ts;
  if (const char* why = find_table(rc, cos, tc)) return RuleMatch::decline(why);
  if (const char* why = find_table(rc, sin, ts)) return RuleMatch::decline(why);
  if (tc.pos != ts.pos) return RuleMatch::decline("cos and sin are gathered by different position ids");
  if (tc.rows != ts.rows || tc.cols != ts.cols) return RuleMatch::decline("cos and sin tables differ in shape");
  const IType* xt = rc.types().type_of(x);
  if (tc.t->data_type != xt->elem || ts.t->data_type != xt->elem) return RuleMatch::decline("the tables are not of x's type");
  // position_ids [B, S] matching x's B and S, cos/sin [B, 1, S, W] for x [B, H, S, D] or
  // [B, S, 1, W] for x [B, S, H, D] (the layout before the heads are transposed; the op reads it
  // as [B, S, H*D] with num_heads). Ids [1, S] (made inside the graph by Range, the same for every
  // batch row) are expanded to [B, S]: the op does not broadcast them.
  const IType* pt = rc.types().type_of(tc.pos);
  if (!pt || pt->elem != kInt64 || pt->rank() != 2) return RuleMatch::decline("position_ids are not int64 [B, S]");
  bool expand_ids = !same_dim(pt->dims[0], xt->dims[0]);
  if (expand_ids && !(pt->dims[0].is_static() && pt->dims[0].value == 1))
    return RuleMatch::decline("position_ids are neither [B, S] with x's B nor [1, S]");
  auto cos_sin_fit = [&](size_t seq_axis, size_t heads_axis) {
    if (!same_dim(pt->dims[1], xt->dims[seq_axis])) return false;
    for (Value* c : {cos, sin}) {
      const IType* ct = rc.types().type_of(c);
      if (!ct || ct->rank() != 4 || !same_dim(ct->dims[0], pt->dims[0]) || !ct->dims[heads_axis].is_static() ||
          ct->dims[heads_axis].value != 1 || !same_dim(ct->dims[seq_axis], xt->dims[seq_axis]) || !same_dim(ct->dims[3], xt->dims[3]))
        return false;
    }
    return true;
  };
  bool seq_first = false;  // x is [B, S, H, D]
  if (!cos_sin_fit(2, 1)) {
    if (!cos_sin_fit(1, 2)) return RuleMatch::decline("cos/sin are not [B, 1, S, D] (or [B, S, 1, D]) with position ids [B, S]");
    if (!xt->dims[2].is_static()) return RuleMatch::decline("x is [B, S, H, D] with a dynamic H");
    seq_first = true;
  }
  int64_t heads = seq_first ? xt->dims[2].value : 0;
  std::vector<double> cc, sc;
  if (!rotary_cache(tc, r.half, r.interleaved, cc) || !rotary_cache(ts, r.half, r.interleaved, sc))
    return RuleMatch::decline("the tables do not repeat each value for both members of a pair");
  // Partial rotary: x = x0[..., :R] and the result concatenated with x0[..., R:].
  std::vector<Node*> pattern = r.nodes;
  pattern.insert(pattern.end(), {mcos, msin, add});
  Node* last = add;
  Value* in = x;
  int64_t rot_dim = 0;
  if (Value* x0 = partial_source(rc, g, x, add, 2 * r.half, pattern)) {
    last = pattern.back();
    in = x0;
    rot_dim = 2 * r.half;
  }
  int32_t elem = xt->elem;
  int64_t rows = tc.rows, half = r.half;
  bool inter = r.interleaved;
  Value* ids = tc.pos;
  return RuleMatch::rewrite(inter ? "rotate_every_two rotary -> RotaryEmbedding(interleaved)" : "rotate_half rotary -> RotaryEmbedding",
                            [=](PassContext& ctx) -> int64_t {
    Model& m = ctx.m;
    // One cache pair per table: the rules of other layers make equal ones, which
    // eliminate_duplicate_constants merges.
    Value* cv = add_initializer(g, "rotary_cos_cache", tensor_from_doubles(m, elem, {rows, half}, cc));
    Value* sv = add_initializer(g, "rotary_sin_cache", tensor_from_doubles(m, elem, {rows, half}, sc));
    Value* pos = expand_ids ? expanded_ids(ctx, g, last, in, ids) : ids;
    Node* re = fuse_pattern(ctx, pattern, last, "RotaryEmbedding", add, "/RotaryEmbedding", {in, cv, sv, pos});
    set_attr_int(m, re, "interleaved", inter ? 1 : 0);
    if (rot_dim) set_attr_int(m, re, "rotary_embedding_dim", rot_dim);
    if (seq_first) heads_last(ctx, g, re, heads);
    return 1;
  });
}

// Below opset 23 (no RotaryEmbedding): rot(x) * sin becomes Gather(x, perm, last axis) *
// (sin * sign), where perm and sign write rot(x) as a permutation of x's channels with signs:
// half form [h..D-1, 0..h-1] with [-1]*h + [+1]*h, interleaved [1, 0, 3, 2, ...] with
// [-1, +1, ...]. The same values ((-a) * b == a * (-b) exactly), one Gather in place of the
// Slices, Neg and Concat (and the interleaved form's Unsqueezes and Reshape); sin * sign is the
// same node for every rotary reading that sin (CSE merges them).
RuleMatch match_rotate_as_gather(const RuleCtx& rc, Graph* g, Node* neg) {
  Rotate r;
  if (const char* why = match_rotate(rc, g, neg, r)) return RuleMatch::decline(why);
  Node* msin = only_user(r.out);
  if (!is_op(rc.m, msin, "Mul") || msin->inputs.size != 2 || msin->inputs[0] == msin->inputs[1])
    return RuleMatch::decline("rot(x) is not multiplied by sin");
  Value* sin = other_input(msin, r.out);
  const IType* st = rc.types().type_of(sin);
  const IType* xt = rc.types().type_of(r.x);
  if (!st || st->elem != xt->elem) return RuleMatch::decline("sin's element type is not proven to be x's");
  std::vector<Node*> pattern = r.nodes;
  pattern.push_back(msin);
  int64_t d = 2 * r.half;
  bool inter = r.interleaved;
  int32_t elem = xt->elem;
  Value* x = r.x;
  return RuleMatch::rewrite(inter ? "rotate_every_two(x) * sin as one Gather" : "rotate_half(x) * sin as one Gather",
                            [=](PassContext& ctx) -> int64_t {
    Model& m = ctx.m;
    std::vector<int64_t> perm(static_cast<size_t>(d));
    std::vector<double> sign(static_cast<size_t>(d));
    for (int64_t i = 0; i < d; ++i) {
      bool first = inter ? i % 2 == 0 : i < d / 2;  // the negated channels
      perm[static_cast<size_t>(i)] = inter ? (first ? i + 1 : i - 1) : (first ? i + d / 2 : i - d / 2);
      sign[static_cast<size_t>(i)] = first ? -1.0 : 1.0;
    }
    Value* pv = add_initializer(g, "rotate_perm", tensor_from_ints(m, {d}, perm));
    Value* sv = add_initializer(g, "rotate_sign", tensor_from_doubles(m, elem, {d}, sign));
    Node* signed_sin = add_node(ctx, g, msin, "Mul", {sin, sv}, "/rotate_sign");
    Node* gather = add_node(ctx, g, msin, "Gather", {x, pv}, "/rotate_gather");
    set_attr_int(m, gather, "axis", 3);  // x is [B, H, S, D] or [B, S, H, D] (match_rotate)
    fuse_pattern(ctx, pattern, msin, "Mul", msin, "/rotate_mul", {gather->outputs[0], signed_sin->outputs[0]});
    return 1;
  });
}

}  // namespace

OFG_RULE_GROUP(fuse_rotary_embedding_rules, {"rotary_embedding", {"Neg"}, "", 23, kNoOpsetLimit, match_rotary, "RotaryEmbedding"},
  {"rotate_as_gather", {"Neg"}, "", 7, 22, match_rotate_as_gather});

}  // namespace ofg::passes
