// Signal processing: DFT (opset 17 and 20), STFT, the window generators. Naive O(n^2) transforms in double: the
// conformance signals are short and exactness matters more than speed here.
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

void op_dft(OpCtx& c) {
  const RTensor& xt = c.t_rank(0, 2, 64);
  int r = xt.rank();
  bool complex_in = xt.shape.back() == 2;
  if (xt.shape.back() != 1 && !complex_in) c.error("the last axis must have size 1 or 2");
  int64_t axis;
  if (c.opset >= 20) axis = c.has(2) ? get_i64(c.t_numel(2, 1), 0) : -2;
  else axis = c.attr_i("axis", 1);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r - 1) c.error("axis out of range");
  bool inverse = c.attr_i("inverse", 0) != 0, onesided = c.attr_i("onesided", 0) != 0;
  int64_t n_in = xt.shape[axis];
  // An inverse one-sided transform takes the half spectrum and gives back a real signal.
  bool irfft = inverse && onesided;
  int64_t dflt_len = irfft ? 2 * (n_in - 1) : n_in;
  int64_t L = c.has(1) && c.t(1).numel() > 0 ? get_i64(c.t(1), 0) : dflt_len;
  if (L < 1 || L > (int64_t{1} << 31)) c.error("dft_length " + std::to_string(L) + " is out of range [1, 2^31]");
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= xt.shape[i];
  for (int i = static_cast<int>(axis) + 1; i < r - 1; ++i) inner *= xt.shape[i];
  int64_t ci = xt.shape.back();
  int64_t n_out = irfft ? L : (onesided ? L / 2 + 1 : L);
  int64_t co = irfft ? 1 : 2;
  Shape os = xt.shape;
  os[axis] = n_out;
  os.back() = co;
  RTensor y = RTensor::alloc(xt.dtype, os);
  double sign = inverse ? 1.0 : -1.0;
  // Input bin j, zero beyond the given samples; Hermitian completion for the half spectrum.
  auto sample = [&](int64_t o, int64_t e, int64_t j, double& xr, double& xi) {
    bool conj = false;
    if (irfft && j >= n_in) {
      j = L - j;
      conj = true;
    }
    if (j >= n_in || j < 0) { xr = xi = 0; return; }
    int64_t at = ((o * n_in + j) * inner + e) * ci;
    xr = get_f64(xt, at);
    xi = complex_in ? get_f64(xt, at + 1) : 0.0;
    if (conj) xi = -xi;
  };
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t e = 0; e < inner; ++e)
      for (int64_t k = 0; k < n_out; ++k) {
        double re = 0, im = 0;
        for (int64_t j = 0; j < L; ++j) {
          double xr, xi;
          sample(o, e, j, xr, xi);
          if (xr == 0 && xi == 0) continue;
          double ang = sign * 2 * kPi * static_cast<double>((k * j) % L) / static_cast<double>(L);
          double cr = std::cos(ang), sr = std::sin(ang);
          re += xr * cr - xi * sr;
          im += xr * sr + xi * cr;
        }
        if (inverse) {
          re /= static_cast<double>(L);
          im /= static_cast<double>(L);
        }
        int64_t dst = ((o * n_out + k) * inner + e) * co;
        set_f64(y, dst, re);
        if (co == 2) set_f64(y, dst + 1, im);
      }
  c.set(0, y);
}

void op_stft(OpCtx& c) {
  const RTensor& xt = c.t_rank(0, 3);
  int64_t step = get_i64(c.t_numel(1, 1), 0);
  bool has_win = c.has(2);
  int64_t flen = c.has(3) ? get_i64(c.t_numel(3, 1), 0) : (has_win ? c.t(2).numel() : 0);
  if (flen <= 0) c.error("frame_length or window is required");
  bool onesided = c.attr_i("onesided", 1) != 0;
  int64_t B = xt.shape[0], S = xt.shape[1], ci = xt.shape[2];
  if (step < 1) c.error("frame_step must be positive, got " + std::to_string(step));
  if (flen > S) c.error("frame_length " + std::to_string(flen) + " is longer than the signal (" + std::to_string(S) + ")");
  if (ci != 1 && ci != 2) c.error("the last axis must have size 1 or 2");
  if (has_win && c.t(2).numel() != flen) c.error("the window must have frame_length values");
  bool complex_in = ci == 2;
  int64_t frames = (S - flen) / step + 1;
  int64_t bins = onesided ? flen / 2 + 1 : flen;
  RTensor y = RTensor::alloc(xt.dtype, {B, frames, bins, 2});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t f = 0; f < frames; ++f)
      for (int64_t k = 0; k < bins; ++k) {
        double re = 0, im = 0;
        for (int64_t j = 0; j < flen; ++j) {
          int64_t at = (b * S + f * step + j) * ci;
          double w = has_win ? get_f64(c.t(2), j) : 1.0;
          double xr = get_f64(xt, at) * w, xi = complex_in ? get_f64(xt, at + 1) * w : 0.0;
          double ang = -2 * kPi * static_cast<double>((k * j) % flen) / static_cast<double>(flen);
          double cr = std::cos(ang), sr = std::sin(ang);
          re += xr * cr - xi * sr;
          im += xr * sr + xi * cr;
        }
        int64_t dst = ((b * frames + f) * bins + k) * 2;
        set_f64(y, dst, re);
        set_f64(y, dst + 1, im);
      }
  c.set(0, y);
}

template <int kind>  // 0 Hann, 1 Hamming, 2 Blackman
void window(OpCtx& c) {
  int64_t n = c.size_value(get_i64(c.t_numel(0, 1), 0), "size");
  bool periodic = c.attr_i("periodic", 1) != 0;
  int32_t dt = static_cast<int32_t>(c.attr_i("output_datatype", kFloat));
  double N = static_cast<double>(periodic ? n : n - 1);
  std::vector<double> y(scratch_elems(n));
  for (int64_t i = 0; i < n; ++i) {
    double t = 2 * kPi * static_cast<double>(i) / N;
    double v;
    if (kind == 0) v = 0.5 - 0.5 * std::cos(t);
    else if (kind == 1) v = 25.0 / 46.0 - (1 - 25.0 / 46.0) * std::cos(t);
    else v = 0.42 - 0.5 * std::cos(t) + 0.08 * std::cos(2 * t);
    y[static_cast<size_t>(i)] = v;
  }
  c.set(0, tensor_of(y, dt, {n}));
}

}  // namespace

void register_signal_ops(Registry& r) {
  r.add("HannWindow", window<0>, 17).no_rule();
  r.add("HammingWindow", window<1>, 17).no_rule();
  r.add("BlackmanWindow", window<2>, 17).no_rule();
  r.add("DFT", op_dft, 17).no_rule();
  r.add("STFT", op_stft, 17).no_rule();
}

}  // namespace ofg::exec
