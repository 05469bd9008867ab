// Integer convolution and matrix product on the kernel table's exact igemm (see int_gemm.h).
#include "exec/ops/int_gemm.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "exec/buffer_cache.h"
#include "exec/ops/util.h"

namespace ofg::exec {

namespace {

int32_t int8_value(uint8_t v, bool is_signed) {
  return is_signed ? static_cast<int32_t>(static_cast<int8_t>(v)) : static_cast<int32_t>(v);
}

int32_t saturate_i64(int64_t v) {
  return static_cast<int32_t>(std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(),
                                                  std::numeric_limits<int32_t>::max()));
}

// Calls row(ci, r, hshift, wshift) for each im2col row of a 2-D convolution: channel ci, kernel
// tap (kh, kw) reading input row oh + hshift (times the stride) and column ow + wshift; r[o] is
// the row's byte for flat output position o (j0 <= o < j0 + nb) of the block in dst.
template <class Row>
void for_each_row_2d(const IntConvGeom& g, size_t Cg, size_t j0, size_t nb, uint8_t* dst, Row&& row) {
  const int64_t KH = g.kernel[0], KW = g.kernel[1];
  for (size_t ci = 0; ci < Cg; ++ci)
    for (int64_t kh = 0; kh < KH; ++kh)
      for (int64_t kw = 0; kw < KW; ++kw)
        row(ci, dst + ((static_cast<int64_t>(ci) * KH + kh) * KW + kw) * static_cast<int64_t>(nb) - static_cast<int64_t>(j0),
            kh * g.dilation[0] - g.pad_begin[0], kw * g.dilation[1] - g.pad_begin[1]);
}

// The im2col matrix of one group (row = channel * kn + kernel position), columns [j0, j0 + nb) (flat
// output positions), into dst (ldb = nb). A position in the padding holds the zero point byte,
// which contributes nothing once it is subtracted. Each row is walked in segments along the last
// output axis, with the leading output coordinates kept as an odometer (no division per segment).
// 2-D with an output as wide as the plane it reads (stride 1 "same", or a phase of stride 2
// below): an im2col row is the plane (IH x W) shifted by hshift rows and wshift columns, so one
// copy of the rows in range, then the columns that wrapped into the neighbouring row are set to
// the padding. row[o] for the flat outputs o in [b0, b1) of an OH x W output.
void shifted_plane_row(const uint8_t* plane, int64_t IH, int64_t W, int64_t OH, int64_t hshift, int64_t wshift,
                       uint8_t pad, uint8_t* row, int64_t b0, int64_t b1) {
  // Output rows oh with plane row oh + hshift inside [0, IH).
  const int64_t lo = std::clamp<int64_t>(std::max<int64_t>(0, -hshift) * W, b0, b1);
  const int64_t hi = std::clamp<int64_t>(std::min<int64_t>(OH, IH - hshift) * W, lo, b1);
  std::memset(row + b0, pad, static_cast<size_t>(lo - b0));
  // Output o reads plane element o + shift; the copy stays inside the plane (what it leaves
  // out of [lo, hi) are wrapped columns, set below).
  const int64_t shift = hshift * W + wshift;
  const int64_t s0 = std::max(lo, -shift), s1 = std::min(hi, IH * W - shift);
  if (s1 > s0) std::memcpy(row + s0, plane + s0 + shift, static_cast<size_t>(s1 - s0));
  std::memset(row + hi, pad, static_cast<size_t>(b1 - hi));
  // Columns ow with ow + wshift outside [0, W) read the neighbouring row: padding instead.
  const int64_t c0 = std::clamp<int64_t>(wshift < 0 ? 0 : W - wshift, 0, W);
  const int64_t c1 = std::clamp<int64_t>(wshift < 0 ? -wshift : W, 0, W);
  if (c0 >= c1) return;
  for (int64_t base = lo / W * W; base < hi; base += W)
    for (int64_t o = std::max(base + c0, lo); o < std::min(base + c1, hi); ++o) row[o] = pad;
}

bool im2col_shifted_plane(const IntConvGeom& g, const uint8_t* x, uint8_t pad, size_t Cg, size_t j0, size_t nb,
                          uint8_t* dst) {
  if (g.in.size() != 2 || g.stride[0] != 1 || g.stride[1] != 1 || g.out[1] != g.in[1]) return false;
  const int64_t IH = g.in[0], W = g.in[1], OH = g.out[0];
  const int64_t b0 = static_cast<int64_t>(j0), b1 = b0 + static_cast<int64_t>(nb);
  for_each_row_2d(g, Cg, j0, nb, dst, [&](size_t ci, uint8_t* row, int64_t hshift, int64_t wshift) {
    shifted_plane_row(x + static_cast<int64_t>(ci) * IH * W, IH, W, OH, hshift, wshift, pad, row, b0, b1);
  });
  return true;
}

// dst[o] = src[o * 2] for o < n. Little-endian targets take 8 outputs from two 8-byte words at a
// time (the even bytes gathered by shifts and masks; the compiler does not vectorise the strided
// loop): a block reads up to src[2 o + 15], so it runs while that is at most the last byte read.
void copy_every_other(const uint8_t* src, int64_t n, uint8_t* dst) {
  int64_t o = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  auto even_bytes = [](uint64_t v) {  // bytes 0, 2, 4, 6 of v as a 32-bit word
    v &= 0x00FF00FF00FF00FFull;
    v = (v | (v >> 8)) & 0x0000FFFF0000FFFFull;
    return static_cast<uint32_t>(v | (v >> 16));
  };
  for (; o + 9 <= n; o += 8) {
    uint64_t w[2];
    std::memcpy(w, src + 2 * o, sizeof(w));
    const uint64_t out = even_bytes(w[0]) | static_cast<uint64_t>(even_bytes(w[1])) << 32;
    std::memcpy(dst + o, &out, sizeof(out));
  }
#endif
  for (; o < n; ++o) dst[o] = src[2 * o];
}

// 2-D, stride 2, even input width with an output half as wide (the usual strided 3x3): each
// channel plane is split once into its four phases (even/odd rows x even/odd columns, each as
// wide as the output); input (2 oh + hs, 2 ow + ws) is element (oh + floor(hs / 2), ow +
// floor(ws / 2)) of phase (hs mod 2, ws mod 2), so every im2col row is a shifted phase plane.
bool im2col_phases(const IntConvGeom& g, const uint8_t* x, uint8_t pad, size_t Cg, size_t j0, size_t nb,
                   uint8_t* dst) {
  if (g.in.size() != 2 || g.stride[0] != 2 || g.stride[1] != 2 || g.in[1] % 2 != 0 || g.out[1] * 2 != g.in[1])
    return false;
  const int64_t IH = g.in[0], IW = g.in[1], OW = g.out[1], OH = g.out[0];
  const int64_t rows_of[2] = {(IH + 1) / 2, IH / 2};  // rows of the even and odd phases
  const int64_t phase_n = rows_of[0] * OW;             // elements per phase plane (odd ones use fewer)
  const ScratchBlock phases(scratch_elems(static_cast<int64_t>(Cg) * 4 * phase_n, 1));
  auto phase = [&](size_t ci, int64_t a, int64_t b) { return phases.as<uint8_t>() + ((static_cast<int64_t>(ci) * 2 + a) * 2 + b) * phase_n; };
  for (size_t ci = 0; ci < Cg; ++ci)
    for (int64_t r = 0; r < IH; ++r) {
      const uint8_t* src = x + (static_cast<int64_t>(ci) * IH + r) * IW;
      copy_every_other(src, OW, phase(ci, r % 2, 0) + r / 2 * OW);
      copy_every_other(src + 1, OW, phase(ci, r % 2, 1) + r / 2 * OW);
    }
  const int64_t b0 = static_cast<int64_t>(j0), b1 = b0 + static_cast<int64_t>(nb);
  for_each_row_2d(g, Cg, j0, nb, dst, [&](size_t ci, uint8_t* row, int64_t hshift, int64_t wshift) {
    const int64_t a = hshift & 1, b = wshift & 1;  // two's complement: the parity also for negative shifts
    shifted_plane_row(phase(ci, a, b), rows_of[a], OW, OH, (hshift - a) / 2, (wshift - b) / 2, pad, row, b0, b1);
  });
  return true;
}

// Any other 2-D geometry (strided, narrow outputs): per im2col row, one segment per output row
// with the padding written inline (segments are short: 12 bytes at 12x12 outputs, where calls to
// memset and the N-d odometer below cost more than the copy).
bool im2col_2d(const IntConvGeom& g, const uint8_t* x, uint8_t pad, size_t Cg, size_t j0, size_t nb, uint8_t* dst) {
  if (g.in.size() != 2) return false;
  const int64_t IH = g.in[0], IW = g.in[1], OW = g.out[1];
  const int64_t SH = g.stride[0], SW = g.stride[1];
  const int64_t b0 = static_cast<int64_t>(j0), b1 = b0 + static_cast<int64_t>(nb);
  for_each_row_2d(g, Cg, j0, nb, dst, [&](size_t ci, uint8_t* row, int64_t hshift, int64_t wshift) {
    // Output columns [lo, hi) read input columns ow * SW + wshift inside [0, IW).
    const int64_t lo = wshift >= 0 ? 0 : std::min<int64_t>(OW, (-wshift + SW - 1) / SW);
    const int64_t hi = IW - wshift <= 0 ? lo : std::max(lo, std::min<int64_t>(OW, (IW - wshift - 1) / SW + 1));
    const int64_t plane = static_cast<int64_t>(ci) * IH * IW;
    // Output rows oh from the block's first; columns [s, e) of each lie in the block.
    for (int64_t oh = b0 / OW, s = b0 % OW; oh * OW < b1; ++oh, s = 0) {
      const int64_t e = std::min(OW, b1 - oh * OW);
      uint8_t* seg = row + oh * OW;  // seg[ow]
      const int64_t ih = oh * SH + hshift;
      const bool inside = ih >= 0 && ih < IH;
      const int64_t l = inside ? std::clamp(lo, s, e) : e, h = inside ? std::clamp(hi, l, e) : e;
      for (int64_t ow = s; ow < l; ++ow) seg[ow] = pad;
      if (h > l) {
        const uint8_t* src = x + plane + ih * IW + l * SW + wshift;  // input of output column l
        if (SW == 1) std::memcpy(seg + l, src, static_cast<size_t>(h - l));
        else if (SW == 2) copy_every_other(src, h - l, seg + l);
        else
          for (int64_t ow = l; ow < h; ++ow) seg[ow] = src[(ow - l) * SW];
      }
      for (int64_t ow = h; ow < e; ++ow) seg[ow] = pad;
    }
  });
  return true;
}

void im2col(const IntConvGeom& g, const uint8_t* x, uint8_t pad, size_t Cg, size_t j0, size_t nb, uint8_t* dst) {
  if (im2col_shifted_plane(g, x, pad, Cg, j0, nb, dst) || im2col_phases(g, x, pad, Cg, j0, nb, dst) ||
      im2col_2d(g, x, pad, Cg, j0, nb, dst))
    return;
  const size_t r = g.in.size();
  const auto ist = strides_of(g.in), kst = strides_of(g.kernel);
  const int64_t in_n = shape_numel(g.in), kn = shape_numel(g.kernel);
  const int64_t OW = g.out[r - 1], IW = g.in[r - 1], SW = g.stride[r - 1];
  std::vector<int64_t> koff(r), od(r);
  for (size_t ci = 0; ci < Cg; ++ci)
    for (int64_t q = 0; q < kn; ++q) {
      uint8_t* row = dst + (ci * kn + q) * nb;
      const uint8_t* xc = x + ci * in_n;
      for (size_t a = 0; a < r; ++a) koff[a] = ((q / kst[a]) % g.kernel[a]) * g.dilation[a] - g.pad_begin[a];
      // Output columns ow in [lo, hi) read input column ow * SW + koff inside [0, IW).
      const int64_t wshift = koff[r - 1];
      const int64_t lo = wshift >= 0 ? 0 : std::min<int64_t>(OW, (-wshift + SW - 1) / SW);
      const int64_t hi = IW - wshift <= 0 ? lo : std::max(lo, std::min<int64_t>(OW, (IW - wshift - 1) / SW + 1));
      int64_t idx = static_cast<int64_t>(j0) / OW;
      for (size_t a = r - 1; a-- > 0;) {
        od[a] = idx % g.out[a];
        idx /= g.out[a];
      }
      int64_t ow0 = static_cast<int64_t>(j0) % OW;
      for (size_t o = 0; o < nb;) {
        const int64_t end = std::min<int64_t>(OW, ow0 + static_cast<int64_t>(nb - o));
        uint8_t* seg = row + o - ow0;  // seg[ow] is output column ow of this segment
        int64_t off = wshift;
        bool inside = true;
        for (size_t a = 0; a + 1 < r; ++a) {
          const int64_t ia = od[a] * g.stride[a] + koff[a];
          inside = inside && ia >= 0 && ia < g.in[a];
          off += ia * ist[a];
        }
        const int64_t l = inside ? std::clamp(lo, ow0, end) : end, h = inside ? std::clamp(hi, l, end) : end;
        std::memset(seg + ow0, pad, static_cast<size_t>(l - ow0));
        if (SW == 1) {
          if (h > l) std::memcpy(seg + l, xc + off + l, static_cast<size_t>(h - l));
        } else {
          for (int64_t ow = l; ow < h; ++ow) seg[ow] = xc[off + ow * SW];
        }
        std::memset(seg + h, pad, static_cast<size_t>(end - h));
        o += static_cast<size_t>(end - ow0);
        ow0 = 0;
        for (size_t a = r - 1; a-- > 0;) {  // next output row
          if (++od[a] < g.out[a]) break;
          od[a] = 0;
        }
      }
    }
}

// dst[j] = x[j] - zero as int16 for j < n. Blocks of 16 with a separate loop per signedness, so
// that the compiler vectorises them at -O2 (its cheap cost model wants a known trip count, and
// no run-time alias check: hence __restrict, as a uint8_t pointer may alias anything).
void widen_shifted(const uint8_t* __restrict x, int64_t n, bool is_signed, int32_t zero, int16_t* __restrict dst) {
  const int16_t z = static_cast<int16_t>(zero);
  int64_t j = 0;
  if (is_signed) {
    for (; j + 16 <= n; j += 16)
      for (int u = 0; u < 16; ++u) dst[j + u] = static_cast<int16_t>(static_cast<int8_t>(x[j + u]) - z);
  } else {
    for (; j + 16 <= n; j += 16)
      for (int u = 0; u < 16; ++u) dst[j + u] = static_cast<int16_t>(x[j + u] - z);
  }
  for (; j < n; ++j) dst[j] = static_cast<int16_t>(int8_value(x[j], is_signed) - zero);
}

// Depthwise 2-D (one input and one output channel per group) with small padding: each tap is a
// multiply-add of a shifted row of the zero-shifted, zero-padded int16 plane.
// The sums go to y, or to sink when it is set (int_gemm.h).
bool depthwise_2d(const IntConvGeom& g, IntSpan x, int32_t xz, IntSpan w, const std::vector<int32_t>& wz,
                  int32_t* y, const IntSumSink* sink) {
  if (g.in.size() != 2 || g.C != g.group || g.OC != g.group) return false;
  const int64_t KH = g.kernel[0], KW = g.kernel[1], kn = KH * KW;
  int64_t ext[2];
  for (int a = 0; a < 2; ++a) {
    const int64_t need = (g.out[a] - 1) * g.stride[a] + (g.kernel[a] - 1) * g.dilation[a] + 1;
    if (g.out[a] < 1 || g.pad_begin[a] > 16 || need > g.in[a] + g.pad_begin[a] + 16) return false;
    ext[a] = std::max(need, g.in[a] + g.pad_begin[a]);
  }
  if (kn > static_cast<int64_t>(kIntGemmMaxK)) return false;
  const int64_t H = g.in[0], W = g.in[1], OH = g.out[0], OW = g.out[1], Hp = ext[0], Wp = ext[1];
  const int64_t sh = g.stride[0], sw = g.stride[1], dh = g.dilation[0], dw = g.dilation[1];
  // kSlack zeros after the plane: the stride-2 rows below ask the kernel for a few outputs past
  // the last column so that all the real ones take its vector loop.
  constexpr int64_t kSlack = 64;
  // Stride 1: the output rows of a channel are one kernel call over the plane read as a single
  // row of width Wp (output (oh, ow) at oh * Wp + ow; the Wp - OW columns between rows are
  // computed and dropped), so the kernel's scalar tail runs once per channel, not once per row.
  const bool flat = sh == 1 && sw == 1;
  const int64_t row_call = (OW + 7) / 8 * 8 + 1;  // stride > 1: outputs asked per row (see kSlack)
  if (!flat && (KW - 1) * dw + (row_call - 1) * sw >= Wp + kSlack) return false;  // the last read stays in the slack
  const kernels::KernelTable& kt = kernels::active_table();
  // Channels [b, e) of all images (index n * C + c), each on its own: threads take ranges of them,
  // each with its own scratch.
  auto channels = [&](size_t b, size_t e) {
    std::vector<int16_t> plane(scratch_elems(Hp * Wp + kSlack, sizeof(int16_t)), 0);
    std::vector<int16_t> taps(static_cast<size_t>(kn));
    std::vector<const int16_t*> rows(static_cast<size_t>(kn));
    // The kernel's outputs; with a sink, the channel's rows are gathered at its start.
    std::vector<int32_t> ybuf(scratch_elems(flat ? OH * Wp : (sink ? OH * OW + row_call : row_call), sizeof(int32_t)));
    for (size_t nc = b; nc < e; ++nc) {
      const int64_t c = static_cast<int64_t>(nc) % g.C;
      const uint8_t* xc = x.data + static_cast<int64_t>(nc) * H * W;
      for (int64_t i = 0; i < H; ++i)
        widen_shifted(xc + i * W, W, x.is_signed, xz, plane.data() + (i + g.pad_begin[0]) * Wp + g.pad_begin[1]);
      for (int64_t q = 0; q < kn; ++q)
        taps[static_cast<size_t>(q)] = static_cast<int16_t>(int8_value(w.data[c * kn + q], w.is_signed) - wz[static_cast<size_t>(c)]);
      int32_t* yc = sink ? nullptr : y + static_cast<int64_t>(nc) * OH * OW;
      // Row oh of the channel's sums; a sink gets the whole plane in one call (rows are short, and
      // a requantization's vector loop would leave a scalar tail on each).
      auto finish_row = [&](int64_t oh, const int32_t* sums) {
        int32_t* dst = sink ? ybuf.data() + oh * OW : yc + oh * OW;
        if (dst != sums) std::memmove(dst, sums, OW * sizeof(int32_t));
        if (sink && oh + 1 == OH) (*sink)(static_cast<int64_t>(nc), 0, ybuf.data(), static_cast<size_t>(OH * OW));
      };
      if (flat) {
        for (int64_t kh = 0; kh < KH; ++kh)
          for (int64_t kw = 0; kw < KW; ++kw) rows[static_cast<size_t>(kh * KW + kw)] = plane.data() + kh * dh * Wp + kw * dw;
        kt.dw_row_i16(rows.data(), taps.data(), static_cast<size_t>(kn), 1, static_cast<size_t>((OH - 1) * Wp + OW),
                      ybuf.data());
        for (int64_t oh = 0; oh < OH; ++oh) finish_row(oh, ybuf.data() + oh * Wp);
        continue;
      }
      for (int64_t oh = 0; oh < OH; ++oh) {
        for (int64_t kh = 0; kh < KH; ++kh)
          for (int64_t kw = 0; kw < KW; ++kw)
            rows[static_cast<size_t>(kh * KW + kw)] = plane.data() + (oh * sh + kh * dh) * Wp + kw * dw;
        int32_t* row_out = ybuf.data() + (sink ? OH * OW : 0);
        kt.dw_row_i16(rows.data(), taps.data(), static_cast<size_t>(kn), static_cast<size_t>(sw),
                      static_cast<size_t>(row_call), row_out);
        finish_row(oh, row_out);
      }
    }
  };
  kernels::parallel_ranges(static_cast<size_t>(g.N * g.C), 1, kernels::plane_grain(static_cast<size_t>(OH * OW * kn)),
                           channels);
  return true;
}

}  // namespace

