// Reductions (Reduce*, ArgMax/ArgMin) and TopK.
#include "exec/infer_rules.h"
#include "exec/ops/fusable.h"
#include "exec/ops/reduce_columns.h"
#include "exec/ops/util.h"

namespace ofg::exec {

namespace {

// x's dims as [outer, len, inner] when the reduced axes of size > 1 are adjacent (axes of size 1
// go on either side: they change no element's position); false when they are split by a kept axis.
bool column_block(const Shape& dims, const std::vector<bool>& red, int64_t& outer, int64_t& len, int64_t& inner) {
  int stage = 0;  // 0: before the reduced block, 1: inside it, 2: after it
  outer = len = inner = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 1) continue;
    if (red[i]) {
      if (stage == 2) return false;
      stage = 1;
      len *= dims[i];
    } else {
      if (stage == 1) stage = 2;
      (stage == 0 ? outer : inner) *= dims[i];
    }
  }
  return true;
}

enum class R { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

// One body for the ten Reduce ops, the kind a run-time argument: a copy per kind cost about 2.2 KB
// of aarch64 code each. The float paths (row_sums_f64_parallel, reduce_columns_f64) take the kind
// as an argument anyway; the general walk below reads each element through get_f64, so the
// per-element switch on a loop-invariant kind is a predictable branch there.
void run_reduce(OpCtx& c, const R K) {
  const RTensor& x = c.t(0);
  // Axes became an input at opset 13 for ReduceSum and at 18 for the others.
  int64_t from = K == R::Sum ? 13 : 18;
  std::vector<int64_t> axes;
  if (c.opset >= from) {
    if (c.has(1)) axes = to_i64_vec(c.t(1));
  } else {
    axes = c.attr_ints("axes");
  }
  bool keep = c.attr_i("keepdims", 1) != 0;
  if (axes.empty() && c.attr_i("noop_with_empty_axes", 0) != 0) {
    c.out[0] = *c.in[0];
    return;
  }
  int r = x.rank();
  std::vector<bool> red(r, axes.empty());
  if (r == 0 && !axes.empty()) c.error("axes given for a scalar input");
  for (int64_t a : axes) red[norm_axis(c, a, r)] = true;
  Shape rs = x.shape, out;
  for (int i = 0; i < r; ++i) {
    if (red[i]) rs[i] = 1;
    if (!red[i]) out.push_back(x.shape[i]);
    else if (keep) out.push_back(1);
  }
  int64_t n = shape_numel(rs);
  double init = K == R::Max ? -std::numeric_limits<double>::infinity()
              : K == R::Min ? std::numeric_limits<double>::infinity()
              : K == R::Prod ? 1.0 : 0.0;
  std::vector<double> acc(n, init);
  int64_t count = n ? x.numel() / n : 0;
  bool integer = !is_float_type(x.dtype);
  if (integer && (K == R::Max || K == R::Min) && x.numel() == 0) {
    visit_numeric(x.dtype, [&](auto tag) {
      using T = decltype(tag);
      for (auto& a : acc) a = K == R::Max ? static_cast<double>(std::numeric_limits<T>::lowest()) : static_cast<double>(std::numeric_limits<T>::max());
    });
  }
  std::vector<double> mx;
  if (K == R::LogSumExp) {
    mx.assign(n, -std::numeric_limits<double>::infinity());
    broadcast_each(x.shape, {rs}, [&](int64_t i, const int64_t* o) { mx[o[0]] = std::max(mx[o[0]], get_f64(x, i)); });
    for (auto& m : mx) if (std::isinf(m)) m = 0;
  }
  // Float input reduced over its trailing axes (LayerNorm's means, the common case): each output
  // is a contiguous run, summed in double in the same order as the general walk below, so the
  // results are the same bits, without the per-element index walk and type dispatch.
  int lead = r;
  while (lead > 0 && red[lead - 1]) --lead;
  bool trailing = x.dtype == kFloat && n > 0 && (K == R::Sum || K == R::Mean || K == R::LogSum || K == R::SumSquare || K == R::L2);
  for (int i = 0; i < lead && trailing; ++i) trailing = !red[i];
  // Float input reduced over one block of adjacent axes that is not last ([outer, len, inner],
  // ReduceSum over channels): whole rows of inner combined at a time, in the general walk's order.
  ColumnCombine combine = ColumnCombine::Add;
  int64_t outer = 1, len = 1, inner = 1;
  const bool columns = !trailing && x.dtype == kFloat && n > 0 && K != R::LogSumExp &&
                       column_block(x.shape, red, outer, len, inner);
  if (K == R::L2 || K == R::SumSquare) combine = ColumnCombine::AddSquare;
  if (K == R::L1) combine = ColumnCombine::AddAbs;
  if (K == R::Prod) combine = ColumnCombine::Mul;
  if (K == R::Max) combine = ColumnCombine::Max;
  if (K == R::Min) combine = ColumnCombine::Min;
  if (trailing) {
    row_sums_f64_parallel(x.data<float>(), n, count, !(K == R::Sum || K == R::Mean || K == R::LogSum), acc.data());
  } else if (columns) {
    reduce_columns_f64(combine, x.data<float>(), outer, len, inner, acc.data());
  } else {
    broadcast_each(x.shape, {rs}, [&](int64_t i, const int64_t* o) {
      double v = get_f64(x, i);
      double& a = acc[o[0]];
      switch (K) {
        case R::Sum: case R::Mean: case R::LogSum: a += v; break;
        case R::Max: a = (std::isnan(v) || std::isnan(a)) ? NAN : std::max(a, v); break;
        case R::Min: a = (std::isnan(v) || std::isnan(a)) ? NAN : std::min(a, v); break;
        case R::Prod: a *= v; break;
        case R::L1: a += std::fabs(v); break;
        case R::L2: case R::SumSquare: a += v * v; break;
        case R::LogSumExp: a += std::exp(v - mx[o[0]]); break;
      }
    });
  }
  RTensor y = RTensor::alloc(x.dtype, out);
  for (int64_t i = 0; i < n; ++i) {
    double a = acc[i];
    if (K == R::Mean) a = a / count;
    if (K == R::L2) a = std::sqrt(a);
    if (K == R::LogSum) a = std::log(a);
    if (K == R::LogSumExp) a = std::log(a) + mx[i];
    set_f64(y, i, a);
  }
  c.set(0, y);
}
template <R K>
void op_reduce(OpCtx& c) {
  run_reduce(c, K);
}

template <bool MAX>
void op_arg(OpCtx& c) {
  const RTensor& x = c.t(0);
  int64_t axis = norm_axis(c, c.attr_i("axis", 0), x.rank());
  bool keep = c.attr_i("keepdims", 1) != 0, last = c.attr_i("select_last_index", 0) != 0;
  int64_t outer = 1, len = x.shape[axis], inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= x.shape[i];
  for (int64_t i = axis + 1; i < x.rank(); ++i) inner *= x.shape[i];
  if (len == 0 && outer * inner != 0) c.error("cannot take the index of the extreme of an empty axis");
  Shape out = x.shape;
  if (keep) out[axis] = 1;
  else out.erase(out.begin() + axis);
  RTensor y = RTensor::alloc(kInt64, out);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      int64_t best = 0;
      double bv = get_f64(x, o * len * inner + in);
      for (int64_t k = 1; k < len; ++k) {
        double v = get_f64(x, (o * len + k) * inner + in);
        bool better = MAX ? (v > bv || (last && v == bv)) : (v < bv || (last && v == bv));
        if (better) { bv = v; best = k; }
      }
      y.data<int64_t>()[o * inner + in] = best;
    }
  c.set(0, y);
}

