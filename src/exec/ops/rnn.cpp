// Recurrent ops: RNN, GRU, LSTM (both layouts, all directions, sequence_lens, clip, custom
// activations, peepholes). This file checks a call, writes the outputs, and computes in double
// for the float types other than float32 (float32 runs through GEMMs in rnn_gemm.cpp; the double
// computation is its test oracle).
#include "exec/ops/rnn.h"

namespace ofg::exec::rnn {

double Act::operator()(double x) const {
  switch (fn) {
    case Sigmoid: return 1 / (1 + std::exp(-x));
    case Tanh: return std::tanh(x);
    case Relu: return std::max(0.0, x);
    case Affine: return alpha * x + beta;
    case LeakyRelu: return x >= 0 ? x : alpha * x;
    case ThresholdedRelu: return x > alpha ? x : 0;
    case ScaledTanh: return alpha * std::tanh(beta * x);
    case HardSigmoid: return std::max(0.0, std::min(1.0, alpha * x + beta));
    case Elu: return x >= 0 ? x : alpha * (std::exp(x) - 1);
    case Softsign: return x / (1 + std::fabs(x));
    case Softplus: return std::log1p(std::exp(x));
  }
  return x;
}

void Act::apply(float* x, size_t n) const {
  const kernels::KernelTable& kt = kernels::active_table();
  const float a = static_cast<float>(alpha), b = static_cast<float>(beta);
  switch (fn) {
    case Sigmoid: return kt.unary(kernels::UnaryOp::Sigmoid, x, x, n, 0.f, 0.f);
    case Tanh: return kt.unary(kernels::UnaryOp::Tanh, x, x, n, 0.f, 0.f);
    case Relu: return kt.unary(kernels::UnaryOp::Relu, x, x, n, 0.f, 0.f);
    case LeakyRelu: return kt.unary(kernels::UnaryOp::LeakyRelu, x, x, n, a, 0.f);
    case HardSigmoid: return kt.unary(kernels::UnaryOp::HardSigmoid, x, x, n, a, b);
    case Softplus: return kt.unary(kernels::UnaryOp::Softplus, x, x, n, 0.f, 0.f);
    default:
      for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>((*this)(x[i]));
  }
}

namespace {

struct ActName {
  const char* name;
  Act::Fn fn;
  double alpha, beta;  // defaults
  bool uses_alpha, uses_beta;
};
constexpr ActName kActs[] = {
    {"Sigmoid", Act::Sigmoid, 0, 0, false, false},
    {"Tanh", Act::Tanh, 0, 0, false, false},
    {"Relu", Act::Relu, 0, 0, false, false},
    {"Affine", Act::Affine, 1.0, 0.0, true, true},
    {"LeakyRelu", Act::LeakyRelu, 0.01, 0, true, false},
    {"ThresholdedRelu", Act::ThresholdedRelu, 1.0, 0, true, false},
    {"ScaledTanh", Act::ScaledTanh, 1.0, 1.0, true, true},
    {"HardSigmoid", Act::HardSigmoid, 0.2, 0.5, true, true},
    {"Elu", Act::Elu, 1.0, 0, true, false},
    {"Softsign", Act::Softsign, 0, 0, false, false},
    {"Softplus", Act::Softplus, 0, 0, false, false},
};

// Activations per direction: the attribute's names (alpha/beta consumed in order by the
// functions that take them), the defaults where the attribute is absent.
std::vector<Act> activations(const OpCtx& c, int dirs, const std::vector<std::string>& dflt) {
  std::vector<std::string> names;
  if (const Attribute* a = c.attr("activations"))
    for (const Bytes& s : a->strings) names.emplace_back(s.view());
  std::vector<float> al = c.attr_floats("activation_alpha"), be = c.attr_floats("activation_beta");
  std::vector<Act> out;
  size_t per = dflt.size(), ai = 0, bi = 0;
  for (int d = 0; d < dirs; ++d)
    for (size_t k = 0; k < per; ++k) {
      size_t idx = d * per + k;
      const std::string& name = idx < names.size() ? names[idx] : dflt[k];
      const ActName* spec = nullptr;
      for (const ActName& n : kActs)
        if (name == n.name) spec = &n;
      if (!spec) c.error("unknown activation '" + name + "'");
      Act a;
      a.fn = spec->fn;
      a.alpha = spec->alpha;
      a.beta = spec->beta;
      if (idx < names.size()) {
        if (spec->uses_alpha && ai < al.size()) a.alpha = al[ai++];
        if (spec->uses_beta && bi < be.size()) a.beta = be[bi++];
      }
      out.push_back(a);
    }
  return out;
}

// Double precision, one batch entry and step at a time: the plain reading of the ONNX formulas.
Results<double> run_reference(OpCtx& c, const Call& k) {
  const int64_t G = k.gates, Hs = k.Hs, I = k.I, B = k.B, S = k.S;
  auto values = [&](size_t i) {
    std::vector<double> v(c.has(i) ? static_cast<size_t>(c.t(i).numel()) : 0);
    for (size_t j = 0; j < v.size(); ++j) v[j] = get_f64(c.t(i), static_cast<int64_t>(j));
    return v;
  };
  std::vector<double> X = values(0), W = values(1), R = values(2), Bv = values(3), P;
  if (Bv.empty()) Bv.assign(static_cast<size_t>(k.dirs * 2 * G * Hs), 0.0);
  if (k.kind == Kind::Lstm) P = values(7);
  std::vector<double> H0 = initial_state<double>(c, k, 5), C0 = initial_state<double>(c, k, 6);
  Results<double> r;
  r.Y.assign(static_cast<size_t>(S * k.dirs * B * Hs), 0.0);
  r.Yh.resize(static_cast<size_t>(k.dirs * B * Hs));
  r.Yc.resize(r.Yh.size());
  std::vector<double> gx(static_cast<size_t>(G * Hs)), gh(gx.size()), nh(static_cast<size_t>(Hs)), nc(nh.size()),
      rg(nh.size());
  for (int d = 0; d < k.dirs; ++d) {
    const double* Wd = W.data() + static_cast<size_t>(d * G * Hs * I);
    const double* Rd = R.data() + static_cast<size_t>(d * G * Hs * Hs);
    const double* Wb = Bv.data() + static_cast<size_t>(d * 2 * G * Hs);
    const double* Rb = Wb + G * Hs;
    const Act* f = k.acts_of(d);
    for (int64_t b = 0; b < B; ++b) {
      std::vector<double> h(H0.begin() + (d * B + b) * Hs, H0.begin() + (d * B + b + 1) * Hs);
      std::vector<double> cs(C0.begin() + (d * B + b) * Hs, C0.begin() + (d * B + b + 1) * Hs);
      const int64_t L = k.lens[static_cast<size_t>(b)];
      for (int64_t step = 0; step < L; ++step) {
        const int64_t t = k.reversed(d) ? L - 1 - step : step;
        const double* x = X.data() + k.x_row(t, b) * I;
        for (int64_t g = 0; g < G * Hs; ++g) {
          double sx = Wb[g], sh = Rb[g];
          for (int64_t i = 0; i < I; ++i) sx += Wd[g * I + i] * x[i];
          for (int64_t q = 0; q < Hs; ++q) sh += Rd[g * Hs + q] * h[q];
          gx[g] = sx;
          gh[g] = sh;
        }
        if (k.kind == Kind::Rnn) {
          for (int64_t q = 0; q < Hs; ++q) nh[q] = f[0](k.clipped(gx[q] + gh[q]));
        } else if (k.kind == Kind::Gru) {
          // Gates z, r, h; without linear_before_reset r scales h_{t-1} before R_h.
          for (int64_t q = 0; q < Hs; ++q) rg[q] = f[0](k.clipped(gx[Hs + q] + gh[Hs + q]));
          for (int64_t q = 0; q < Hs; ++q) {
            double z = f[0](k.clipped(gx[q] + gh[q]));
            double s;
            if (k.linear_before_reset) {
              s = gx[2 * Hs + q] + rg[q] * gh[2 * Hs + q];
            } else {
              s = gx[2 * Hs + q] + Rb[2 * Hs + q];
              for (int64_t p = 0; p < Hs; ++p) s += Rd[(2 * Hs + q) * Hs + p] * rg[p] * h[p];
            }
            nh[q] = (1 - z) * f[1](k.clipped(s)) + z * h[q];
          }
        } else {
          // Gates i, o, f, c; peepholes i, o, f.
          for (int64_t q = 0; q < Hs; ++q) {
            auto peep = [&](int gate) { return P.empty() ? 0.0 : P[static_cast<size_t>((d * 3 + gate) * Hs + q)]; };
            double ig = f[0](k.clipped(gx[q] + gh[q] + peep(0) * cs[q]));
            double fg = k.input_forget ? 1 - ig : f[0](k.clipped(gx[2 * Hs + q] + gh[2 * Hs + q] + peep(2) * cs[q]));
            double cg = f[1](k.clipped(gx[3 * Hs + q] + gh[3 * Hs + q]));
            nc[q] = fg * cs[q] + ig * cg;
            double og = f[0](k.clipped(gx[Hs + q] + gh[Hs + q] + peep(1) * nc[q]));
            nh[q] = og * f[2](nc[q]);
          }
          cs = nc;
        }
        h = nh;
        std::copy(h.begin(), h.end(), r.Y.begin() + ((t * k.dirs + d) * B + b) * Hs);
      }
      std::copy(h.begin(), h.end(), r.Yh.begin() + (d * B + b) * Hs);
      std::copy(cs.begin(), cs.end(), r.Yc.begin() + (d * B + b) * Hs);
    }
  }
  return r;
}

void run(OpCtx& c, Kind kind) {
  Call k = check_call(c, kind);
  if (c.t(0).dtype == kFloat) return run_f32(c, k);
  set_outputs(c, k, run_reference(c, k), c.t(0).dtype);
}

void op_rnn(OpCtx& c) { run(c, Kind::Rnn); }
void op_gru(OpCtx& c) { run(c, Kind::Gru); }
void op_lstm(OpCtx& c) { run(c, Kind::Lstm); }

}  // namespace

Call check_call(OpCtx& c, Kind kind) {
  Call k;
  k.kind = kind;
  const RTensor& xt = c.t_rank(0, 3);
  k.batch_major = c.attr_i("layout", 0) != 0;
  k.S = k.batch_major ? xt.shape[1] : xt.shape[0];
  k.B = k.batch_major ? xt.shape[0] : xt.shape[1];
  k.I = xt.shape[2];
  std::string dir = c.attr_s("direction", "forward");
  if (!(dir == "forward" || dir == "reverse" || dir == "bidirectional"))
    c.error("unknown direction '" + dir + "'");
  k.dirs = dir == "bidirectional" ? 2 : 1;
  k.reverse = dir == "reverse";
  k.gates = kind == Kind::Rnn ? 1 : (kind == Kind::Gru ? 3 : 4);
  const RTensor& wt = c.t_rank(1, 3);
  k.Hs = c.attr_i("hidden_size", 0);
  if (k.Hs == 0) k.Hs = wt.shape[1] / k.gates;
  c.size_value(k.Hs, "hidden_size", 1 << 24);
  // Every weight and state must have exactly the dims the attributes and X imply: the loops
  // index them with those dims.
  const int64_t GH = checked_mul(k.gates, k.Hs);
  c.t_dims(1, {k.dirs, GH, k.I});
  c.t_dims(2, {k.dirs, GH, k.Hs});
  if (c.has(3)) c.t_dims(3, {k.dirs, checked_mul(2, GH)});
  const Shape state_dims = k.batch_major ? Shape{k.B, k.dirs, k.Hs} : Shape{k.dirs, k.B, k.Hs};
  if (c.has(4)) c.t_dims(4, {k.B});
  if (c.has(5)) c.t_dims(5, state_dims);
  if (kind == Kind::Lstm && c.has(6)) c.t_dims(6, state_dims);
  if (kind == Kind::Lstm && c.has(7)) c.t_dims(7, {k.dirs, 3 * k.Hs});
  for (size_t i = 1; i < c.n_in(); ++i)
    if (i != 4 && c.has(i)) if (!(c.t(i).dtype == xt.dtype)) c.error("input " + std::to_string(i) + " has another type than X");
  check_tensor_bytes(checked_mul(shape_numel({k.S, k.dirs, k.B, k.Hs}), 2), sizeof(double), "the output Y");
  k.lens.assign(static_cast<size_t>(k.B), k.S);
  if (c.has(4)) k.lens = to_i64_vec(c.t(4));
  for (int64_t& l : k.lens) l = std::clamp<int64_t>(l, 0, k.S);
  k.has_clip = c.has_attr("clip");
  k.clip = c.attr_f("clip", 0.f);
  k.linear_before_reset = c.attr_i("linear_before_reset", 0) != 0;
  k.input_forget = c.attr_i("input_forget", 0) != 0;
  const std::vector<std::string> dflt = kind == Kind::Rnn   ? std::vector<std::string>{"Tanh"}
                                        : kind == Kind::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                            : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  k.acts = activations(c, k.dirs, dflt);
  k.acts_per_dir = dflt.size();
  return k;
}

template <class T>
void set_outputs(OpCtx& c, const Call& k, const Results<T>& r, int32_t dtype) {
  // Internal index of element (s, d, b, h) of Y, and of (d, b, h) of a state, per layout.
  auto make = [&](const std::vector<T>& v, Shape shape, auto internal_index) {
    RTensor t = RTensor::alloc(dtype, std::move(shape));
    const bool same_order = !k.batch_major;
    if (same_order && dtype == kFloat && std::is_same<T, float>::value) {
      std::copy(v.begin(), v.end(), t.data<float>());  // (memcpy from an empty vector's null data is UB)
      return t;
    }
    for (int64_t i = 0; i < static_cast<int64_t>(v.size()); ++i)
      set_f64(t, i, static_cast<double>(v[static_cast<size_t>(same_order ? i : internal_index(i))]));
    return t;
  };
  const int64_t D = k.dirs, B = k.B, S = k.S, Hs = k.Hs;
  if (c.wants(0)) {
    // Batch-major output element i = ((b * S + s) * D + d) * Hs + h.
    auto y_index = [&](int64_t i) {
      int64_t h = i % Hs, d = i / Hs % D, s = i / (Hs * D) % S, b = i / (Hs * D * S);
      return ((s * D + d) * B + b) * Hs + h;
    };
    c.set(0, make(r.Y, k.batch_major ? Shape{B, S, D, Hs} : Shape{S, D, B, Hs}, y_index));
  }
  // Batch-major state element i = (b * D + d) * Hs + h.
  auto state_index = [&](int64_t i) {
    int64_t h = i % Hs, d = i / Hs % D, b = i / (Hs * D);
    return (d * B + b) * Hs + h;
  };
  const Shape state_shape = k.batch_major ? Shape{B, D, Hs} : Shape{D, B, Hs};
  if (c.wants(1)) c.set(1, make(r.Yh, state_shape, state_index));
  if (k.kind == Kind::Lstm && c.wants(2)) c.set(2, make(r.Yc, state_shape, state_index));
}

template void set_outputs<float>(OpCtx&, const Call&, const Results<float>&, int32_t);
template void set_outputs<double>(OpCtx&, const Call&, const Results<double>&, int32_t);

}  // namespace ofg::exec::rnn

namespace ofg::exec {

void register_rnn_ops(Registry& r) {
  r.add("RNN", rnn::op_rnn, 7).no_rule();
  r.add("GRU", rnn::op_gru, 7).no_rule();
  r.add("LSTM", rnn::op_lstm, 7).no_rule();
}

}  // namespace ofg::exec