IntSpan int_span(const RTensor& t) {
  if (t.dtype != kUint8 && t.dtype != kInt8)
    fail(Status::kUnsupported, std::string("integer matmul / convolution of ") + dtype_name(t.dtype) + " (uint8 or int8 only)");
  return {t.data<uint8_t>(), t.dtype == kInt8};
}

void int_gemm(size_t M, size_t N, size_t K, IntSpan A, size_t lda, const int32_t* za, IntSpan B, size_t ldb,
              const int32_t* zb, int32_t* C, size_t ldc) {
  const kernels::KernelTable& t = kernels::active_table();
  if (K <= kIntGemmMaxK) {
    t.igemm(M, N, K, A.data, lda, A.is_signed, za, B.data, ldb, B.is_signed, zb, C, ldc);
    return;
  }
  std::vector<int64_t> sum(scratch_elems(static_cast<int64_t>(M * N), sizeof(int64_t)), 0);
  std::vector<int32_t> part(M * N);
  for (size_t p0 = 0; p0 < K; p0 += kIntGemmMaxK) {
    t.igemm(M, N, std::min(kIntGemmMaxK, K - p0), A.data + p0, lda, A.is_signed, za, B.data + p0 * ldb, ldb,
            B.is_signed, zb, part.data(), N);
    for (size_t i = 0; i < M * N; ++i) sum[i] += part[i];
  }
  for (size_t i = 0; i < M; ++i)
    for (size_t j = 0; j < N; ++j) C[i * ldc + j] = saturate_i64(sum[i * N + j]);
}

