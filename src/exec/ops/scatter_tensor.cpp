// TensorScatter (opset 24): the functional form of an in-place KV-cache update. The update,
// whose shape differs from the cache only along `axis` (sequence_length <= max_sequence_length),
// is written into a copy of the cache at write_indices[batch] (zero when absent), wrapping
// around in "circular" mode.
#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

void op_tensor_scatter(OpCtx& c) {
  c.require_inputs(2);
  const RTensor& past = c.t_rank(0, 2, 64);
  int64_t r = past.rank();
  int64_t axis = norm_axis(c, c.attr_i("axis", -2), r);
  c.require(axis != 0, "axis cannot be the batch axis 0");
  std::string mode = c.attr_s("mode", "linear");
  c.require(mode == "linear" || mode == "circular", "mode must be 'linear' or 'circular', got '" + mode + "'");
  bool circular = mode == "circular";
  const RTensor& upd = c.t_rank(1, static_cast<int>(r));
  c.require(upd.dtype == past.dtype, "update must have the element type of past_cache");
  for (int64_t i = 0; i < r; ++i) {
    bool ok = i == axis ? upd.shape[i] <= past.shape[i] : upd.shape[i] == past.shape[i];
    c.require(ok, "update " + shape_str(upd.shape) + " does not fit past_cache " + shape_str(past.shape) +
                      " (same dims except a shorter or equal axis " + std::to_string(axis) + ")");
  }
  int64_t batch = past.shape[0];
  std::vector<int64_t> write(static_cast<size_t>(batch), 0);
  if (c.has(2)) write = to_i64_vec(c.t_dims(2, {batch}));

  int64_t max_len = past.shape[axis], len = upd.shape[axis];
  // Rows of `inner` contiguous elements: outer = prefix dims (batch first), then the axis.
  int64_t inner = 1, outer_per_batch = 1;
  for (int64_t i = axis + 1; i < r; ++i) inner *= past.shape[i];
  for (int64_t i = 1; i < axis; ++i) outer_per_batch *= past.shape[i];
  for (int64_t b = 0; b < batch; ++b) {
    int64_t w = write[static_cast<size_t>(b)];
    if (circular) {
      c.require(w >= 0, "write index " + std::to_string(w) + " of batch " + std::to_string(b) + " is negative");
    } else {
      c.require(w >= 0 && w <= max_len - len, "write index " + std::to_string(w) + " of batch " + std::to_string(b) +
                                                   " leaves no room for " + std::to_string(len) + " of " +
                                                   std::to_string(max_len) + " positions");
    }
  }
  RTensor y = past.clone();
  size_t es = past.elem_size();
  size_t row_bytes = static_cast<size_t>(inner) * es;
  for (int64_t b = 0; b < batch; ++b) {
    int64_t w = write[static_cast<size_t>(b)];
    for (int64_t o = 0; o < outer_per_batch; ++o) {
      int64_t prefix = b * outer_per_batch + o;
      for (int64_t s = 0; s < len; ++s) {
        // w is reduced before the sum so that a huge index cannot overflow.
        int64_t pos = circular ? ((w % max_len) + s) % max_len : w + s;
        std::memcpy(y.ptr + static_cast<size_t>(prefix * max_len + pos) * row_bytes,
                    upd.ptr + static_cast<size_t>(prefix * len + s) * row_bytes, row_bytes);
      }
    }
  }
  c.set(0, std::move(y));
}

}  // namespace

void register_scatter_tensor_ops(Registry& r) {
  r.add("TensorScatter", op_tensor_scatter, 24, 1 << 30, false).infer(rules::same_type);
}

}  // namespace ofg::exec
