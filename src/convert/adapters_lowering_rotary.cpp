// RotaryEmbedding (23) written as the older ops it stands for when going below opset 23.
// The decomposition is the form PyTorch exports write (and passes/fuse_rotary_embedding.cpp
// recognises, so raising the model again and optimizing gets the op back):
//   cos = Unsqueeze(Gather(cos_table, position_ids), heads axis); sin likewise
//   half form:        rot(x) = Concat(Neg(x[..., h:R]), x[..., :h])
//   interleaved form: rot(x) = Reshape(Concat(Unsqueeze(Neg(x[..., 1:R:2]), -1), Unsqueeze(x[..., 0:R:2], -1), -1))
//   y = x * cos + rot(x) * sin, then Concat(y, x[..., R:]) when only R of D channels rotate.
// The op's caches hold one value per pair ([P, h], h = R/2); the tables here hold it for both
// members ([P, R]: the two halves repeated, or each value twice interleaved). Constant caches
// become new constant tables; caches computed at run time are widened by Concat (and Reshape).
// A 3-D input [B, S, H*D] (num_heads) is viewed as [B, S, H, D], so cos/sin get the heads axis at 2
// instead of 1, and is reshaped back at the end.
#include <string>
#include <vector>

#include "convert/adapter.h"
#include "ir/attributes.h"
#include "ir/graph_ops.h"
#include "passes/util.h"