void int_gemm_threads(size_t M, size_t N, size_t K, IntSpan A, size_t lda, const int32_t* za, IntSpan B, size_t ldb,
                      const int32_t* zb, int32_t* C, size_t ldc) {
  if (kernels::threads() == 1 || K > kIntGemmMaxK || M * N * K < kernels::gemm_parallel_macs()) {
    int_gemm(M, N, K, A, lda, za, B, ldb, zb, C, ldc);
    return;
  }
  // Exact integer sums: any split gives the same values. Threads take ranges of the longer side.
  if (N >= M)
    kernels::parallel_ranges(N, 16, 16, [&](size_t j0, size_t j1) {
      int_gemm(M, j1 - j0, K, A, lda, za, {B.data + j0, B.is_signed}, ldb, zb + j0, C + j0, ldc);
    });
  else
    kernels::parallel_ranges(M, 4, 4, [&](size_t i0, size_t i1) {
      int_gemm(i1 - i0, N, K, {A.data + i0 * lda, A.is_signed}, lda, za + i0, B, ldb, zb, C + i0 * ldc, ldc);
    });
}

namespace {

void int_conv_run(const IntConvGeom& g, IntSpan x, int32_t xz, IntSpan w, const std::vector<int32_t>& wz, int32_t* y,
                  const IntSumSink* sink) {
  const int64_t in_n = shape_numel(g.in), out_n = shape_numel(g.out), kn = shape_numel(g.kernel);
  if (out_n == 0 || g.N == 0 || g.OC == 0) return;
  if (depthwise_2d(g, x, xz, w, wz, y, sink)) return;
  const int64_t Cg = g.C / g.group, OCg = g.OC / g.group, K = Cg * kn;
  bool pointwise = true;
  for (size_t a = 0; a < g.in.size(); ++a)
    pointwise = pointwise && g.kernel[a] == 1 && g.stride[a] == 1 && g.pad_begin[a] == 0 && g.out[a] == g.in[a];
  // Column blocks: an im2col block of at most 4 MiB, so that large images need no K x HW buffer
  // (a ResNet 3x3 conv of 64 channels on 56x56, 1.8 MiB, ran 15% slower in two blocks of 1 MiB
  // than in one), and for a sink about 1 MiB of sums, handed over while they are in cache.
  int64_t nb_max = out_n;
  if (!pointwise) nb_max = std::min(nb_max, std::max<int64_t>(256, (1 << 22) / std::max<int64_t>(1, K)));
  if (sink) nb_max = std::min(nb_max, std::max<int64_t>(256, (1 << 18) / std::max<int64_t>(1, OCg)));
  std::vector<int32_t> zb(static_cast<size_t>(nb_max), xz);
  const uint8_t pad = static_cast<uint8_t>(xz);
  // Threads take ranges of output columns, each with its own buffers (the integer sums are exact,
  // so any split gives the same values); ranges of at least gemm_parallel_macs().
  const size_t col_macs = static_cast<size_t>(OCg * K);
  const size_t min_cols = std::max<size_t>(64, kernels::gemm_parallel_macs() / std::max<size_t>(1, col_macs));
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t gi = 0; gi < g.group; ++gi) {
      const uint8_t* xg = x.data + (n * g.C + gi * Cg) * in_n;
      const IntSpan wg{w.data + gi * OCg * K, w.is_signed};
      const int32_t* za = wz.data() + gi * OCg;
      int32_t* yg = sink ? nullptr : y + (n * g.OC + gi * OCg) * out_n;
      if (pointwise && !sink) {
        int_gemm_threads(OCg, out_n, K, wg, K, za, {xg, x.is_signed}, in_n, zb.data(), yg, out_n);
        continue;
      }
      kernels::parallel_ranges(static_cast<size_t>(out_n), 64, min_cols, [&](size_t c0, size_t c1) {
        const int64_t nb_part = std::min<int64_t>(nb_max, static_cast<int64_t>(c1 - c0));
        // Not value-initialised: im2col writes every byte of the columns it hands to int_gemm,
        // and int_gemm every sum.
        const ScratchBlock cols_block(pointwise ? 0 : scratch_elems(K * nb_part, 1));
        const ScratchBlock sums_block(sink ? scratch_elems(OCg * nb_part, sizeof(int32_t)) * sizeof(int32_t) : 0);
        uint8_t* cols = cols_block.as<uint8_t>();
        int32_t* sums = sums_block.as<int32_t>();
        for (int64_t j0 = static_cast<int64_t>(c0); j0 < static_cast<int64_t>(c1); j0 += nb_part) {
          const int64_t nb = std::min<int64_t>(nb_part, static_cast<int64_t>(c1) - j0);
          IntSpan b{xg + j0, x.is_signed};
          int64_t ldb = in_n;
          if (!pointwise) {
            im2col(g, xg, pad, Cg, j0, nb, cols);
            b.data = cols;
            ldb = nb;
          }
          int32_t* c = sink ? sums : yg + j0;
          const int64_t ldc = sink ? nb : out_n;
          int_gemm(OCg, nb, K, wg, K, za, b, ldb, zb.data(), c, ldc);
          if (sink)
            for (int64_t r = 0; r < OCg; ++r) (*sink)(n * g.OC + gi * OCg + r, j0, c + r * nb, static_cast<size_t>(nb));
        }
      });
    }
}

}  // namespace

