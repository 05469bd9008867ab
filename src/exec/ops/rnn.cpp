// Recurrent ops: RNN, GRU, LSTM (both layouts, all directions, sequence_lens, clip, custom
// activations, peepholes). Computed step by step in double; sequences in exported models are
// short and the matrices small, so plain loops are adequate.
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

struct Act {
  std::string name;
  double alpha = 0, beta = 0;
  double operator()(double x) const {
    if (name == "Sigmoid") return 1 / (1 + std::exp(-x));
    if (name == "Tanh") return std::tanh(x);
    if (name == "Relu") return std::max(0.0, x);
    if (name == "Affine") return alpha * x + beta;
    if (name == "LeakyRelu") return x >= 0 ? x : alpha * x;
    if (name == "ThresholdedRelu") return x > alpha ? x : 0;
    if (name == "ScaledTanh") return alpha * std::tanh(beta * x);
    if (name == "HardSigmoid") return std::max(0.0, std::min(1.0, alpha * x + beta));
    if (name == "Elu") return x >= 0 ? x : alpha * (std::exp(x) - 1);
    if (name == "Softsign") return x / (1 + std::fabs(x));
    if (name == "Softplus") return std::log1p(std::exp(x));
    return x;
  }
};

// Activations per direction: `per_dir` functions, the defaults when the attribute is absent.
std::vector<Act> activations(const OpCtx& c, int dirs, const std::vector<std::string>& dflt) {
  std::vector<std::string> names;
  if (const Attribute* a = c.attr("activations"))
    for (const Bytes& s : a->strings) names.emplace_back(s.view());
  std::vector<float> al = c.attr_floats("activation_alpha"), be = c.attr_floats("activation_beta");
  std::vector<Act> out;
  size_t per = dflt.size();
  size_t ai = 0, bi = 0;
  for (int d = 0; d < dirs; ++d)
    for (size_t k = 0; k < per; ++k) {
      Act a;
      size_t idx = d * per + k;
      a.name = idx < names.size() ? names[idx] : dflt[k];
      // Defaults of the parametrised activations.
      if (a.name == "LeakyRelu") a.alpha = 0.01;
      if (a.name == "ThresholdedRelu" || a.name == "Elu" || a.name == "ScaledTanh" || a.name == "Affine") a.alpha = 1.0;
      if (a.name == "ScaledTanh" || a.name == "Affine") a.beta = a.name == "Affine" ? 0.0 : 1.0;
      if (a.name == "HardSigmoid") { a.alpha = 0.2; a.beta = 0.5; }
      bool uses_a = a.name == "LeakyRelu" || a.name == "ThresholdedRelu" || a.name == "Elu" || a.name == "ScaledTanh" ||
                    a.name == "Affine" || a.name == "HardSigmoid";
      bool uses_b = a.name == "ScaledTanh" || a.name == "Affine" || a.name == "HardSigmoid";
      if (idx < names.size()) {
        if (uses_a && ai < al.size()) a.alpha = al[ai++];
        if (uses_b && bi < be.size()) a.beta = be[bi++];
      }
      out.push_back(a);
    }
  return out;
}

