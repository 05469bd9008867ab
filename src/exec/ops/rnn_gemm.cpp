// Recurrent ops in float32 through the kernel table: the input projections of every step of a
// direction are one SGEMM ([S*B, I] x W^T, with both biases folded in where the formulas allow),
// each step's recurrence is the product h R^T on R transposed once (sgemv_t over column panels:
// R^T read in order, no lane sums), and the gate activations run over whole gate vectors (i, o, f at once
// for an LSTM without peepholes). Same formulas as the double reference in rnn.cpp.
#include "exec/ops/rnn.h"

namespace ofg::exec::rnn {
namespace {

// Per direction and batch entry: the state vectors and the scratch of one step (gh: the gate
// pre-activations, activated in place; a: the new h).
struct StepBuffers {
  std::vector<float> h, cs, gh, a;
  explicit StepBuffers(int64_t Hs, int64_t GH)
      : h(static_cast<size_t>(Hs)), cs(h.size()), gh(static_cast<size_t>(GH)), a(h.size()) {}
};

void clip_in_place(const Call& k, float* x, size_t n) {
  if (!k.has_clip) return;
  const float lim = static_cast<float>(k.clip);
  for (size_t i = 0; i < n; ++i) x[i] = std::min(std::max(x[i], -lim), lim);
}

// R^T is kept in column panels of kPanel gate rows: a panel is [Hs, width] contiguous, so one
// sgemv_t over it streams through memory in order (about 30% faster than the strided [Hs, G Hs]
// matrix when it comes from L2, measured at Hs 128). The panel of columns from p0 (a multiple of
// kPanel) starts at p0 * Hs within its direction.
constexpr size_t kPanel = 64;

void transpose_recurrence(const Call& k, const float* R, float* RT) {
  const kernels::KernelTable& kt = kernels::active_table();
  const size_t GH = static_cast<size_t>(k.gates * k.Hs), hs = static_cast<size_t>(k.Hs);
  for (size_t d = 0; d < static_cast<size_t>(k.dirs); ++d)
    for (size_t p0 = 0; p0 < GH; p0 += kPanel) {
      const size_t w = std::min(kPanel, GH - p0), at = d * GH * hs + p0 * hs;
      kt.transpose2d(sizeof(float), R + at, hs, RT + at, w, w, hs);
    }
}

// y[c - c0] = (h R_d^T)[c] for the gate rows c in [c0, c1), panel by panel.
void recurrence_product(const float* RTd, size_t GH, size_t hs, const float* h, size_t c0, size_t c1, float* y) {
  const kernels::KernelTable& kt = kernels::active_table();
  for (size_t c = c0; c < c1;) {
    const size_t p0 = c / kPanel * kPanel, w = std::min(kPanel, GH - p0), end = std::min(c1, p0 + w);
    kt.sgemv_t(hs, end - c, 1.f, h, RTd + p0 * hs + (c - p0), w, 0.f, y + (c - c0));
    c = end;
  }
}

// R of every direction transposed into panels (above), the operand of sgemv_t: made once per
// model when R keeps its bytes across runs (OpCtx::constant_key: kept in the interpreter's cache,
// as packed conv weights are), else into `local` on every call (one pass over R, small next to
// the S steps that read it).
const float* recurrence_transposed(OpCtx& c, const Call& k, std::vector<float>& local) {
  const float* R = c.t(2).data<float>();
  const size_t n = static_cast<size_t>(c.t(2).numel());
  if (const void* key = c.constant_key(2)) {
    // The tag tells this layout apart from other uses of the same bytes.
    uint64_t tag = 0x524E4E5254ull;  // "RNNRT"
    for (uint64_t v : {static_cast<uint64_t>(k.dirs), static_cast<uint64_t>(k.gates), static_cast<uint64_t>(k.Hs),
                       static_cast<uint64_t>(kPanel)})
      tag = tag * 0x100000001B3ull ^ v;
    return reinterpret_cast<const float*>(c.interp.cache()->get(
        key, tag, n * sizeof(float), [&](uint8_t* dst) { transpose_recurrence(k, R, reinterpret_cast<float*>(dst)); }));
  }
  local.resize(n);
  transpose_recurrence(k, R, local.data());
  return local.data();
}

// Whether gate row g takes its recurrence bias Rb[g] inside the step rather than in the input
// projection: only the h gate of a GRU with linear_before_reset (Rb_h is scaled by r there).
bool bias_in_step(const Call& k, int64_t g) { return k.kind == Kind::Gru && k.linear_before_reset && g >= 2 * k.Hs; }

// One LSTM step from the gate pre-activations g (i, o, f, c; W x + R h + biases) and the cell
// state cs (updated); the new h into out.
void lstm_step(const Call& k, const Act* f, const float* pd, float* g, std::vector<float>& cs, float* out) {
  const size_t hs = static_cast<size_t>(k.Hs);
  float* ig = g;
  float* og = g + hs;
  float* fg = g + 2 * hs;
  float* cg = g + 3 * hs;
  if (pd) {
    // Peepholes: i and f see the old cell state, o the new one (applied below).
    for (size_t q = 0; q < hs; ++q) ig[q] += pd[q] * cs[q];
    for (size_t q = 0; q < hs; ++q) fg[q] += pd[2 * hs + q] * cs[q];
    clip_in_place(k, ig, hs);
    clip_in_place(k, fg, hs);
    clip_in_place(k, cg, hs);
    f[0].apply(ig, hs);
    f[0].apply(fg, hs);
  } else {
    // i, o, f are contiguous and share the activation: one call over the three.
    clip_in_place(k, g, 4 * hs);
    f[0].apply(g, 3 * hs);
  }
  if (k.input_forget)
    for (size_t q = 0; q < hs; ++q) fg[q] = 1 - ig[q];
  f[1].apply(cg, hs);
  for (size_t q = 0; q < hs; ++q) cs[q] = fg[q] * cs[q] + ig[q] * cg[q];
  if (pd) {
    for (size_t q = 0; q < hs; ++q) og[q] += pd[hs + q] * cs[q];
    clip_in_place(k, og, hs);
    f[0].apply(og, hs);
  }
  std::copy_n(cs.begin(), hs, out);
  f[2].apply(out, hs);
  for (size_t q = 0; q < hs; ++q) out[q] *= og[q];
}

}  // namespace

void run_f32(OpCtx& c, const Call& k) {
  const kernels::KernelTable& kt = kernels::active_table();
  const int64_t Hs = k.Hs, I = k.I, B = k.B, S = k.S, GH = k.gates * Hs;
  const size_t hs = static_cast<size_t>(Hs), gh_n = static_cast<size_t>(GH);
  const float* X = c.t(0).data<float>();
  const float* W = c.t(1).data<float>();
  std::vector<float> rt_local;
  const float* RT = recurrence_transposed(c, k, rt_local);
  std::vector<float> bias(static_cast<size_t>(k.dirs * 2 * GH), 0.f);
  if (c.has(3)) std::memcpy(bias.data(), c.t(3).data<float>(), bias.size() * sizeof(float));
  const float* P = k.kind == Kind::Lstm && c.has(7) ? c.t(7).data<float>() : nullptr;
  const std::vector<float> H0 = initial_state<float>(c, k, 5), C0 = initial_state<float>(c, k, 6);

  Results<float> r;
  r.Y.assign(static_cast<size_t>(S * k.dirs * B * Hs), 0.f);
  r.Yh.resize(static_cast<size_t>(k.dirs * B * Hs));
  r.Yc.resize(r.Yh.size());
  std::vector<float> xw(scratch_elems(checked_mul(S * B, GH), sizeof(float)));
  std::vector<float> row_bias(gh_n);
  StepBuffers s(Hs, GH);
  for (int d = 0; d < k.dirs; ++d) {
    const float* Wd = W + d * GH * I;
    const float* RTd = RT + d * GH * Hs;
    const float* Wb = bias.data() + d * 2 * GH;
    const float* Rb = Wb + GH;
    const float* pd = P ? P + d * 3 * Hs : nullptr;
    const Act* f = k.acts_of(d);
    // xw[row] = W_d x[row] + Wb + Rb (Rb where bias_in_step does not keep it) for every
    // (step, batch entry) row of X.
    for (int64_t g = 0; g < GH; ++g) row_bias[static_cast<size_t>(g)] = Wb[g] + (bias_in_step(k, g) ? 0.f : Rb[g]);
    for (int64_t row = 0; row < S * B; ++row) std::memcpy(xw.data() + row * GH, row_bias.data(), GH * sizeof(float));
    kt.sgemm(false, true, static_cast<size_t>(S * B), gh_n, static_cast<size_t>(I), 1.f, X,
             static_cast<size_t>(I), Wd, static_cast<size_t>(I), 1.f, xw.data(), gh_n);
    for (int64_t b = 0; b < B; ++b) {
      std::copy_n(H0.begin() + (d * B + b) * Hs, hs, s.h.begin());
      std::copy_n(C0.begin() + (d * B + b) * Hs, hs, s.cs.begin());
      const int64_t L = k.lens[static_cast<size_t>(b)];
      for (int64_t step = 0; step < L; ++step) {
        const int64_t t = k.reversed(d) ? L - 1 - step : step;
        const float* gx = xw.data() + k.x_row(t, b) * GH;
        // gh = h R_d^T; a GRU without linear_before_reset takes only its z and r columns here.
        const bool gru_late_h = k.kind == Kind::Gru && !k.linear_before_reset;
        const size_t cols = gru_late_h ? 2 * hs : gh_n;
        recurrence_product(RTd, gh_n, hs, s.h.data(), 0, cols, s.gh.data());
        float* out = s.a.data();  // the new h
        if (k.kind == Kind::Rnn) {
          for (size_t q = 0; q < hs; ++q) out[q] = gx[q] + s.gh[q];
          clip_in_place(k, out, hs);
          f[0].apply(out, hs);
        } else if (k.kind == Kind::Gru) {
          // z and r are contiguous and share the activation: one call over both, in place.
          float* z = s.gh.data();
          float* rg = z + hs;
          for (size_t q = 0; q < 2 * hs; ++q) z[q] += gx[q];
          clip_in_place(k, z, 2 * hs);
          f[0].apply(z, 2 * hs);
          if (k.linear_before_reset) {
            for (size_t q = 0; q < hs; ++q) out[q] = gx[2 * hs + q] + rg[q] * (s.gh[2 * hs + q] + Rb[2 * hs + q]);
          } else {
            // (r * h_{t-1}) R_h^T; Rb_h is in gx: the reset gate applies before the recurrence here.
            for (size_t q = 0; q < hs; ++q) rg[q] *= s.h[q];
            recurrence_product(RTd, gh_n, hs, rg, 2 * hs, 3 * hs, out);
            for (size_t q = 0; q < hs; ++q) out[q] += gx[2 * hs + q];
          }
          clip_in_place(k, out, hs);
          f[1].apply(out, hs);
          for (size_t q = 0; q < hs; ++q) out[q] = (1 - z[q]) * out[q] + z[q] * s.h[q];
        } else {
          float* g = s.gh.data();
          for (size_t q = 0; q < gh_n; ++q) g[q] += gx[q];
          lstm_step(k, f, pd, g, s.cs, out);
        }
        std::copy_n(out, hs, s.h.begin());
        std::copy_n(out, hs, r.Y.begin() + ((t * k.dirs + d) * B + b) * Hs);
      }
      std::copy_n(s.h.begin(), hs, r.Yh.begin() + (d * B + b) * Hs);
      std::copy_n(s.cs.begin(), hs, r.Yc.begin() + (d * B + b) * Hs);
    }
  }
  set_outputs(c, k, r, kFloat);
}

}  // namespace ofg::exec::rnn