void op_topk(OpCtx& c) {
  const RTensor& x = c.t(0);
  int64_t k = c.opset >= 10 ? get_i64(c.t_numel(1, 1), 0) : c.attr_i("k", 1);
  int64_t axis = norm_axis(c, c.attr_i("axis", -1), x.rank());
  bool largest = c.attr_i("largest", 1) != 0;
  int64_t outer = 1, len = x.shape[axis], inner = 1;
  c.size_value(k, "k", len);
  for (int64_t i = 0; i < axis; ++i) outer *= x.shape[i];
  for (int64_t i = axis + 1; i < x.rank(); ++i) inner *= x.shape[i];
  Shape out = x.shape;
  out[axis] = k;
  RTensor v = RTensor::alloc(x.dtype, out), idx = RTensor::alloc(kInt64, out);
  std::vector<int64_t> ord(len);
  size_t es = x.elem_size();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      for (int64_t i = 0; i < len; ++i) ord[i] = i;
      auto val = [&](int64_t i) { return get_f64(x, (o * len + i) * inner + in); };
      std::stable_sort(ord.begin(), ord.end(), [&](int64_t a, int64_t b) {
        double va = val(a), vb = val(b);
        return largest ? va > vb : va < vb;
      });
      for (int64_t j = 0; j < k; ++j) {
        int64_t dst = (o * k + j) * inner + in;
        std::memcpy(v.ptr + dst * es, x.ptr + ((o * len + ord[j]) * inner + in) * es, es);
        idx.data<int64_t>()[dst] = ord[j];
      }
    }
  c.set(0, v);
  if (c.n_out() > 1) c.set(1, idx);
}

}  // namespace