// Kind: 0 RNN, 1 GRU, 2 LSTM.
template <int kind>
void run_rnn(OpCtx& c) {
  const RTensor& xt = c.t_rank(0, 3);
  int64_t layout = c.attr_i("layout", 0);
  int64_t S = layout ? xt.shape[1] : xt.shape[0], B = layout ? xt.shape[0] : xt.shape[1], I = xt.shape[2];
  int64_t Hs = c.attr_i("hidden_size", 0);
  std::string dir = c.attr_s("direction", "forward");
  c.require(dir == "forward" || dir == "reverse" || dir == "bidirectional", "unknown direction '" + dir + "'");
  int dirs = dir == "bidirectional" ? 2 : 1;
  int G = kind == 0 ? 1 : (kind == 1 ? 3 : 4);
  const RTensor& wt = c.t_rank(1, 3);
  if (Hs == 0) Hs = wt.shape[1] / G;
  c.size_value(Hs, "hidden_size", 1 << 24);
  // Every weight and state must have exactly the dims the attributes and X imply: the loops
  // below index them with those dims.
  c.t_dims(1, {dirs, checked_mul(G, Hs), I});
  c.t_dims(2, {dirs, checked_mul(G, Hs), Hs});
  if (c.has(3)) c.t_dims(3, {dirs, checked_mul(2 * G, Hs)});
  Shape state_dims = layout ? Shape{B, dirs, Hs} : Shape{dirs, B, Hs};
  if (c.has(4)) c.t_dims(4, {B});
  if (c.has(5)) c.t_dims(5, state_dims);
  if (kind == 2 && c.has(6)) c.t_dims(6, state_dims);
  if (kind == 2 && c.has(7)) c.t_dims(7, {dirs, 3 * Hs});
  check_tensor_bytes(checked_mul(shape_numel({S, dirs, B, Hs}), 2), sizeof(double), "the output Y");
  std::vector<double> X = f64_of(xt), W = f64_of(c.t(1)), R = f64_of(c.t(2));
  std::vector<double> Bv(static_cast<size_t>(dirs * 2 * G * Hs), 0.0);
  if (c.has(3)) Bv = f64_of(c.t(3));
  std::vector<int64_t> lens(static_cast<size_t>(B), S);
  if (c.has(4)) lens = to_i64_vec(c.t(4));
  for (int64_t& l : lens) l = std::clamp<int64_t>(l, 0, S);
  std::vector<double> H0(static_cast<size_t>(dirs * B * Hs), 0.0), C0(H0.size(), 0.0), P;
  if (c.has(5)) H0 = f64_of(c.t(5));
  if (kind == 2 && c.has(6)) C0 = f64_of(c.t(6));
  if (kind == 2 && c.has(7)) P = f64_of(c.t(7));
  // Initial states follow the layout too.
  if (layout && c.has(5)) {
    std::vector<double> t(H0.size());
    for (int64_t b = 0; b < B; ++b)
      for (int d = 0; d < dirs; ++d)
        for (int64_t h = 0; h < Hs; ++h) t[(d * B + b) * Hs + h] = H0[(b * dirs + d) * Hs + h];
    H0 = t;
  }
  if (layout && kind == 2 && c.has(6)) {
    std::vector<double> t(C0.size());
    for (int64_t b = 0; b < B; ++b)
      for (int d = 0; d < dirs; ++d)
        for (int64_t h = 0; h < Hs; ++h) t[(d * B + b) * Hs + h] = C0[(b * dirs + d) * Hs + h];
    C0 = t;
  }
  double clip = c.attr_f("clip", 0.f);
  bool has_clip = c.has_attr("clip");
  bool lbr = c.attr_i("linear_before_reset", 0) != 0;
  bool input_forget = c.attr_i("input_forget", 0) != 0;
  std::vector<std::string> dflt = kind == 0 ? std::vector<std::string>{"Tanh"}
                                  : kind == 1 ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                              : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  std::vector<Act> acts = activations(c, dirs, dflt);
  size_t per = dflt.size();
  std::vector<double> Y(static_cast<size_t>(S * dirs * B * Hs), 0.0), Yh(static_cast<size_t>(dirs * B * Hs)), Yc(Yh.size());
  auto xat = [&](int64_t t, int64_t b, int64_t i) { return X[static_cast<size_t>(layout ? (b * S + t) * I + i : (t * B + b) * I + i)]; };
  auto cl = [&](double v) { return has_clip ? std::min(std::max(v, -clip), clip) : v; };
  std::vector<double> gx(static_cast<size_t>(G * Hs)), gh(static_cast<size_t>(G * Hs));
  for (int d = 0; d < dirs; ++d) {
    bool rev = dir == "reverse" || d == 1;
    const double* Wd = W.data() + static_cast<size_t>(d * G * Hs * I);
    const double* Rd = R.data() + static_cast<size_t>(d * G * Hs * Hs);
    const double* Wb = Bv.data() + static_cast<size_t>(d * 2 * G * Hs);
    const double* Rb = Wb + G * Hs;
    const Act* f = &acts[d * per];
    for (int64_t b = 0; b < B; ++b) {
      std::vector<double> h(H0.data() + static_cast<size_t>((d * B + b) * Hs), H0.data() + static_cast<size_t>((d * B + b + 1) * Hs));
      std::vector<double> cs(C0.data() + static_cast<size_t>((d * B + b) * Hs), C0.data() + static_cast<size_t>((d * B + b + 1) * Hs));
      int64_t L = std::min<int64_t>(lens[static_cast<size_t>(b)], S);
      for (int64_t step = 0; step < L; ++step) {
        int64_t t = rev ? L - 1 - step : step;
        for (int64_t g = 0; g < G * Hs; ++g) {
          double sx = Wb[g], sh = Rb[g];
          for (int64_t i = 0; i < I; ++i) sx += Wd[g * I + i] * xat(t, b, i);
          for (int64_t k = 0; k < Hs; ++k) sh += Rd[g * Hs + k] * h[k];
          gx[g] = sx;
          gh[g] = sh;
        }
        std::vector<double> nh(static_cast<size_t>(Hs));
        if (kind == 0) {
          for (int64_t k = 0; k < Hs; ++k) nh[k] = f[0](cl(gx[k] + gh[k]));
        } else if (kind == 1) {
          // Gates z, r, h; without linear_before_reset r scales h_{t-1} before R_h.
          std::vector<double> r(static_cast<size_t>(Hs));
          for (int64_t k = 0; k < Hs; ++k) r[k] = f[0](cl(gx[Hs + k] + gh[Hs + k]));
          for (int64_t k = 0; k < Hs; ++k) {
            double z = f[0](cl(gx[k] + gh[k]));
            double s;
            if (lbr) {
              s = gx[2 * Hs + k] + r[k] * gh[2 * Hs + k];
            } else {
              s = gx[2 * Hs + k] + Rb[2 * Hs + k];
              for (int64_t q = 0; q < Hs; ++q) s += Rd[(2 * Hs + k) * Hs + q] * r[q] * h[q];
            }
            nh[k] = (1 - z) * f[1](cl(s)) + z * h[k];
          }
        } else {
          // Gates i, o, f, c; peepholes i, o, f.
          std::vector<double> nc(static_cast<size_t>(Hs));
          for (int64_t k = 0; k < Hs; ++k) {
            double pi = P.empty() ? 0 : P[static_cast<size_t>(d * 3 * Hs + k)];
            double po = P.empty() ? 0 : P[static_cast<size_t>(d * 3 * Hs + Hs + k)];
            double pf = P.empty() ? 0 : P[static_cast<size_t>(d * 3 * Hs + 2 * Hs + k)];
            double ig = f[0](cl(gx[k] + gh[k] + pi * cs[k]));
            double fg = input_forget ? 1 - ig : f[0](cl(gx[2 * Hs + k] + gh[2 * Hs + k] + pf * cs[k]));
            double cg = f[1](cl(gx[3 * Hs + k] + gh[3 * Hs + k]));
            nc[k] = fg * cs[k] + ig * cg;
            double og = f[0](cl(gx[Hs + k] + gh[Hs + k] + po * nc[k]));
            nh[k] = og * f[2](nc[k]);
          }
          cs = nc;
        }
        h = nh;
        for (int64_t k = 0; k < Hs; ++k) Y[static_cast<size_t>(((t * dirs + d) * B + b) * Hs + k)] = h[k];
      }
      for (int64_t k = 0; k < Hs; ++k) {
        Yh[static_cast<size_t>((d * B + b) * Hs + k)] = h[k];
        Yc[static_cast<size_t>((d * B + b) * Hs + k)] = cs[k];
      }
    }
  }
  int32_t dt = xt.dtype;
  // Results are computed [S, dirs, B, H] and [dirs, B, H]; layout 1 puts the batch first.
  if (c.wants(0))
    c.set(0, layout ? tensor_of(permute_f64(Y, {S, dirs, B, Hs}, {2, 0, 1, 3}), dt, {B, S, dirs, Hs})
                    : tensor_of(Y, dt, {S, dirs, B, Hs}));
  auto state = [&](const std::vector<double>& v) {
    return layout ? tensor_of(permute_f64(v, {dirs, B, Hs}, {1, 0, 2}), dt, {B, dirs, Hs}) : tensor_of(v, dt, {dirs, B, Hs});
  };
  if (c.wants(1)) c.set(1, state(Yh));
  if (kind == 2 && c.wants(2)) c.set(2, state(Yc));
}


}  // namespace

void register_rnn_ops(Registry& r) {
  r.add("RNN", run_rnn<0>, 7);
  r.add("GRU", run_rnn<1>, 7);
  r.add("LSTM", run_rnn<2>, 7);
}

}  // namespace ofg::exec
