// Winograd convolution F(2x2, 3x3) for 3x3, stride-1, undilated, ungrouped convs (most of the
// work of ResNet-style networks), for every SIMD table: the ISA struct of simd/gemm_blocked.h
// plus three lane shuffles,
//   deinterleave(p, even, odd)   even = {p[0], p[2], ..}, odd = {p[1], p[3], ..} (2W floats)
//   store_interleaved(o, a, b)   o = {a[0], b[0], a[1], b[1], ..} (2W floats)
//   store_lanes(d, v, from, n)   d[t] = v[from + t] for t < n (from + n <= W)
// Each output tile of m x m pixels is computed from an alpha x alpha input tile (alpha = m + 2)
// as A^T [ (G g G^T) .* (B^T d B) ] A: the elementwise product, summed over input channels,
// becomes alpha^2 independent GEMMs
//   Mt[k][tile] = sum_c Ut[k][c] * Vt[c][tile]       (t = one of the alpha^2 tile positions)
// which run on the packed SGEMM register tile. That replaces 9 multiply-adds per output pixel and
// input channel by alpha^2 / m^2 (4 for m = 2).
//
// Layouts (so that the GEMMs need no packing step of their own):
//  - U (the prepacked weights): per position t, Ut = G g G^T as a [C_out x C_in] matrix packed
//    exactly as pack_weights packs conv weights (k-blocks of KC, MR-row panels).
//  - V (transformed input, scratch): per position t, the columns (tiles) in NR-wide panels of
//    all C_in rows: V[t][panel][c][lane]. A k-block p0 of a panel starts at + p0 * NR, which is
//    the B-panel layout the register tile reads, so no repacking per k-block is needed.
//  - M (GEMM output, scratch): per position t, [Mpad x ldm] rows of tiles.
// Tiles are numbered across the batch (image, tile row, tile column) and processed in blocks
// of whole tile rows sized so that V and M of a block stay in L2. Both transforms work on W
// tiles per vector.
//
// Only the arithmetic order differs from the direct convolution; the transforms amplify
// rounding a little (see the error note at kM below).
#pragma once

#include "kernels/parallel.h"
#include "kernels/simd/gemm_blocked.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

