// New ops written as the older ops they stand for when going below their opset:
// LayerNormalization (17), Gelu (20), Mish (18), HardSwish (14), Swish (24), GroupNormalization
// (18; per-channel scale and bias from 21), RMSNormalization (23). The decompositions
// are the forms exports wrote before those ops existed, which are also the forms the fusions of
// passes/ recognise: a model raised again and optimized gets the fused op back.
// Going up there is nothing to do here: the opset moves and the fusions apply on optimize.
#include <cmath>
#include <string>
#include <vector>

#include "convert/adapter.h"
#include "ir/attributes.h"
#include "ir/graph_ops.h"

namespace ofg::convert {
namespace {

int32_t float_type(AdaptCtx& c) {
  int32_t dt = c.elem(c.n->inputs[0]);
  return dt ? dt : kFloat;
}

Value* scalar(AdaptCtx& c, const char* base, double v) { return float_const(c.m, c.n, base, float_type(c), {v}, true); }

Node* reduce_mean(AdaptCtx& c, Value* x, const std::vector<int64_t>& axes, const char* base) {
  if (c.target >= 18) {
    Node* r = insert_op(c.m, c.n, "ReduceMean", {x, int_const(c.m, c.n, "axes", axes)}, base);
    return r;
  }
  Node* r = insert_op(c.m, c.n, "ReduceMean", {x}, base);
  set_attr_ints(c.m, r, "axes", axes);
  return r;
}

const char* layer_norm_down(AdaptCtx& c) {
  Value* x = c.n->inputs[0];
  std::vector<int64_t> axes;  // ReduceMean takes a negative axis from opset 11
  if (const char* why = trailing_axes(c, c.target >= 11, axes)) return why;
  float eps = attr_float(c.m, c.n, "epsilon", 1e-5f);
  Node* mean = reduce_mean(c, x, axes, "ln_mean");
  Node* d = insert_op(c.m, c.n, "Sub", {x, mean->outputs[0]}, "ln_centered");
  Node* sq = insert_op(c.m, c.n, "Pow", {d->outputs[0], scalar(c, "ln_two", 2.0)}, "ln_square");
  Node* var = reduce_mean(c, sq->outputs[0], axes, "ln_var");
  Node* ve = insert_op(c.m, c.n, "Add", {var->outputs[0], scalar(c, "ln_eps", eps)}, "ln_var_eps");
  Node* sd = insert_op(c.m, c.n, "Sqrt", {ve->outputs[0]}, "ln_std");
  Node* norm = insert_op(c.m, c.n, "Div", {d->outputs[0], sd->outputs[0]}, "ln_norm");
  Node* last = insert_op(c.m, c.n, "Mul", {norm->outputs[0], c.n->inputs[1]}, "ln_scaled");
  if (has_input(c.n, 2)) last = insert_op(c.m, c.n, "Add", {last->outputs[0], c.n->inputs[2]}, "ln_out");
  // The optional Mean and InvStdDev outputs (shapes with the normalised axes kept as 1, as the
  // keepdims=1 reductions give).
  Value* stats[2] = {c.n->outputs.size > 1 ? c.n->outputs[1] : nullptr, c.n->outputs.size > 2 ? c.n->outputs[2] : nullptr};
  Node* inv = nullptr;
  if (stats[1] && (stats[1]->use_count() || stats[1]->is_graph_output()))
    inv = insert_op(c.m, c.n, "Reciprocal", {sd->outputs[0]}, "ln_inv_std");
  bool mean_read = stats[0] && (stats[0]->use_count() || stats[0]->is_graph_output());
  Node* mean_copy = mean_read ? insert_op(c.m, c.n, "Identity", {mean->outputs[0]}, "ln_mean_out") : nullptr;
  for (uint32_t i = 1; i < c.n->outputs.size; ++i) set_output(c.n, i, nullptr);
  if (mean_copy) set_output(mean_copy, 0, stats[0]);
  if (inv) set_output(inv, 0, stats[1]);
  return replace_by(c, last, "LayerNormalization -> ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add");
}

const char* gelu_down(AdaptCtx& c) {
  Value* x = c.n->inputs[0];
  if (attr_string(c.m, c.n, "approximate", "none") == "tanh") {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    Node* cube = insert_op(c.m, c.n, "Pow", {x, scalar(c, "gelu_three", 3.0)}, "gelu_cube");
    Node* k = insert_op(c.m, c.n, "Mul", {cube->outputs[0], scalar(c, "gelu_k", 0.044715)}, "gelu_k");
    Node* s = insert_op(c.m, c.n, "Add", {x, k->outputs[0]}, "gelu_sum");
    Node* u = insert_op(c.m, c.n, "Mul", {s->outputs[0], scalar(c, "gelu_c", std::sqrt(2.0 / M_PI))}, "gelu_u");
    Node* t = insert_op(c.m, c.n, "Tanh", {u->outputs[0]}, "gelu_tanh");
    Node* p = insert_op(c.m, c.n, "Add", {t->outputs[0], scalar(c, "gelu_one", 1.0)}, "gelu_one_plus");
    Node* xm = insert_op(c.m, c.n, "Mul", {x, p->outputs[0]}, "gelu_x");
    Node* last = insert_op(c.m, c.n, "Mul", {xm->outputs[0], scalar(c, "gelu_half", 0.5)}, "gelu_out");
    return replace_by(c, last, "Gelu(tanh) -> Pow/Mul/Add/Mul/Tanh/Add/Mul/Mul");
  }
  if (c.target < 9) return "Erf (needed by the decomposition) exists from opset 9";
  Node* dv = insert_op(c.m, c.n, "Div", {x, scalar(c, "gelu_sqrt2", std::sqrt(2.0))}, "gelu_div");
  Node* e = insert_op(c.m, c.n, "Erf", {dv->outputs[0]}, "gelu_erf");
  Node* p = insert_op(c.m, c.n, "Add", {e->outputs[0], scalar(c, "gelu_one", 1.0)}, "gelu_one_plus");
  Node* xm = insert_op(c.m, c.n, "Mul", {x, p->outputs[0]}, "gelu_x");
  Node* last = insert_op(c.m, c.n, "Mul", {xm->outputs[0], scalar(c, "gelu_half", 0.5)}, "gelu_out");
  return replace_by(c, last, "Gelu -> Div/Erf/Add/Mul/Mul");
}

const char* mish_down(AdaptCtx& c) {
  Value* x = c.n->inputs[0];
  Node* sp = insert_op(c.m, c.n, "Softplus", {x}, "mish_softplus");
  Node* t = insert_op(c.m, c.n, "Tanh", {sp->outputs[0]}, "mish_tanh");
  Node* last = insert_op(c.m, c.n, "Mul", {x, t->outputs[0]}, "mish_out");
  return replace_by(c, last, "Mish -> Softplus/Tanh/Mul");
}

const char* hard_swish_down(AdaptCtx& c) {
  Value* x = c.n->inputs[0];
  Node* hs = insert_op(c.m, c.n, "HardSigmoid", {x}, "hardswish_gate");
  set_attr_float(c.m, hs, "alpha", 1.0f / 6.0f);
  set_attr_float(c.m, hs, "beta", 0.5f);
  Node* last = insert_op(c.m, c.n, "Mul", {x, hs->outputs[0]}, "hardswish_out");
  return replace_by(c, last, "HardSwish -> HardSigmoid(1/6, 0.5)/Mul");
}

const char* swish_down(AdaptCtx& c) {
  Value* x = c.n->inputs[0];
  float alpha = attr_float(c.m, c.n, "alpha", 1.0f);
  Value* in = x;
  if (alpha != 1.0f) in = insert_op(c.m, c.n, "Mul", {x, scalar(c, "swish_alpha", alpha)}, "swish_scaled")->outputs[0];
  Node* s = insert_op(c.m, c.n, "Sigmoid", {in}, "swish_gate");
  Node* last = insert_op(c.m, c.n, "Mul", {x, s->outputs[0]}, "swish_out");
  return replace_by(c, last, "Swish -> Sigmoid/Mul");
}

// The first stage of GroupNormalization and RMSNormalization runs in the type stash_type names
// (float32 by default): a half-precision input is cast up for it and the normalised value cast
// back before the scale, as the spec's two stages do. Returns x itself when no Cast is needed.
Value* stash_in(AdaptCtx& c, Value* x, bool& cast, const char* base) {
  int32_t dt = c.elem(x);
  int64_t stash = attr_int(c.m, c.n, "stash_type", kFloat);
  cast = dt && dt != stash && (dt == kFloat16 || dt == kBfloat16) && stash == kFloat;
  if (!cast) return x;
  Node* up = insert_op(c.m, c.n, "Cast", {x}, base);
  set_attr_int(c.m, up, "to", kFloat);
  return up->outputs[0];
}

Value* stash_out(AdaptCtx& c, Value* v, bool cast, const char* base) {
  if (!cast) return v;
  Node* down = insert_op(c.m, c.n, "Cast", {v}, base);
  set_attr_int(c.m, down, "to", c.elem(c.n->inputs[0]));
  return down->outputs[0];
}

Value* stash_scalar(AdaptCtx& c, bool cast, const char* base, double v) {
  return cast ? float_const(c.m, c.n, base, kFloat, {v}, true) : scalar(c, base, v);
}

// x / sqrt(mean((x - mean(x))^2) + eps) over `axes` (the first stage of both group forms).
Value* standardize(AdaptCtx& c, Value* x, const std::vector<int64_t>& axes, bool cast, float eps) {
  Node* mean = reduce_mean(c, x, axes, "gn_mean");
  Node* d = insert_op(c.m, c.n, "Sub", {x, mean->outputs[0]}, "gn_centered");
  Node* sq = insert_op(c.m, c.n, "Pow", {d->outputs[0], stash_scalar(c, cast, "gn_two", 2.0)}, "gn_square");
  Node* var = reduce_mean(c, sq->outputs[0], axes, "gn_var");
  Node* ve = insert_op(c.m, c.n, "Add", {var->outputs[0], stash_scalar(c, cast, "gn_eps", eps)}, "gn_var_eps");
  Node* sd = insert_op(c.m, c.n, "Sqrt", {ve->outputs[0]}, "gn_std");
  return insert_op(c.m, c.n, "Div", {d->outputs[0], sd->outputs[0]}, "gn_norm")->outputs[0];
}

// GroupNormalization: X [N, C, ...] seen as [N, G, C/G * ...] is standardised per (n, g), then
// shaped back. `per_channel` is the opset-21 form (scale and bias [C], applied on X's shape, which
// needs its rank); opsets 18-20 have them per group ([G], applied on the grouped shape).
const char* group_norm_lower(AdaptCtx& c, bool per_channel) {
  Value* x = c.n->inputs[0];
  int64_t groups = attr_int(c.m, c.n, "num_groups", 0);
  if (groups < 1) return "num_groups must be a positive integer";
  int r = c.rank(x);
  if (per_channel && r < 0) return "per-channel scale and bias need a known input rank";
  float eps = attr_float(c.m, c.n, "epsilon", 1e-5f);
  bool cast = false;
  Value* xs = stash_in(c, x, cast, "gn_stash");
  Node* grouped = insert_op(c.m, c.n, "Reshape", {xs, int_const(c.m, c.n, "gn_grouped_shape", {0, groups, -1})}, "gn_grouped");
  Value* norm = stash_out(c, standardize(c, grouped->outputs[0], {2}, cast, eps), cast, "gn_unstash");
  Value* shape = insert_op(c.m, c.n, "Shape", {x}, "gn_shape")->outputs[0];
  // Scale and bias broadcast as [G, 1] on the grouped shape or [C, 1, ...] on X's shape.
  std::vector<int64_t> param_shape = {-1, 1};
  if (per_channel) {
    norm = insert_op(c.m, c.n, "Reshape", {norm, shape}, "gn_ungrouped")->outputs[0];
    param_shape.assign(r > 1 ? r - 1 : 1, 1);
    param_shape[0] = -1;
  }
  Value* ps = int_const(c.m, c.n, "gn_param_shape", param_shape);
  Value* sc = insert_op(c.m, c.n, "Reshape", {c.n->inputs[1], ps}, "gn_scale")->outputs[0];
  Value* bi = insert_op(c.m, c.n, "Reshape", {c.n->inputs[2], ps}, "gn_bias")->outputs[0];
  Node* scaled = insert_op(c.m, c.n, "Mul", {norm, sc}, "gn_scaled");
  Node* last = insert_op(c.m, c.n, "Add", {scaled->outputs[0], bi}, "gn_shifted");
  if (!per_channel) last = insert_op(c.m, c.n, "Reshape", {last->outputs[0], shape}, "gn_out");
  return replace_by(c, last, per_channel ? "GroupNormalization -> Reshape/ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Reshape/Mul/Add"
                                     : "GroupNormalization -> Reshape/ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add/Reshape");
}

// Crossing 21 downwards: the per-channel form has no per-group equivalent in general, so the node
// is lowered outright (its decomposition is valid at every older opset).
const char* group_norm_down_21(AdaptCtx& c) { return group_norm_lower(c, true); }
const char* group_norm_down_18(AdaptCtx& c) { return group_norm_lower(c, false); }

// Crossing 21 upwards the per-group scale and bias ([G]) become per-channel ([C]): each value is
// repeated C/G times, with C read from X's shape at run time (Reshape [G, 1], Expand to
// [G, C/G], Reshape [-1]), so no static shape is needed.
const char* group_norm_up_21(AdaptCtx& c) {
  int64_t groups = attr_int(c.m, c.n, "num_groups", 0);
  if (groups < 1) return "num_groups must be a positive integer";
  Value* shape = insert_op(c.m, c.n, "Shape", {c.n->inputs[0]}, "gn_x_shape")->outputs[0];
  Value* ch = insert_op(c.m, c.n, "Gather", {shape, int_const(c.m, c.n, "gn_channel_axis", {1})}, "gn_channels")->outputs[0];
  Value* g = int_const(c.m, c.n, "gn_groups", {groups});
  Value* per = insert_op(c.m, c.n, "Div", {ch, g}, "gn_per_group")->outputs[0];
  Node* to = insert_op(c.m, c.n, "Concat", {g, per}, "gn_repeat_shape");
  set_attr_int(c.m, to, "axis", 0);
  Value* col = int_const(c.m, c.n, "gn_column", {-1, 1});
  Value* flat = int_const(c.m, c.n, "gn_flat", {-1});
  for (uint32_t i = 1; i <= 2; ++i) {
    Value* v = insert_op(c.m, c.n, "Reshape", {c.n->inputs[i], col}, "gn_param_column")->outputs[0];
    v = insert_op(c.m, c.n, "Expand", {v, to->outputs[0]}, "gn_param_repeated")->outputs[0];
    put_input(c.n, i, insert_op(c.m, c.n, "Reshape", {v, flat}, "gn_param_per_channel")->outputs[0]);
  }
  c.what = "GroupNormalization scale/bias per group -> per channel (Reshape/Expand/Reshape)";
  return nullptr;
}

// RMSNormalization: X / sqrt(mean(X^2 over axis..) + eps) * scale.
const char* rms_norm_down(AdaptCtx& c) {
  Value* x = c.n->inputs[0];
  std::vector<int64_t> axes;
  // ReduceMean takes a negative axis from opset 11 on; below, the axes are counted from the front.
  if (const char* why = trailing_axes(c, c.target >= 11, axes)) return why;
  float eps = attr_float(c.m, c.n, "epsilon", 1e-5f);
  bool cast = false;
  Value* xs = stash_in(c, x, cast, "rms_stash");
  Node* sq = insert_op(c.m, c.n, "Pow", {xs, stash_scalar(c, cast, "rms_two", 2.0)}, "rms_square");
  Node* ms = reduce_mean(c, sq->outputs[0], axes, "rms_mean_square");
  Node* me = insert_op(c.m, c.n, "Add", {ms->outputs[0], stash_scalar(c, cast, "rms_eps", eps)}, "rms_eps_added");
  Node* rms = insert_op(c.m, c.n, "Sqrt", {me->outputs[0]}, "rms");
  Value* norm = insert_op(c.m, c.n, "Div", {xs, rms->outputs[0]}, "rms_norm")->outputs[0];
  norm = stash_out(c, norm, cast, "rms_unstash");
  Node* last = insert_op(c.m, c.n, "Mul", {norm, c.n->inputs[1]}, "rms_out");
  return replace_by(c, last, "RMSNormalization -> Pow/ReduceMean/Add/Sqrt/Div/Mul");
}

}  // namespace

void add_lowering_adapters(std::vector<Adapter>& out) {
  out.push_back({"LayerNormalization", 17, nullptr, layer_norm_down, "introduced; lowered to its decomposition"});
  out.push_back({"Gelu", 20, nullptr, gelu_down, "introduced; lowered to its decomposition"});
  out.push_back({"Mish", 18, nullptr, mish_down, "introduced; lowered to its decomposition"});
  out.push_back({"HardSwish", 14, nullptr, hard_swish_down, "introduced; lowered to its decomposition"});
  out.push_back({"Swish", 24, nullptr, swish_down, "introduced; lowered to its decomposition"});
  out.push_back({"GroupNormalization", 18, nullptr, group_norm_down_18, "introduced; lowered to its decomposition"});
  out.push_back({"GroupNormalization", 21, group_norm_up_21, group_norm_down_21,
                 "scale and bias per channel (were per group): repeated going up, lowered going below"});
  out.push_back({"RMSNormalization", 23, nullptr, rms_norm_down, "introduced; lowered to its decomposition"});
}

}  // namespace ofg::convert
