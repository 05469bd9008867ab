// Data selection: CenterCropPad, CumSum, CumProd, Unique, Compress, ReverseSequence.
#include <numeric>

#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

void op_center_crop_pad(OpCtx& c) {
  const RTensor& xt = c.t(0);
  std::vector<int64_t> target = to_i64_vec(c.t(1));
  int r = xt.rank();
  std::vector<int64_t> axes = c.attr_ints("axes");
  if (axes.empty())
    for (int i = 0; i < r; ++i) axes.push_back(i);
  if (axes.size() != target.size()) c.error("shape must have one entry per axis");
  Shape os = xt.shape;
  // Per axis: offset of the output origin in input coordinates (negative when padding).
  std::vector<int64_t> shift(r, 0);
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t a = norm_axis(c, axes[k], r);
    int64_t in = xt.shape[a], t = c.size_value(target[k], "a target dim");
    os[a] = t;
    shift[a] = in >= t ? (in - t) / 2 : -((t - in) / 2);
  }
  RTensor y = RTensor::alloc(xt.dtype, os);
  auto ost = strides_of(os), ist = strides_of(xt.shape);
  for (int64_t o = 0; o < y.numel(); ++o) {
    int64_t off = 0;
    bool ok = true;
    for (int a = 0; a < r && ok; ++a) {
      int64_t ia = (o / ost[a]) % os[a] + shift[a];
      if (ia < 0 || ia >= xt.shape[a]) ok = false;
      off += ia * ist[a];
    }
    if (ok) copy_elem(xt, off, y, o);
  }
  c.set(0, y);
}

// ------------------------------------------------------------------ data selection

// CumSum and CumProd: a running `combine` along the axis of input 1, in double; with `reverse`
// from the end, with `exclusive` each output taken before its own element joins.
template <class Combine>
void cumulative(OpCtx& c, double start, Combine combine) {
  const RTensor& xt = c.t(0);
  int64_t axis = norm_axis(c, get_i64(c.t_numel(1, 1), 0), xt.rank());
  bool excl = c.attr_i("exclusive", 0) != 0, rev = c.attr_i("reverse", 0) != 0;
  std::vector<double> x = f64_of(xt), y(x.size());
  int64_t len = xt.shape[axis], inner = 1, outer = 1;
  for (int i = 0; i < axis; ++i) outer *= xt.shape[i];
  for (int i = static_cast<int>(axis) + 1; i < xt.rank(); ++i) inner *= xt.shape[i];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t e = 0; e < inner; ++e) {
      double acc = start;
      for (int64_t q = 0; q < len; ++q) {
        int64_t j = rev ? len - 1 - q : q;
        size_t at = static_cast<size_t>((o * len + j) * inner + e);
        if (excl) {
          y[at] = acc;
          acc = combine(acc, x[at]);
        } else {
          acc = combine(acc, x[at]);
          y[at] = acc;
        }
      }
    }
  c.set(0, tensor_of(y, xt.dtype, xt.shape));
}

void op_cumsum(OpCtx& c) { cumulative(c, 0.0, [](double a, double v) { return a + v; }); }
void op_cumprod(OpCtx& c) { cumulative(c, 1.0, [](double a, double v) { return a * v; }); }