namespace ofg::kernels::simd {

namespace winograd {

// F(2x2,3x3) transform matrices (Lavin & Gray, "Fast Algorithms for Convolutional Neural
// Networks"): output tile 2x2 (kM), input tile 4x4 (kA), 16 GEMMs (kT).
//
// Measured max abs error against the exact (double) conv on a 256-channel 14x14 layer with
// He-scaled weights and inputs in [-1, 1] (KernelsConvWinograd.ErrorVsDirectConv, max |y|
// 3.05): 2.7e-6 here (AVX2), 6.2e-6 for the direct float conv. F(4x4,3x3) (points 0, +-1, +-2)
// was tried: 3.2e-5 on that layer and beyond the 1e-4 abs tolerance of the kernel tests with 300
// channels, and no clear speedup on resnet18 with these transforms, so it is not used.
constexpr int kM = 2, kA = 4, kT = 16;
// B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1] and A^T = [1 1 1 0; 0 1 -1 -1] are written out
// in bt() and the output pass; G is applied (in double) when the weights are packed.
constexpr double G[kA][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};

constexpr size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

// o = B^T d, W lanes at once.
template <class Isa, class V>
inline void bt(const V (&d)[kA], V (&o)[kA]) {
  o[0] = Isa::sub(d[0], d[2]);
  o[1] = Isa::add(d[1], d[2]);
  o[2] = Isa::sub(d[2], d[1]);
  o[3] = Isa::sub(d[1], d[3]);
}
// The two rows of A^T m.
template <class Isa, class V>
inline V at0(const V (&m)[kA]) { return Isa::add(Isa::add(m[0], m[1]), m[2]); }
template <class Isa, class V>
inline V at1(const V (&m)[kA]) { return Isa::sub(Isa::sub(m[1], m[2]), m[3]); }

struct Geometry {
  size_t tiles_h, tiles_w, tiles_wv;  // tiles_wv: tiles_w rounded up to W (vector groups)
  size_t rows;                        // tile rows of the whole batch: N * tiles_h
  size_t rows_per_block;
  size_t row_w;                       // width of a staged input row (multiple of W)
  size_t Mpad;                        // C_out rounded up to the MR-row tile
};

template <class Isa>
Geometry geometry(const Conv2DParams& p) {
  Geometry g;
  g.tiles_h = (p.H_out + kM - 1) / kM;
  g.tiles_w = (p.W_out + kM - 1) / kM;
  g.tiles_wv = round_up(g.tiles_w, Isa::W);
  g.rows = p.N * g.tiles_h;
  // Aim at V (kT * C_in * cols floats) of about 512 KiB so that V and M of a block stay in L2,
  // but never fewer than 48 columns so the weights (streamed once per block) are reused enough.
  const size_t want_cols = std::max<size_t>(48, (512 * 1024 / 4) / (kT * p.C_in));
  g.rows_per_block = std::max<size_t>(1, std::min(g.rows, want_cols / g.tiles_w));
  // The horizontal pass reads 2W floats from 2 tw + 2 for tw < tiles_wv (vector groups).
  g.row_w = round_up(kM * g.tiles_wv + kA, Isa::W);
  g.Mpad = round_up(p.C_out, Isa::MR);
  return g;
}

// Transforms the input tiles of tile rows [r0, r1) and channels [c0, c1) into V (columns numbered
// from r0's first tile).
// noinline (here and below): keeps the transforms apart from the GEMM in profiles; they run
// once per block, so the call costs nothing.
template <class Isa>
__attribute__((noinline)) void input_transform(const Conv2DParams& p, const Geometry& g, const float* x,
                                               size_t r0, size_t r1, size_t c0, size_t c1, size_t cols_pad, float* V,
                                               float* stage) {
  using Vec = typename Isa::V;
  constexpr size_t NR = Isa::NR, VW = Isa::W;
  const size_t C = p.C_in, HW = p.H * p.W;
  float* rows_t = stage;  // kA vertically transformed rows
  const ptrdiff_t H = static_cast<ptrdiff_t>(p.H), Wd = static_cast<ptrdiff_t>(p.W);
  const ptrdiff_t pl = static_cast<ptrdiff_t>(p.pad_left);
  // Column q of a transformed row is input column q - pad_left; those in [q_lo, q_hi) are in the
  // plane, the others zero (padding).
  const ptrdiff_t q_lo = std::max<ptrdiff_t>(0, pl);
  const ptrdiff_t q_hi = std::min<ptrdiff_t>(static_cast<ptrdiff_t>(g.row_w), Wd + pl);
  // The columns the valid tiles read (tile tw reads 2 tw .. 2 tw + 3). The vector groups read on
  // to row_w, into lanes that are never stored: with AVX-512's 16 tiles per group, a 14x14 plane
  // (7 tiles a row) would transform three vectors a row for one vector of used columns. rows_t
  // is zeroed once so that those lanes are defined.
  const size_t used_w = std::min(g.row_w, round_up(kM * g.tiles_w + 2, VW));
  std::memset(rows_t, 0, kA * g.row_w * sizeof(float));
  for (size_t r = r0; r < r1; ++r) {
    const size_t n = r / g.tiles_h, th = r % g.tiles_h;
    const size_t col0 = (r - r0) * g.tiles_w;
    for (size_t c = c0; c < c1; ++c) {
      const float* plane = x + (n * C + c) * HW;
      const float* row[kA];  // the input rows of the tile row, nullptr above or below the plane
      for (int i = 0; i < kA; ++i) {
        const ptrdiff_t ih = static_cast<ptrdiff_t>(th * kM + i) - static_cast<ptrdiff_t>(p.pad_top);
        row[i] = ih < 0 || ih >= H ? nullptr : plane + ih * Wd;
      }
      const bool all_rows = row[0] && row[1] && row[2] && row[3];
      // The next channel's rows, a plane further: a few lines per row, too few for the hardware
      // prefetcher to pick up before they are read.
      if (c + 1 < c1)
        for (int i = 0; i < kA; ++i)
          if (row[i])
            for (ptrdiff_t q = 0; q < Wd; q += 64 / sizeof(float)) __builtin_prefetch(row[i] + HW + q);
      // Vertical pass: rows_t = B^T (the kA input rows), the used columns at once, read from the
      // plane (a vector at the plane's edges through a masked load). When the rows were staged by
      // memset and memcpy first, perf put a third of the transform on the loads right after the
      // copy, which is offset by the padding: a load spanning two of its stores cannot take its
      // data from them.
      // (One call per vector of columns with the loads fixed: with the arrays filled in a loop
      // around the branches GCC kept them on the stack.)
      auto vertical = [&](size_t q, auto&& load) {
        const Vec d[kA] = {load(row[0]), load(row[1]), load(row[2]), load(row[3])};
        Vec o[kA];
        bt<Isa>(d, o);
        Isa::store(rows_t + q, o[0]);
        Isa::store(rows_t + g.row_w + q, o[1]);
        Isa::store(rows_t + 2 * g.row_w + q, o[2]);
        Isa::store(rows_t + 3 * g.row_w + q, o[3]);
      };
      for (size_t q = 0; q < used_w; q += VW) {
        const ptrdiff_t lo = std::max<ptrdiff_t>(q_lo, static_cast<ptrdiff_t>(q));
        const ptrdiff_t hi = std::min<ptrdiff_t>(q_hi, static_cast<ptrdiff_t>(q + VW));
        const bool whole = lo == static_cast<ptrdiff_t>(q) && hi == static_cast<ptrdiff_t>(q + VW);
        const ptrdiff_t at = lo - pl;
        if (whole && all_rows) {
          vertical(q, [&](const float* r) { return Isa::load(r + at); });
        } else if (lo >= hi) {
          vertical(q, [&](const float*) { return Isa::zero(); });
        } else {
          const size_t from = static_cast<size_t>(lo) - q, n_in = static_cast<size_t>(hi - lo);
          vertical(q, [&](const float* r) { return r ? Isa::load_lanes(r + at, from, n_in) : Isa::zero(); });
        }
      }
      // Horizontal pass, W tiles per vector: tile tw reads rows_t[i][2 tw + j], j < 4, i.e.
      // the even and odd elements from 2 tw (j = 0, 1) and from 2 tw + 2 (j = 2, 3).
      // Where the W columns from col0 + tw go is the same in all kT matrices: worked out once.
      for (size_t tw = 0; tw < g.tiles_w; tw += VW) {
        const size_t n_valid = std::min(VW, g.tiles_w - tw), col = col0 + tw, lane = col % NR;
        const size_t at = (col / NR) * C * NR + c * NR + lane, here = std::min(n_valid, NR - lane);
        const size_t next = (col / NR + 1) * C * NR + c * NR;  // the rest, in the next panel
        for (int i = 0; i < kA; ++i) {
          const float* t = rows_t + i * g.row_w;
          Vec d[kA], o[kA];
          Isa::deinterleave(t + kM * tw, d[0], d[1]);
          Isa::deinterleave(t + kM * tw + 2, d[2], d[3]);
          bt<Isa>(d, o);
          float* Vi = V + i * kA * C * cols_pad;
          if (here == VW) {
            for (int j = 0; j < kA; ++j) Isa::store(Vi + j * C * cols_pad + at, o[j]);
            continue;
          }
          for (int j = 0; j < kA; ++j) {
            Isa::store_lanes(Vi + j * C * cols_pad + at, o[j], 0, here);
            if (here < n_valid) Isa::store_lanes(Vi + j * C * cols_pad + next, o[j], here, n_valid - here);
          }
        }
      }
    }
  }
  // Columns past the block's tiles in the last panel are multiplied but never used; keep them
  // finite. (Masked vector stores: GCC made the loop over lanes a rep stos per row, 12% of the
  // transform on a 14x14 plane.)
  const size_t cols = (r1 - r0) * g.tiles_w, from = cols % NR;
  if (from) {
    for (int t = 0; t < kT; ++t)
      for (size_t c = c0; c < c1; ++c) {
        float* d = V + t * C * cols_pad + (cols / NR) * C * NR + c * NR;
        for (size_t q = from / VW * VW; q < NR; q += VW) {
          const size_t lane = std::max(q, from);
          Isa::store_lanes(d + lane, Isa::zero(), 0, q + VW - lane);
        }
      }
  }
}

// Turns the GEMM results of tile rows [r0, r1) into output channels [k0, k1), with bias,
// Relu/Clip and ep.post: its affine step and its activation of kind K on the registers (as the
// GEMM's tile stores do; K is Rows for activations left to the stored rows).
template <class Isa, PostAct K>
void output_transform_as(const Conv2DParams& p, const Geometry& g, const float* Mb, size_t ldm, size_t r0,
                         size_t r1, size_t k0, size_t k1, const Epilogue& ep, float* y) {
  using Vec = typename Isa::V;
  constexpr size_t VW = Isa::W;
  const size_t HWo = p.H_out * p.W_out, Wo = p.W_out;
  const Vec vlo = Isa::set1(ep.lo), vhi = Isa::set1(ep.hi);
  for (size_t k = k0; k < k1; ++k) {
    const Vec vbias = Isa::set1(p.bias ? p.bias[k] : 0.f);
    const PostConsts<Isa> pk = ep.post ? PostConsts<Isa>(*ep.post, k) : PostConsts<Isa>();
    for (size_t r = r0; r < r1; ++r) {
      const size_t n = r / g.tiles_h, th = r % g.tiles_h;
      const float* src = Mb + k * ldm + (r - r0) * g.tiles_w;
      // The output rows of this tile row (the second one past the plane's last row when H_out is odd).
      float* yrow[kM];
      for (int i2 = 0; i2 < kM; ++i2)
        yrow[i2] = th * kM + i2 < p.H_out ? y + (n * p.C_out + k) * HWo + (th * kM + i2) * Wo : nullptr;
      for (size_t tw = 0; tw < g.tiles_w; tw += VW) {
        // s[j2][i] = (A^T applied to row i of the 4x4 M tile)[j2], then the same vertically.
        Vec s[kM][kA];
        for (int i = 0; i < kA; ++i) {
          Vec m[kA];
          for (int j = 0; j < kA; ++j) m[j] = Isa::load(src + (i * kA + j) * g.Mpad * ldm + tw);
          s[0][i] = at0<Isa>(m);
          s[1][i] = at1<Isa>(m);
        }
        // Columns 0 and 1 of the W tiles are the 2W output pixels from 2 tw: stored in place, the
        // last group's through a stack copy and masked stores (staging whole rows for a memcpy
        // each cost a call per output row).
        const size_t col = kM * tw, cols = std::min(kM * VW, Wo - col);
        for (int i2 = 0; i2 < kM; ++i2) {
          if (!yrow[i2]) break;
          Vec yv[kM];
          for (int j2 = 0; j2 < kM; ++j2) {
            Vec v = Isa::add(i2 == 0 ? at0<Isa>(s[j2]) : at1<Isa>(s[j2]), vbias);
            if (ep.clamp) v = Isa::min(vhi, Isa::max(vlo, v));
            if (ep.post) v = post_lanes<Isa, K>(*ep.post, pk, v);
            yv[j2] = v;
          }
          if (cols == kM * VW) {
            Isa::store_interleaved(yrow[i2] + col, yv[0], yv[1]);
            continue;
          }
          alignas(64) float t[kM * VW];
          Isa::store_interleaved(t, yv[0], yv[1]);
          const size_t first = std::min(VW, cols);
          Isa::store_lanes(yrow[i2] + col, Isa::load(t), 0, first);
          if (cols > VW) Isa::store_lanes(yrow[i2] + col + VW, Isa::load(t + VW), 0, cols - VW);
        }
      }
      if constexpr (K == PostAct::Rows)
        for (int i2 = 0; i2 < kM && ep.post && yrow[i2]; ++i2) post_stored<Isa>(ep, k, yrow[i2], Wo, true, false);
    }
  }
}

// output_transform_as for ep's activation kind. The gates (YOLO's and EfficientNet's SiLU) run
// on the registers too, with the table's own lane code, when that table is the one ep.post names:
// over the stored rows they took a second pass per row (YOLO-style detector 4% faster, its
// measure-only 320x320 variant 9%).
template <class Isa>
__attribute__((noinline)) void output_transform(const Conv2DParams& p, const Geometry& g, const float* Mb,
                                                size_t ldm, size_t r0, size_t r1, size_t k0, size_t k1,
                                                const Epilogue& ep, float* y) {
  const bool own_table = ep.post && (!ep.post->table || ep.post->table == &Isa::table());
  if (!ep.post || !own_table) return output_transform_as<Isa, PostAct::Rows>(p, g, Mb, ldm, r0, r1, k0, k1, ep, y);
  with_post_kind(ep.post_act, [&](auto kind) {
    output_transform_as<Isa, decltype(kind)::value>(p, g, Mb, ldm, r0, r1, k0, k1, ep, y);
  });
}

}  // namespace winograd

// 3x3, stride 1, dilation 1, group 1, and enough channels for the transforms to pay off.
// Depends only on fields that conv2d_packed_size may look at (not on H or W).
template <class Isa>
bool winograd_applies(const Conv2DParams& p) {
  // Below 16 channels (the ISA's kWinogradMinCin inputs) the transforms cost more than the
  // multiplies they save.
  return p.kH == 3 && p.kW == 3 && p.stride_h == 1 && p.stride_w == 1 && p.dil_h == 1 &&
         p.dil_w == 1 && p.group == 1 && p.C_in >= Isa::kWinogradMinCin && p.C_out >= 16;
}

template <class Isa>
size_t winograd_packed_size(const Conv2DParams& p) {
  return winograd::kT * winograd::round_up(p.C_out, Isa::MR) * p.C_in;
}

template <class Isa>
void winograd_pack(const Conv2DParams& p, const float* w, float* packed) {
  using namespace winograd;
  const size_t K = p.C_out, C = p.C_in, Mpad = round_up(K, Isa::MR);
  // U[t][k][c] = (G g G^T)[t], computed in double so the weights add no rounding of their own.
  std::vector<float> U(kT * K * C);
  // Output channels are split between threads (each writes its own rows of U), then positions.
  parallel_ranges(K, 1, plane_grain(C * 100), [&](size_t k_lo, size_t k_hi) {
    for (size_t k = k_lo; k < k_hi; ++k)
      for (size_t c = 0; c < C; ++c) {
        const float* gk = w + (k * C + c) * 9;
        double tmp[kA][3];  // G g
        for (int i = 0; i < kA; ++i)
          for (int j = 0; j < 3; ++j) {
            double acc = 0;
            for (int r = 0; r < 3; ++r) acc += G[i][r] * gk[r * 3 + j];
            tmp[i][j] = acc;
          }
        for (int i = 0; i < kA; ++i)
          for (int j = 0; j < kA; ++j) {
            double acc = 0;
            for (int r = 0; r < 3; ++r) acc += tmp[i][r] * G[j][r];
            U[(i * kA + j) * K * C + k * C + c] = static_cast<float>(acc);
          }
      }
  });
  parallel_for(kT, [&](size_t t) {
    for (size_t p0 = 0; p0 < C; p0 += Isa::KC)
      pack_a<Isa>(false, U.data() + t * K * C, C, 0, K, p0, std::min(Isa::KC, C - p0), 1.f,
                  packed + t * Mpad * C + p0 * Mpad);
  });
}

template <class Isa>
void winograd_conv(const Conv2DParams& p, const float* x, const float* packed, float* y) {
  using namespace winograd;
  constexpr size_t MR = Isa::MR, NR = Isa::NR, KC = Isa::KC, MC = Isa::MC;
  const Geometry g = geometry<Isa>(p);
  const size_t C = p.C_in;
  Epilogue ep;
  const bool act_after = fused_clamp(p, ep);
  const size_t max_cols_pad = round_up(g.rows_per_block * g.tiles_w, NR);
  // M rows are W floats longer than the columns: the output pass reads whole W-tile groups.
  const size_t ldm = max_cols_pad + Isa::W;
  const size_t stage_floats = kA * g.row_w;  // the input pass's vertically transformed rows
  // The kT GEMMs of a block: Mt = Ut Vt at position t.
  auto position_gemm = [&](size_t t, const float* V, float* Mb, size_t cols_pad) {
    const float* Ut = packed + t * g.Mpad * C;
    const float* Vt = V + t * C * cols_pad;
    float* Mt = Mb + t * g.Mpad * ldm;
    for (size_t p0 = 0; p0 < C; p0 += KC) {
      const size_t kc = std::min(KC, C - p0);
      for (size_t i0 = 0; i0 < g.Mpad; i0 += MC) {
        const size_t mc = std::min(MC, g.Mpad - i0);
        for (size_t jb = 0; jb < cols_pad; jb += NR)
          for (size_t ib = 0; ib < mc; ib += MR)
            micro_tile<Isa>(kc, Ut + p0 * g.Mpad + (i0 + ib) * kc, Vt + jb * C + p0 * NR,
                            Mt + (i0 + ib) * ldm + jb, ldm, MR, NR, p0 == 0, 0.f, Epilogue{});
      }
    }
  };
  const size_t blocks = (g.rows + g.rows_per_block - 1) / g.rows_per_block;
  if (threads() > 1 && blocks >= 2 * size_t{threads()}) {
    // Enough blocks for every thread: each task runs one block's three steps alone, in its own
    // scratch, so a block's V and M stay in the cache of the core that made them and the threads
    // meet once per conv instead of three times per block (a 3x3 64-channel conv on 56x56: 7
    // blocks, 21 meetings, each waiting for the slower thread of a shared machine). Every value
    // is computed as in the split below: the same bits on any number of threads.
    parallel_for(blocks, [&](size_t b) {
      const size_t r0 = b * g.rows_per_block, r1 = std::min(g.rows, r0 + g.rows_per_block);
      const size_t cols_pad = round_up((r1 - r0) * g.tiles_w, NR);
      float* V = detail::scratch(3, kT * C * max_cols_pad);
      float* Mb = detail::scratch(1, kT * g.Mpad * ldm);
      float* stage = detail::scratch(0, stage_floats);
      input_transform<Isa>(p, g, x, r0, r1, 0, C, cols_pad, V, stage);
      for (size_t t = 0; t < kT; ++t) position_gemm(t, V, Mb, cols_pad);
      output_transform<Isa>(p, g, Mb, ldm, r0, r1, 0, p.C_out, ep, y);
    });
  } else {
    float* V = detail::scratch(3, kT * C * max_cols_pad);
    float* Mb = detail::scratch(1, kT * g.Mpad * ldm);
    // Threads split the input transform by channel, the kT GEMMs by position and the output
    // transform by output channel; each part writes its own rows of V, its own Mt or its own
    // output planes, and has its own staging area (scratch area 0 of the thread that runs it).
    for (size_t r0 = 0; r0 < g.rows; r0 += g.rows_per_block) {
      const size_t r1 = std::min(g.rows, r0 + g.rows_per_block);
      const size_t cols_pad = round_up((r1 - r0) * g.tiles_w, NR);
      const size_t tile_work = (r1 - r0) * g.tiles_wv * kT;
      parallel_ranges(C, 1, plane_grain(tile_work), [&](size_t c0, size_t c1) {
        input_transform<Isa>(p, g, x, r0, r1, c0, c1, cols_pad, V, detail::scratch(0, stage_floats));
      });
      parallel_for(kT, [&](size_t t) { position_gemm(t, V, Mb, cols_pad); });
      parallel_ranges(p.C_out, 1, plane_grain(tile_work), [&](size_t k0, size_t k1) {
        output_transform<Isa>(p, g, Mb, ldm, r0, r1, k0, k1, ep, y);
      });
    }
  }
  if (act_after)
    apply_bias_activation(Isa::table(), y, p.N, p.C_out, p.H_out * p.W_out, nullptr, p.act,
                          p.act_alpha, p.act_beta);
}

}  // namespace ofg::kernels::simd