namespace ofg::convert {
namespace {

constexpr int64_t kEnd = INT64_MAX;

Value* unsqueeze(AdaptCtx& c, Value* x, int64_t axis, const char* base) {
  if (c.target >= 13) return insert_op(c.m, c.n, "Unsqueeze", {x, int_const(c.m, c.n, "rope_axis", {axis})}, base)->outputs[0];
  Node* u = insert_op(c.m, c.n, "Unsqueeze", {x}, base);
  set_attr_ints(c.m, u, "axes", {axis});
  return u->outputs[0];
}

// x[..., start:end:step] on the last axis (Slice with inputs: opset >= 10, checked by the caller).
Value* last_slice(AdaptCtx& c, Value* x, int64_t start, int64_t end, int64_t step, const char* base) {
  std::vector<Value*> in = {x, int_const(c.m, c.n, "rope_start", {start}), int_const(c.m, c.n, "rope_end", {end}),
                            int_const(c.m, c.n, "rope_last_axis", {-1})};
  if (step != 1) in.push_back(int_const(c.m, c.n, "rope_step", {step}));
  return insert_op(c.m, c.n, "Slice", in, base)->outputs[0];
}

Value* concat_last(AdaptCtx& c, std::vector<Value*> parts, const char* base) {
  Node* k = insert_op(c.m, c.n, "Concat", std::move(parts), base);
  set_attr_int(c.m, k, "axis", -1);
  return k->outputs[0];
}

// The table [.., R] for a cache [.., h]: a new constant when the cache is one, else computed.
Value* widen(AdaptCtx& c, Value* cache, int64_t half, bool interleaved, const char* base) {
  const Tensor* t = passes::const_tensor(c.m, cache);
  std::vector<double> v;
  if (t && t->dims.size >= 1 && passes::is_float_type(t->data_type) && passes::read_doubles(t, v)) {
    int64_t w = t->dims[t->dims.size - 1];
    int64_t rows = w ? static_cast<int64_t>(v.size()) / w : 0;
    std::vector<double> out(static_cast<size_t>(rows * 2 * half));
    for (int64_t p = 0; p < rows; ++p)
      for (int64_t k = 0; k < half; ++k) {
        double a = v[static_cast<size_t>(p * w + k)];
        double* row = &out[static_cast<size_t>(p * 2 * half)];
        if (interleaved) row[2 * k] = row[2 * k + 1] = a;
        else row[k] = row[k + half] = a;
      }
    std::vector<int64_t> dims(t->dims.begin(), t->dims.end());
    dims.back() = 2 * half;
    return passes::add_initializer(c.n->graph, std::string(c.m.str(cache->name)) + "_" + base,
                                   passes::tensor_from_doubles(c.m, t->data_type, dims, out));
  }
  Value* h = last_slice(c, cache, 0, half, 1, "rope_cache_used");
  if (!interleaved) return concat_last(c, {h, h}, base);
  // [.., h] -> [.., h, 1] -> [.., h, 2] -> [.., 2h] (a rank-3 cache [B, S, h] or [P, h])
  Value* col = unsqueeze(c, h, -1, "rope_cache_column");
  Value* pairs = concat_last(c, {col, col}, "rope_cache_pairs");
  int r = c.rank(cache);
  std::vector<int64_t> shape(static_cast<size_t>(r - 1), 0);
  shape.push_back(-1);
  return insert_op(c.m, c.n, "Reshape", {pairs, int_const(c.m, c.n, "rope_cache_shape", shape)}, base)->outputs[0];
}

const char* rotary_down(AdaptCtx& c) {
  Node* n = c.n;
  if (c.target < 10) return "Slice with inputs (needed by the decomposition) exists from opset 10";
  Value* x = n->inputs[0];
  Value* cos = n->inputs.size > 1 ? n->inputs[1] : nullptr;
  Value* sin = n->inputs.size > 2 ? n->inputs[2] : nullptr;
  Value* pos = has_input(n, 3) ? n->inputs[3] : nullptr;
  if (!cos || !sin) return "the cos and sin caches are required";
  int64_t heads = attr_int(c.m, n, "num_heads", 0);
  int rank = c.rank(x);
  // Without num_heads the input can only be 4-D (a 3-D one needs it), known or not.
  if (rank < 0 && heads <= 0) rank = 4;
  if (rank != 3 && rank != 4) return "the input's rank must be known (3 or 4)";
  if (rank == 3 && heads <= 0) return "a 3-D input needs num_heads";
  bool interleaved = attr_int(c.m, n, "interleaved", 0) != 0;
  int64_t rot = attr_int(c.m, n, "rotary_embedding_dim", 0);
  if (!pos && c.rank(cos) != 3) return "without position_ids the caches must be known to be [B, S, R/2]";
  if (rot == 0) {
    // The whole head rotates: its size is the input's static last dim (per head), else twice the
    // caches' static width (which the op's definition makes head_size / 2 in this case).
    const exec::IType* xt = c.types ? c.types->type_of(x) : nullptr;
    const exec::IType* ct = c.types ? c.types->type_of(cos) : nullptr;
    if (xt && xt->ranked && !xt->dims.empty() && xt->dims.back().is_static()) {
      int64_t d = xt->dims.back().value;
      if (rank == 3) {
        if (d % heads) return "the hidden size is not a multiple of num_heads";
        d /= heads;
      }
      rot = d;
    } else if (ct && ct->ranked && !ct->dims.empty() && ct->dims.back().is_static()) {
      rot = 2 * ct->dims.back().value;
    } else {
      return "the head size must be static (or the caches' width, or rotary_embedding_dim set)";
    }
  }
  if (rot < 2 || rot % 2) return "rotary_embedding_dim must be even and positive";
  int64_t half = rot / 2;
  // Checked before any edit (a refusing step changes nothing).
  for (Value* cache : {cos, sin}) {
    const Tensor* t = passes::const_tensor(c.m, cache);
    if (t && (t->dims.size < 1 || t->dims[t->dims.size - 1] < half)) return "a constant cache has fewer than rotary_embedding_dim/2 columns";
    if (!t && interleaved && c.rank(cache) < 1) return "an interleaved cache computed at run time needs a known rank";
  }
  bool partial = attr_int(c.m, n, "rotary_embedding_dim", 0) != 0;

  // [B, S, H*D] -> [B, S, H, D]
  Value* xin = x;
  if (rank == 3) xin = insert_op(c.m, n, "Reshape", {x, int_const(c.m, n, "rope_heads_shape", {0, 0, heads, -1})}, "rope_heads")->outputs[0];
  int64_t heads_axis = rank == 4 ? 1 : 2;
  Value* tables[2] = {widen(c, cos, half, interleaved, "rope_cos_table"), widen(c, sin, half, interleaved, "rope_sin_table")};
  Value* cs[2];
  for (int i = 0; i < 2; ++i) {
    Value* t = tables[i];
    if (pos) t = insert_op(c.m, n, "Gather", {t, pos}, i ? "rope_sin_rows" : "rope_cos_rows")->outputs[0];
    cs[i] = unsqueeze(c, t, heads_axis, i ? "rope_sin" : "rope_cos");
  }
  Value* xr = partial ? last_slice(c, xin, 0, rot, 1, "rope_rotated_part") : xin;
  Value* rotated = nullptr;
  if (!interleaved) {
    Value* x1 = last_slice(c, xr, 0, half, 1, "rope_first_half");
    Value* x2 = last_slice(c, xr, half, kEnd, 1, "rope_second_half");
    Value* neg = insert_op(c.m, n, "Neg", {x2}, "rope_neg")->outputs[0];
    rotated = concat_last(c, {neg, x1}, "rope_rotate_half");
  } else {
    Value* x1 = last_slice(c, xr, 0, kEnd, 2, "rope_even");
    Value* x2 = last_slice(c, xr, 1, kEnd, 2, "rope_odd");
    Value* neg = insert_op(c.m, n, "Neg", {x2}, "rope_neg")->outputs[0];
    Value* stack = concat_last(c, {unsqueeze(c, neg, -1, "rope_neg_column"), unsqueeze(c, x1, -1, "rope_even_column")}, "rope_stack");
    Value* shape = insert_op(c.m, n, "Shape", {xr}, "rope_shape")->outputs[0];
    rotated = insert_op(c.m, n, "Reshape", {stack, shape}, "rope_rotate_every_two")->outputs[0];
  }
  Value* a = insert_op(c.m, n, "Mul", {xr, cs[0]}, "rope_x_cos")->outputs[0];
  Value* b = insert_op(c.m, n, "Mul", {rotated, cs[1]}, "rope_rot_sin")->outputs[0];
  Node* last = insert_op(c.m, n, "Add", {a, b}, "rope_sum");
  if (partial) {
    Value* rest = last_slice(c, xin, rot, kEnd, 1, "rope_pass_through");
    Node* cat = insert_op(c.m, n, "Concat", {last->outputs[0], rest}, "rope_joined");
    set_attr_int(c.m, cat, "axis", -1);
    last = cat;
  }
  if (rank == 3) last = insert_op(c.m, n, "Reshape", {last->outputs[0], int_const(c.m, n, "rope_hidden_shape", {0, 0, -1})}, "rope_out");
  return replace_by(c, last, interleaved ? "RotaryEmbedding(interleaved) -> Gather/Unsqueeze/Slice/Neg/Unsqueeze/Concat/Reshape/Mul/Add"
                                         : "RotaryEmbedding -> Gather/Unsqueeze/Slice/Neg/Concat/Mul/Add");
}

}  // namespace

void add_rotary_lowering_adapters(std::vector<Adapter>& out) {
  out.push_back({"RotaryEmbedding", 23, nullptr, rotary_down, "introduced; lowered to its decomposition"});
}

}  // namespace ofg::convert