void int_conv_compute(const IntConvGeom& g, IntSpan x, int32_t xz, IntSpan w, const std::vector<int32_t>& wz,
                      int32_t* y) {
  int_conv_run(g, x, xz, w, wz, y, nullptr);
}

void int_conv_compute(const IntConvGeom& g, IntSpan x, int32_t xz, IntSpan w, const std::vector<int32_t>& wz,
                      const IntSumSink& sink) {
  int_conv_run(g, x, xz, w, wz, nullptr, &sink);
}

void requantize(const int32_t* acc, size_t n, int64_t bias, double mult, int32_t zp, RTensor& y, int64_t y_off) {
  if (y.dtype == kUint8 || y.dtype == kInt8) {
    // Each value on its own: threads take ranges (QLinearMatMul's requantization on one thread
    // left two-thread runs at 1.37x ONNX Runtime's while its product was split).
    uint8_t* out = y.data<uint8_t>() + y_off;
    const kernels::KernelTable& t = kernels::active_table();
    kernels::parallel_ranges(n, 64, kernels::parallel_work(), [&](size_t b, size_t e) {
      t.requantize_u8(acc + b, e - b, static_cast<double>(bias), mult, zp, y.dtype == kInt8, out + b);
    });
    return;
  }
  double lo, hi;
  switch (y.dtype) {
    case kUint8: lo = 0; hi = 255; break;
    case kInt8: lo = -128; hi = 127; break;
    case kUint16: lo = 0; hi = 65535; break;
    case kInt16: lo = -32768; hi = 32767; break;
    case kInt32: lo = -2147483648.0; hi = 2147483647.0; break;
    default: lo = 0; hi = 4294967295.0; break;
  }
  for (size_t i = 0; i < n; ++i) {
    const double v = std::nearbyint(static_cast<float>(static_cast<double>(acc[i] + bias) * mult)) + zp;
    set_f64(y, y_off + static_cast<int64_t>(i), std::min(std::max(v, lo), hi));
  }
}

}  // namespace ofg::exec