// ------------------------------------------------------------------ type/shape rules (exec/infer_rules.h)
namespace rules {

bool rule_reduce(InferCtx& c) {
  const IType* x = c.t(0);
  std::string_view op = c.op();
  int32_t elem = op == "ArgMax" || op == "ArgMin" ? kInt64 : elem0(c);
  if (!x || !x->ranked) { c.out[0] = IType{elem, false, {}}; return true; }
  int64_t r = static_cast<int64_t>(x->dims.size());
  bool keep = c.attr_i("keepdims", 1) != 0;
  std::vector<int64_t> axes;
  bool all = false;
  if (op == "ArgMax" || op == "ArgMin") {
    axes.push_back(c.attr_i("axis", 0));
  } else if (!c.attr_ints("axes", axes)) {
    if (c.in.size() > 1 && c.in_values[1]) {
      if (!c.const_ints(1, axes)) {
        c.out[0] = keep ? ranked(elem, std::vector<IDim>(r, IDim{})) : IType{elem, false, {}};
        return true;
      }
    }
    if (axes.empty()) {
      if (c.attr_i("noop_with_empty_axes", 0)) { c.out[0] = *x; c.out[0].elem = elem; return true; }
      all = true;
    }
  }
  std::vector<bool> red(r, all);
  if (!mark_axes(axes, r, red)) return false;
  std::vector<IDim> dims;
  for (int64_t i = 0; i < r; ++i) {
    if (!red[i]) dims.push_back(x->dims[i]);
    else if (keep) dims.push_back(st(1));
  }
  c.out[0] = ranked(elem, dims);
  return true;
}

}  // namespace rules


// The Reduce* ops: the ReduceOp member after "Reduce", and the type rule (null: none).
#define OFG_REDUCE_OPS(X) \
  X(Sum, rules::rule_reduce) X(Mean, rules::rule_reduce) X(Max, rules::rule_reduce) \
  X(Min, rules::rule_reduce) X(Prod, rules::rule_reduce) X(L1, nullptr) X(L2, nullptr) \
  X(LogSum, rules::rule_reduce) X(LogSumExp, rules::rule_reduce) X(SumSquare, rules::rule_reduce)

void register_reduce_ops(Registry& r) {
#define OFG_ADD_REDUCE(name, rule) r.add("Reduce" #name, op_reduce<R::name>).rule_or_none(rule);
  OFG_REDUCE_OPS(OFG_ADD_REDUCE)
#undef OFG_ADD_REDUCE
  r.add("ArgMax", op_arg<true>).infer(rules::rule_reduce);
  r.add("ArgMin", op_arg<false>).infer(rules::rule_reduce);
  r.add("TopK", op_topk).no_rule();
}

}  // namespace ofg::exec