void op_unique(OpCtx& c) {
  const RTensor& xt = c.t(0);
  bool sorted = c.attr_i("sorted", 1) != 0;
  bool has_axis = c.has_attr("axis");
  RTensor x = xt;
  int64_t axis = 0;
  if (!has_axis) x = xt.reshaped({xt.numel()});
  else axis = norm_axis(c, c.attr_i("axis", 0), c.t_rank(0, 1, 64).rank());
  int64_t len = x.shape[axis], outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= x.shape[i];
  for (int i = static_cast<int>(axis) + 1; i < x.rank(); ++i) inner *= x.shape[i];
  std::vector<double> v = f64_of(x);
  // Slice j along the axis, as a vector of values in row-major order.
  auto slice = [&](int64_t j) {
    std::vector<double> s(static_cast<size_t>(outer * inner));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t e = 0; e < inner; ++e) s[static_cast<size_t>(o * inner + e)] = v[static_cast<size_t>((o * len + j) * inner + e)];
    return s;
  };
  std::vector<std::vector<double>> sl(static_cast<size_t>(len));
  for (int64_t j = 0; j < len; ++j) sl[static_cast<size_t>(j)] = slice(j);
  std::vector<int64_t> firsts;  // first occurrence of each unique slice, in order of appearance
  std::vector<int64_t> inv(static_cast<size_t>(len));
  for (int64_t j = 0; j < len; ++j) {
    int64_t found = -1;
    for (size_t u = 0; u < firsts.size(); ++u)
      if (sl[static_cast<size_t>(firsts[u])] == sl[static_cast<size_t>(j)]) { found = static_cast<int64_t>(u); break; }
    if (found < 0) {
      found = static_cast<int64_t>(firsts.size());
      firsts.push_back(j);
    }
    inv[static_cast<size_t>(j)] = found;
  }
  std::vector<int64_t> order(firsts.size());
  std::iota(order.begin(), order.end(), 0);
  if (sorted)
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return sl[static_cast<size_t>(firsts[a])] < sl[static_cast<size_t>(firsts[b])];
    });
  std::vector<int64_t> rank_of(order.size());
  for (size_t k = 0; k < order.size(); ++k) rank_of[static_cast<size_t>(order[k])] = static_cast<int64_t>(k);
  int64_t U = static_cast<int64_t>(order.size());
  Shape ys = x.shape;
  ys[axis] = U;
  RTensor y = RTensor::alloc(x.dtype, ys);
  for (int64_t k = 0; k < U; ++k) {
    int64_t j = firsts[static_cast<size_t>(order[k])];
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t e = 0; e < inner; ++e) copy_elem(x, (o * len + j) * inner + e, y, (o * U + k) * inner + e);
  }
  std::vector<int64_t> ind(static_cast<size_t>(U)), invo(static_cast<size_t>(len)), cnt(static_cast<size_t>(U), 0);
  for (int64_t k = 0; k < U; ++k) ind[static_cast<size_t>(k)] = firsts[static_cast<size_t>(order[k])];
  for (int64_t j = 0; j < len; ++j) {
    invo[static_cast<size_t>(j)] = rank_of[static_cast<size_t>(inv[static_cast<size_t>(j)])];
    ++cnt[static_cast<size_t>(invo[static_cast<size_t>(j)])];
  }
  c.set(0, y);
  if (c.wants(1)) c.set(1, make_i64(ind, {U}));
  if (c.wants(2)) c.set(2, make_i64(invo, {len}));
  if (c.wants(3)) c.set(3, make_i64(cnt, {U}));
}

void op_compress(OpCtx& c) {
  const RTensor& xt = c.t(0);
  const RTensor& cond = c.t(1);
  RTensor x = xt;
  int64_t axis = 0;
  if (!c.has_attr("axis")) x = xt.reshaped({xt.numel()});
  else axis = norm_axis(c, c.attr_i("axis", 0), c.t_rank(0, 1, 64).rank());
  int64_t len = x.shape[axis], outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= x.shape[i];
  for (int i = static_cast<int>(axis) + 1; i < x.rank(); ++i) inner *= x.shape[i];
  std::vector<int64_t> keep;
  for (int64_t j = 0; j < std::min(len, cond.numel()); ++j)
    if (get_i64(cond, j) != 0) keep.push_back(j);
  Shape ys = x.shape;
  ys[axis] = static_cast<int64_t>(keep.size());
  RTensor y = RTensor::alloc(x.dtype, ys);
  int64_t K = static_cast<int64_t>(keep.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t e = 0; e < inner; ++e) copy_elem(x, (o * len + keep[static_cast<size_t>(k)]) * inner + e, y, (o * K + k) * inner + e);
  c.set(0, y);
}

void op_reverse_sequence(OpCtx& c) {
  const RTensor& xt = c.t(0);
  std::vector<int64_t> lens = to_i64_vec(c.t(1));
  int64_t ta = c.attr_i("time_axis", 0), ba = c.attr_i("batch_axis", 1);
  if (xt.rank() < 2 || (ta != 0 && ta != 1) || (ba != 0 && ba != 1) || ta == ba)
    c.error("time_axis and batch_axis must be 0 and 1 (either order) of an input of rank >= 2");
  if (static_cast<int64_t>(lens.size()) != xt.shape[ba]) c.error("sequence_lens must have one value per batch entry");
  for (int64_t& l : lens) l = std::clamp<int64_t>(l, 0, xt.shape[ta]);
  RTensor y = xt.clone();
  auto st = strides_of(xt.shape);
  for (int64_t i = 0; i < xt.numel(); ++i) {
    int64_t t = (i / st[ta]) % xt.shape[ta], b = (i / st[ba]) % xt.shape[ba];
    int64_t L = lens[static_cast<size_t>(b)];
    if (t < L) copy_elem(xt, i + (L - 1 - 2 * t) * st[ta], y, i);
  }
  c.set(0, y);
}

}  // namespace

void register_select_ops(Registry& r) {
  r.add("CenterCropPad", op_center_crop_pad, 18).no_rule();
  r.add("CumSum", op_cumsum).infer(rules::same_type);
  r.add("CumProd", op_cumprod, 1).no_rule();
  r.add("Unique", op_unique, 11).no_rule();
  r.add("Compress", op_compress, 9).no_rule();
  r.add("ReverseSequence", op_reverse_sequence, 10).no_rule();
}

}  // namespace ofg::exec
