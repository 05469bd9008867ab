// N-D transpose driver. After dropping size-1 dims and merging axes that stay adjacent, any
// permutation that moves the innermost input axis becomes a set of 2-D tile transposes between
// that axis and the input axis that becomes innermost in the output (table.transpose2d); a
// permutation that keeps it innermost becomes row copies.
#include "kernels/internal.h"

#include <cstring>

namespace ofg::kernels {

namespace {
constexpr size_t kMaxRank = 8;

struct Shape {
  size_t rank = 0;
  size_t dim[kMaxRank];   // input dims
  size_t perm[kMaxRank];  // output axis i reads input axis perm[i]
};

Shape simplify(const int64_t* dims, const size_t* perm, size_t rank) {
  // Drop size-1 input axes, renumbering the rest.
  size_t map[kMaxRank];
  Shape s0;
  for (size_t i = 0; i < rank; ++i) {
    if (dims[i] == 1) {
      map[i] = SIZE_MAX;
    } else {
      map[i] = s0.rank;
      s0.dim[s0.rank++] = static_cast<size_t>(dims[i]);
    }
  }
  size_t pr = 0;
  for (size_t i = 0; i < rank; ++i)
    if (map[perm[i]] != SIZE_MAX) s0.perm[pr++] = map[perm[i]];
  // Merge runs of output axes that read consecutive input axes.
  bool head[kMaxRank];  // input axis starts a merged group
  for (size_t i = 0; i < s0.rank; ++i) head[i] = true;
  for (size_t i = 1; i < s0.rank; ++i)
    if (s0.perm[i] == s0.perm[i - 1] + 1) head[s0.perm[i]] = false;
  size_t group_of[kMaxRank];
  Shape s;
  for (size_t i = 0; i < s0.rank; ++i) {
    if (head[i]) s.dim[s.rank++] = s0.dim[i];
    else s.dim[s.rank - 1] *= s0.dim[i];
    group_of[i] = s.rank - 1;
  }
  size_t k = 0;
  for (size_t i = 0; i < s0.rank; ++i)
    if (head[s0.perm[i]]) s.perm[k++] = group_of[s0.perm[i]];
  return s;
}

// Calls body(input offset, output offset) for every index of the n walked axes (the last one
// fastest); axis d has dim[d] steps of in_step[d] / out_step[d] elements.
template <class F>
void walk(size_t n, const size_t* dim, const size_t* in_step, const size_t* out_step, F&& body) {
  size_t idx[kMaxRank] = {}, oi = 0, oo = 0;
  for (;;) {
    body(oi, oo);
    size_t d = n;
    for (; d-- > 0;) {
      oi += in_step[d];
      oo += out_step[d];
      if (++idx[d] < dim[d]) break;
      oi -= in_step[d] * dim[d];
      oo -= out_step[d] * dim[d];
      idx[d] = 0;
    }
    if (d == SIZE_MAX) return;
  }
}

}  // namespace

void transpose_with(const KernelTable& t, const void* x, void* y, size_t elem_size,
                    const int64_t* dims, const size_t* perm, size_t rank) {
  size_t total = 1;
  for (size_t i = 0; i < rank; ++i) total *= static_cast<size_t>(dims[i]);
  if (total == 0) return;
  const Shape s = simplify(dims, perm, rank);
  const auto* src = static_cast<const unsigned char*>(x);
  auto* dst = static_cast<unsigned char*>(y);
  if (s.rank <= 1) {
    std::memcpy(dst, src, total * elem_size);
    return;
  }
  const size_t r = s.rank;
  size_t in_stride[kMaxRank], out_stride[kMaxRank], out_dim[kMaxRank];
  in_stride[r - 1] = 1;
  for (size_t i = r - 1; i-- > 0;) in_stride[i] = in_stride[i + 1] * s.dim[i + 1];
  for (size_t i = 0; i < r; ++i) out_dim[i] = s.dim[s.perm[i]];
  out_stride[r - 1] = 1;
  for (size_t i = r - 1; i-- > 0;) out_stride[i] = out_stride[i + 1] * out_dim[i + 1];
  // in_of_out[i]: input stride of output axis i.
  size_t walk_dim[kMaxRank], walk_in[kMaxRank], walk_out[kMaxRank], nwalk = 0;
  if (s.perm[r - 1] == r - 1) {
    // The innermost axis is kept: copy rows of it (merging guarantees perm[r-2] != r-2).
    for (size_t i = 0; i + 1 < r; ++i) {
      walk_dim[nwalk] = out_dim[i];
      walk_in[nwalk] = in_stride[s.perm[i]];
      walk_out[nwalk] = out_stride[i];
      ++nwalk;
    }
    const size_t row = s.dim[r - 1] * elem_size;
    walk(nwalk, walk_dim, walk_in, walk_out,
         [&](size_t oi, size_t oo) { std::memcpy(dst + oo * elem_size, src + oi * elem_size, row); });
    return;
  }
  // Tile between input axis k (innermost in the output) and input axis r-1 (output axis j).
  const size_t k = s.perm[r - 1];
  size_t j = 0;
  while (s.perm[j] != r - 1) ++j;
  for (size_t i = 0; i < r; ++i) {
    if (i == j || i == r - 1) continue;
    walk_dim[nwalk] = out_dim[i];
    walk_in[nwalk] = in_stride[s.perm[i]];
    walk_out[nwalk] = out_stride[i];
    ++nwalk;
  }
  walk(nwalk, walk_dim, walk_in, walk_out, [&](size_t oi, size_t oo) {
    t.transpose2d(elem_size, src + oi * elem_size, in_stride[k], dst + oo * elem_size, out_stride[j], s.dim[k],
                  s.dim[r - 1]);
  });
}

void transpose_reference(const void* x, void* y, size_t elem_size, const int64_t* dims,
                         const size_t* perm, size_t rank) {
  size_t total = 1;
  for (size_t i = 0; i < rank; ++i) total *= static_cast<size_t>(dims[i]);
  size_t in_stride[kMaxRank];
  size_t acc = 1;
  for (size_t i = rank; i-- > 0;) {
    in_stride[i] = acc;
    acc *= static_cast<size_t>(dims[i]);
  }
  size_t idx[kMaxRank] = {};
  const auto* src = static_cast<const unsigned char*>(x);
  auto* dst = static_cast<unsigned char*>(y);
  for (size_t o = 0; o < total; ++o) {
    size_t off = 0;
    for (size_t i = 0; i < rank; ++i) off += idx[i] * in_stride[perm[i]];
    std::memcpy(dst + o * elem_size, src + off * elem_size, elem_size);
    for (size_t i = rank; i-- > 0;) {
      if (++idx[i] < static_cast<size_t>(dims[perm[i]])) break;
      idx[i] = 0;
    }
  }
}

}  // namespace ofg::kernels
