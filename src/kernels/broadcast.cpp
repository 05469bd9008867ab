// Numpy broadcasting for binary ops: the shapes are reduced to the fewest dims (size-1 dims
// dropped, dims merged while both operands stay contiguous or stay broadcast), so same-shape,
// scalar, channel ([N,C,H,W] op [C,1,1]) and last-dim broadcasts all end up as a short outer walk
// around one contiguous inner call.
#include "kernels/internal.h"
#include "kernels/int_arith.h"

#include <algorithm>
#include <cstring>

namespace ofg::kernels {

bool broadcast_shape(const int64_t* a_dims, size_t a_rank, const int64_t* b_dims, size_t b_rank,
                     int64_t* out, size_t* out_rank) {
  const size_t r = std::max(a_rank, b_rank);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < r - a_rank ? 1 : a_dims[i - (r - a_rank)];
    const int64_t db = i < r - b_rank ? 1 : b_dims[i - (r - b_rank)];
    if (da == db || db == 1) out[i] = da;
    else if (da == 1) out[i] = db;
    else return false;
  }
  *out_rank = r;
  return true;
}

namespace {

constexpr size_t kMaxRank = kMaxBroadcastRank;

struct Plan {
  size_t rank = 0;  // after simplification
  size_t dim[kMaxRank];
  size_t sa[kMaxRank], sb[kMaxRank];  // element strides, 0 = broadcast
  size_t total = 0;
};

Plan make_plan(const int64_t* a_dims, size_t a_rank, const int64_t* b_dims, size_t b_rank) {
  Plan p;
  int64_t out[kMaxRank];
  size_t r = 0;
  broadcast_shape(a_dims, a_rank, b_dims, b_rank, out, &r);
  size_t sa[kMaxRank], sb[kMaxRank];
  size_t ka = 1, kb = 1;
  for (size_t i = r; i-- > 0;) {
    const int64_t da = i < r - a_rank ? 1 : a_dims[i - (r - a_rank)];
    const int64_t db = i < r - b_rank ? 1 : b_dims[i - (r - b_rank)];
    sa[i] = da == 1 ? 0 : ka;
    sb[i] = db == 1 ? 0 : kb;
    ka *= static_cast<size_t>(da);
    kb *= static_cast<size_t>(db);
  }
  p.total = 1;
  for (size_t i = 0; i < r; ++i) p.total *= static_cast<size_t>(out[i]);
  for (size_t i = 0; i < r; ++i) {
    const size_t d = static_cast<size_t>(out[i]);
    if (d == 1) continue;
    if (p.rank > 0) {
      const size_t j = p.rank - 1;
      // Merge into the previous dim when both operands continue it seamlessly. j indexes the
      // simplified dims, so the strides to compare are the plan's (size-1 dims were skipped).
      if (p.sa[j] == sa[i] * d && p.sb[j] == sb[i] * d) {
        p.dim[j] *= d;
        p.sa[j] = sa[i];
        p.sb[j] = sb[i];
        continue;
      }
    }
    p.dim[p.rank] = d;
    p.sa[p.rank] = sa[i];
    p.sb[p.rank] = sb[i];
    ++p.rank;
  }
  return p;
}

// Calls inner(a, sa, b, sb, y, n) on the contiguous last dim for output rows [r0, r1) (a row
// is one run of the last dim).
template <class T, class Inner>
void walk_rows(const Plan& p, const T* a, const T* b, T* y, size_t r0, size_t r1, Inner& inner) {
  const size_t last = p.rank - 1;
  const size_t n = p.dim[last];
  size_t idx[kMaxRank] = {};
  size_t oa = 0, ob = 0;
  for (size_t d = last, r = r0; d-- > 0;) {  // the outer index of row r0
    idx[d] = r % p.dim[d];
    r /= p.dim[d];
    oa += idx[d] * p.sa[d];
    ob += idx[d] * p.sb[d];
  }
  for (size_t row = r0; row < r1; ++row) {
    inner(a + oa, p.sa[last], b + ob, p.sb[last], y + row * n, n);
    for (size_t d = last; d-- > 0;) {
      oa += p.sa[d];
      ob += p.sb[d];
      if (++idx[d] < p.dim[d]) break;
      oa -= p.sa[d] * p.dim[d];
      ob -= p.sb[d] * p.dim[d];
      idx[d] = 0;
    }
  }
}

// Walks the outer dims and calls inner(a, sa, b, sb, y, n) on the contiguous last dim. With
// `split` (the float ops, which take the time), large outputs are split between threads: by rows,
// or, for a single row, into ranges of it.
template <bool split, class T, class Inner>
void walk(const Plan& p, const T* a, const T* b, T* y, Inner inner) {
  if (p.total == 0) return;
  if (p.rank == 0) {
    inner(a, 0, b, 0, y, 1);
    return;
  }
  const size_t last = p.rank - 1;
  const size_t n = p.dim[last], rows = p.total / n;
  if (!split) {
    walk_rows(p, a, b, y, 0, rows, inner);
    return;
  }
  if (rows == 1) {
    const size_t sa = p.sa[last], sb = p.sb[last];
    parallel_ranges(n, kElementGrain, kElementsPerPart,
                    [&](size_t lo, size_t hi) { inner(a + lo * sa, sa, b + lo * sb, sb, y + lo, hi - lo); });
    return;
  }
  parallel_ranges(rows, 1, plane_grain(n), [&](size_t lo, size_t hi) { walk_rows(p, a, b, y, lo, hi, inner); });
}

template <class T>
void binary_int(BinaryOp op, const T* a, const int64_t* a_dims, size_t a_rank, const T* b,
                const int64_t* b_dims, size_t b_rank, T* y) {
  const Plan p = make_plan(a_dims, a_rank, b_dims, b_rank);
  walk<false>(p, a, b, y, [op](const T* a, size_t sa, const T* b, size_t sb, T* y, size_t n) {
    for (size_t i = 0; i < n; ++i) y[i] = int_binary(op, a[i * sa], b[i * sb]);
  });
}

}  // namespace

void binary_f32_with(const KernelTable& t, BinaryOp op, const float* a, const int64_t* a_dims,
                     size_t a_rank, const float* b, const int64_t* b_dims, size_t b_rank,
                     float* y) {
  const Plan p = make_plan(a_dims, a_rank, b_dims, b_rank);
  walk<true>(p, a, b, y, [&t, op](const float* a, size_t sa, const float* b, size_t sb, float* y, size_t n) {
    if (sa && sb) t.binary_vv(op, a, b, y, n);
    else if (sa) t.binary_vs(op, a, *b, y, n);
    else if (sb) t.binary_sv(op, *a, b, y, n);
    else t.binary_vs(op, a, *b, y, n);  // n == 1 only
  });
}

void binary_i32(BinaryOp op, const int32_t* a, const int64_t* a_dims, size_t a_rank,
                const int32_t* b, const int64_t* b_dims, size_t b_rank, int32_t* y) {
  binary_int(op, a, a_dims, a_rank, b, b_dims, b_rank, y);
}
void binary_i64(BinaryOp op, const int64_t* a, const int64_t* a_dims, size_t a_rank,
                const int64_t* b, const int64_t* b_dims, size_t b_rank, int64_t* y) {
  binary_int(op, a, a_dims, a_rank, b, b_dims, b_rank, y);
}

}  // namespace ofg::kernels
