// fuse_layer_norm: the decomposed layer norm of exports
//   m = ReduceMean(x, [-1]); d = x - m; v = ReduceMean(d^2, [-1]); y = d / Sqrt(v + eps)
//   [y = y * gamma] [y = y + beta]
// becomes LayerNormalization(x, gamma, beta, axis=-1, epsilon=eps). Only at opset >= 17, where
// the op exists; gamma/beta must be constants of shape [C] (C = last dim), or absent when C is
// static (then ones / no bias are used). Every intermediate must be read by the pattern alone.
// The RMS norm (no mean subtracted) becomes RMSNormalization from opset 23 on (match_rms_norm).
#include <cmath>

#include "exec/infer_types.h"
#include "passes/rule.h"
#include "passes/util.h"

namespace ofg::passes {

namespace {
// ReduceMean over the last axis only, keepdims=1; axes as attribute or (opset 18) constant input.
bool mean_last(const Model& m, const Node* n, int rank) {
  if (!is_op(m, n, "ReduceMean") || attr_int(m, n, "keepdims", 1) != 1) return false;
  std::vector<int64_t> axes;
  if (!attr_ints(m, n, "axes", axes) && !(n->inputs.size > 1 && read_ints(const_tensor(m, n->inputs[1]), axes))) return false;
  return axes.size() == 1 && rank > 0 && (axes[0] == -1 || axes[0] == rank - 1);
}

bool scalar_const(const Model& m, const Value* v, double& out) {
  std::vector<double> d;
  if (!read_doubles(const_tensor(m, v), d) || d.size() != 1) return false;
  out = d[0];
  return true;
}



// A per-channel constant of shape [C] (or broadcast-equivalent [1,..,1,C]).
bool channel_vector(const Model& m, const Value* v, int64_t c) {
  const Tensor* t = const_tensor(m, v);
  if (!t || t->dims.size == 0 || t->dims[t->dims.size - 1] != c || t->numel() != c) return false;
  return is_float_type(t->data_type);
}

RuleMatch match_layer_norm(const RuleCtx& rc, Graph* g, Node* mean) {
  const Model& m = rc.m;
  if (mean->inputs.size < 1 || !mean->inputs[0]) return RuleMatch::decline("ReduceMean without its input");
  Value* x = mean->inputs[0];
  const exec::IType* xt = rc.types().type_of(x);
  if (!xt || !xt->ranked || !is_float_type(xt->elem) || !mean_last(m, mean, xt->rank()))
    return RuleMatch::decline("not a keepdims mean over the last axis of a ranked float tensor");
  // d = x - mean, read by the square and the division only
  Node* sub = only_user(mean->outputs[0]);
  if (!is_op(m, sub, "Sub") || sub->inputs[0] != x || sub->inputs[1] != mean->outputs[0])
    return RuleMatch::decline("the mean is not subtracted from x");
  Value* d = sub->outputs[0];
  if (d->is_graph_output() || d->uses.size != 2) return RuleMatch::decline("x - mean has readers outside the layer norm");
  Node* sq = nullptr;
  Node* div = nullptr;
  for (const Use& u : d->uses) {
    if (u.node->graph != g) continue;
    if (is_op(m, u.node, "Div") && u.index == 0) div = u.node;
    else if (is_op(m, u.node, "Pow") && u.index == 0) sq = u.node;
    else if (is_op(m, u.node, "Mul") && u.node->inputs[0] == d && u.node->inputs[1] == d) sq = u.node;
  }
  double two = 0, eps = 0;
  if (!sq || !div || (is_op(m, sq, "Pow") && (!scalar_const(m, sq->inputs[1], two) || two != 2.0)))
    return RuleMatch::decline("x - mean is not squared and divided");
  Node* var = only_user(sq->outputs[0]);
  if (!var || !mean_last(m, var, xt->rank())) return RuleMatch::decline("the square is not averaged over the last axis");
  Node* add = only_user(var->outputs[0]);
  if (!is_op(m, add, "Add") || !scalar_const(m, other_input(add, var->outputs[0]), eps))
    return RuleMatch::decline("the variance is not followed by + a constant epsilon");
  Node* sqrt = only_user(add->outputs[0]);
  if (!is_op(m, sqrt, "Sqrt") || only_user(sqrt->outputs[0]) != div || div->inputs[1] != sqrt->outputs[0])
    return RuleMatch::decline("no Sqrt dividing x - mean");
  // optional affine part
  const exec::IDim& cd = xt->dims.back();
  Value* y = div->outputs[0];
  Node* mul = only_user(y);
  Value* gamma = nullptr;
  Value* beta = nullptr;
  Node* last = div;
  if (is_op(m, mul, "Mul") && cd.is_static() && channel_vector(m, other_input(mul, y), cd.value)) {
    gamma = other_input(mul, y);
    last = mul;
    Node* badd = only_user(mul->outputs[0]);
    if (is_op(m, badd, "Add") && channel_vector(m, other_input(badd, mul->outputs[0]), cd.value)) {
      beta = other_input(badd, mul->outputs[0]);
      last = badd;
    }
  }
  if (!gamma && !cd.is_static()) return RuleMatch::decline("no scale and a dynamic channel count");
  // the scale/bias must have the element type of x and shape [C] (the ones made for an absent
  // scale always do)
  if (gamma) {
    const Tensor* gt = const_tensor(m, gamma);
    if (gt->data_type != xt->elem || gt->dims.size != 1) return RuleMatch::decline("the scale is not [C] of x's type");
  }
  if (beta) {
    const Tensor* bt = const_tensor(m, beta);
    if (bt->data_type != xt->elem || bt->dims.size != 1) return RuleMatch::decline("the bias is not [C] of x's type");
  }
  auto elem = xt->elem;
  int64_t channels = cd.is_static() ? cd.value : -1;
  return RuleMatch::rewrite("decomposed layer norm -> LayerNormalization",
                            [=](PassContext& ctx) -> int64_t {
    Model& m = ctx.m;
    Value* scale = gamma;
    if (!scale) {
      std::vector<double> ones(static_cast<size_t>(channels), 1.0);
      scale = add_initializer(g, std::string(m.str(x->name)) + "_ln_scale", tensor_from_doubles(m, elem, {channels}, ones));
    }
    std::vector<Node*> pattern{mean, sub, sq, var, add, sqrt, div};
    if (last != div) pattern.push_back(mul);
    if (last != div && last != mul) pattern.push_back(last);
    Node* ln = fuse_pattern(ctx, pattern, last, "LayerNormalization", mean, "/LayerNorm", {x, scale, beta});
    set_attr_int(m, ln, "axis", -1);
    set_attr_float(m, ln, "epsilon", static_cast<float>(eps));
    return 1;
  });
}

// The root-mean-square norm of LLaMA-style exports (PyTorch's RMSNorm modules):
//   v = ReduceMean(h^2, [-1]); r = 1 / Sqrt(v + eps) (Div(1, s) or Reciprocal); n = h * r
//   (or n = h / Sqrt(v + eps)); [y = n * w]
// becomes RMSNormalization(h, w, axis=-1, epsilon=eps). The square is Pow(h, 2) or Mul(h, h).
RuleMatch match_rms_norm(const RuleCtx& rc, Graph* g, Node* mean) {
  const Model& m = rc.m;
  Value* sq_out = mean->inputs.size ? mean->inputs[0] : nullptr;
  Node* sq = sq_out ? sq_out->producer : nullptr;
  if (!sq || sq->graph != g || only_user(sq_out) != mean) return RuleMatch::decline("the mean's input is not a square read by it alone");
  Value* h = sq->inputs.size == 2 ? sq->inputs[0] : nullptr;
  double two = 0, eps = 0, one = 0;
  bool square = (is_op(m, sq, "Pow") && scalar_const(m, sq->inputs[1], two) && two == 2.0) ||
                (is_op(m, sq, "Mul") && sq->inputs[1] == h);
  if (!h || !square) return RuleMatch::decline("the mean's input is not h^2");
  const exec::IType* ht = rc.types().type_of(h);
  if (!ht || !ht->ranked || !is_float_type(ht->elem) || !mean_last(m, mean, ht->rank()))
    return RuleMatch::decline("not a keepdims mean over the last axis of a ranked float tensor");
  Node* add = only_user(mean->outputs[0]);
  if (!is_op(m, add, "Add") || !scalar_const(m, other_input(add, mean->outputs[0]), eps)) return RuleMatch::decline("the mean square is not followed by + a constant epsilon");
  Node* sqrt = only_user(add->outputs[0]);
  if (!is_op(m, sqrt, "Sqrt")) return RuleMatch::decline("no Sqrt of the mean square");
  Value* s = sqrt->outputs[0];
  Node* inv = only_user(s);
  std::vector<Node*> pattern{sq, mean, add, sqrt};
  Node* norm = nullptr;  // the node whose output is h / rms
  if (is_op(m, inv, "Div") && inv->inputs[0] == h && inv->inputs[1] == s) {
    norm = inv;
  } else if ((is_op(m, inv, "Reciprocal")) ||
             (is_op(m, inv, "Div") && inv->inputs[1] == s && scalar_const(m, inv->inputs[0], one) && one == 1.0)) {
    pattern.push_back(inv);
    Node* mul = only_user(inv->outputs[0]);
    if (!is_op(m, mul, "Mul") || other_input(mul, inv->outputs[0]) != h) return RuleMatch::decline("h is not multiplied by 1/rms");
    norm = mul;
  } else {
    return RuleMatch::decline("the rms does not divide h");
  }
  pattern.push_back(norm);
  // Optional scale: a constant [C] of h's type.
  const exec::IDim& cd = ht->dims.back();
  Value* w = nullptr;
  Node* last = norm;
  Node* smul = only_user(norm->outputs[0]);
  if (is_op(m, smul, "Mul") && cd.is_static() && channel_vector(m, other_input(smul, norm->outputs[0]), cd.value)) {
    const Tensor* wt = const_tensor(m, other_input(smul, norm->outputs[0]));
    if (wt->data_type == ht->elem && wt->dims.size == 1) {
      w = other_input(smul, norm->outputs[0]);
      last = smul;
      pattern.push_back(smul);
    }
  }
  if (!w && !cd.is_static()) return RuleMatch::decline("no scale and a dynamic channel count");
  auto elem = ht->elem;
  int64_t channels = cd.is_static() ? cd.value : -1;
  return RuleMatch::rewrite("decomposed RMS norm -> RMSNormalization", [=](PassContext& ctx) -> int64_t {
    Model& m = ctx.m;
    Value* scale = w;
    if (!scale) {
      std::vector<double> ones(static_cast<size_t>(channels), 1.0);
      scale = add_initializer(g, std::string(m.str(h->name)) + "_rms_scale", tensor_from_doubles(m, elem, {channels}, ones));
    }
    Node* rms = fuse_pattern(ctx, pattern, last, "RMSNormalization", mean, "/RMSNorm", {h, scale});
    set_attr_int(m, rms, "axis", -1);
    set_attr_float(m, rms, "epsilon", static_cast<float>(eps));
    return 1;
  });
}

}  // namespace

OFG_RULE_GROUP(fuse_layer_norm_rules,
  {"decomposed_layer_norm", {"ReduceMean"}, "", 17, kNoOpsetLimit, match_layer_norm, "LayerNormalization"},
  {"decomposed_rms_norm", {"ReduceMean"}, "", 23, kNoOpsetLimit, match_rms_norm, "RMSNormalization"});

}  // namespace ofg::passes
