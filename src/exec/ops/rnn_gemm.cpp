// Recurrent ops in float32 through the kernel table: the input projections of every step of a
// direction are one SGEMM ([S*B, I] x W^T), each step's recurrence is one SGEMV (R h), and the
// gate activations run over whole gate vectors. Same formulas as the double reference in rnn.cpp.
#include "exec/ops/rnn.h"

namespace ofg::exec::rnn {
namespace {

// Per direction and batch entry: the state vectors and the scratch of one step.
struct StepBuffers {
  std::vector<float> h, cs, gh, a, b, c;
  explicit StepBuffers(int64_t Hs, int64_t GH)
      : h(static_cast<size_t>(Hs)), cs(h.size()), gh(static_cast<size_t>(GH)), a(h.size()), b(h.size()), c(h.size()) {}
};

void clip_in_place(const Call& k, float* x, size_t n) {
  if (!k.has_clip) return;
  const float lim = static_cast<float>(k.clip);
  for (size_t i = 0; i < n; ++i) x[i] = std::min(std::max(x[i], -lim), lim);
}

}  // namespace

void run_f32(OpCtx& c, const Call& k) {
  const kernels::KernelTable& kt = kernels::active_table();
  const int64_t Hs = k.Hs, I = k.I, B = k.B, S = k.S, GH = k.gates * Hs;
  const size_t hs = static_cast<size_t>(Hs);
  const float* X = c.t(0).data<float>();
  const float* W = c.t(1).data<float>();
  const float* R = c.t(2).data<float>();
  std::vector<float> bias(static_cast<size_t>(k.dirs * 2 * GH), 0.f);
  if (c.has(3)) std::memcpy(bias.data(), c.t(3).data<float>(), bias.size() * sizeof(float));
  const float* P = k.kind == Kind::Lstm && c.has(7) ? c.t(7).data<float>() : nullptr;
  const std::vector<float> H0 = initial_state<float>(c, k, 5), C0 = initial_state<float>(c, k, 6);

  Results<float> r;
  r.Y.assign(static_cast<size_t>(S * k.dirs * B * Hs), 0.f);
  r.Yh.resize(static_cast<size_t>(k.dirs * B * Hs));
  r.Yc.resize(r.Yh.size());
  std::vector<float> xw(scratch_elems(checked_mul(S * B, GH), sizeof(float)));
  StepBuffers s(Hs, GH);
  for (int d = 0; d < k.dirs; ++d) {
    const float* Wd = W + d * GH * I;
    const float* Rd = R + d * GH * Hs;
    const float* Wb = bias.data() + d * 2 * GH;
    const float* Rb = Wb + GH;
    const float* pd = P ? P + d * 3 * Hs : nullptr;
    const Act* f = k.acts_of(d);
    // xw[row] = W_d x[row] + Wb for every (step, batch entry) row of X.
    for (int64_t row = 0; row < S * B; ++row) std::memcpy(xw.data() + row * GH, Wb, GH * sizeof(float));
    kt.sgemm(false, true, static_cast<size_t>(S * B), static_cast<size_t>(GH), static_cast<size_t>(I), 1.f, X,
             static_cast<size_t>(I), Wd, static_cast<size_t>(I), 1.f, xw.data(), static_cast<size_t>(GH));
    for (int64_t b = 0; b < B; ++b) {
      std::copy_n(H0.begin() + (d * B + b) * Hs, hs, s.h.begin());
      std::copy_n(C0.begin() + (d * B + b) * Hs, hs, s.cs.begin());
      const int64_t L = k.lens[static_cast<size_t>(b)];
      for (int64_t step = 0; step < L; ++step) {
        const int64_t t = k.reversed(d) ? L - 1 - step : step;
        const float* gx = xw.data() + k.x_row(t, b) * GH;
        // gh = R_d h + Rb; a GRU without linear_before_reset takes only its z and r rows here.
        const bool gru_late_h = k.kind == Kind::Gru && !k.linear_before_reset;
        const int64_t rows = gru_late_h ? 2 * Hs : GH;
        kt.sgemv(static_cast<size_t>(rows), hs, 1.f, Rd, hs, s.h.data(), 0.f, s.gh.data());
        for (int64_t g = 0; g < rows; ++g) s.gh[g] += Rb[g];
        float* out = s.a.data();  // the new h
        if (k.kind == Kind::Rnn) {
          for (size_t q = 0; q < hs; ++q) out[q] = gx[q] + s.gh[q];
          clip_in_place(k, out, hs);
          f[0].apply(out, hs);
        } else if (k.kind == Kind::Gru) {
          float* z = s.b.data();
          float* rg = s.c.data();
          for (size_t q = 0; q < hs; ++q) z[q] = gx[q] + s.gh[q];
          for (size_t q = 0; q < hs; ++q) rg[q] = gx[hs + q] + s.gh[hs + q];
          clip_in_place(k, z, hs);
          clip_in_place(k, rg, hs);
          f[0].apply(z, hs);
          f[0].apply(rg, hs);
          if (k.linear_before_reset) {
            for (size_t q = 0; q < hs; ++q) out[q] = gx[2 * hs + q] + rg[q] * s.gh[2 * hs + q];
          } else {
            // R_h (r * h_{t-1}) + Rb_h: the reset gate applies before the recurrence here.
            for (size_t q = 0; q < hs; ++q) rg[q] *= s.h[q];
            kt.sgemv(hs, hs, 1.f, Rd + 2 * Hs * Hs, hs, rg, 0.f, out);
            for (size_t q = 0; q < hs; ++q) out[q] += gx[2 * hs + q] + Rb[2 * hs + q];
          }
          clip_in_place(k, out, hs);
          f[1].apply(out, hs);
          for (size_t q = 0; q < hs; ++q) out[q] = (1 - z[q]) * out[q] + z[q] * s.h[q];
        } else {
          // Gates i, o, f, c in that order; peepholes i, o, f.
          float* ig = s.b.data();
          float* fg = s.c.data();
          std::vector<float>& cs = s.cs;
          for (size_t q = 0; q < hs; ++q) ig[q] = gx[q] + s.gh[q] + (pd ? pd[q] * cs[q] : 0.f);
          clip_in_place(k, ig, hs);
          f[0].apply(ig, hs);
          if (k.input_forget) {
            for (size_t q = 0; q < hs; ++q) fg[q] = 1 - ig[q];
          } else {
            for (size_t q = 0; q < hs; ++q) fg[q] = gx[2 * hs + q] + s.gh[2 * hs + q] + (pd ? pd[2 * hs + q] * cs[q] : 0.f);
            clip_in_place(k, fg, hs);
            f[0].apply(fg, hs);
          }
          float* cg = out;  // the cell candidate first, h at the end
          for (size_t q = 0; q < hs; ++q) cg[q] = gx[3 * hs + q] + s.gh[3 * hs + q];
          clip_in_place(k, cg, hs);
          f[1].apply(cg, hs);
          for (size_t q = 0; q < hs; ++q) cs[q] = fg[q] * cs[q] + ig[q] * cg[q];
          float* og = ig;
          for (size_t q = 0; q < hs; ++q) og[q] = gx[hs + q] + s.gh[hs + q] + (pd ? pd[hs + q] * cs[q] : 0.f);
          clip_in_place(k, og, hs);
          f[0].apply(og, hs);
          std::copy_n(cs.begin(), hs, out);
          f[2].apply(out, hs);
          for (size_t q = 0; q < hs; ++q) out[q] *= og[q];
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
