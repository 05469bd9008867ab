// What the two computations of the recurrent ops (RNN, GRU, LSTM) share: the call's checked
// dims and attributes, the activation functions, and the outputs in the op's layout.
//   rnn.cpp       checks the call, holds the double-precision reference (any float type) and
//                 writes the outputs;
//   rnn_gemm.cpp  float32: input projections of all steps as one SGEMM, one SGEMV per step and
//                 direction for the recurrence, activations through the kernel table.
#pragma once
#include "exec/ops/util.h"

namespace ofg::exec::rnn {

enum class Kind { Rnn = 0, Gru = 1, Lstm = 2 };

// One activation function of the ONNX recurrent ops, with its alpha and beta.
struct Act {
  enum Fn { Sigmoid, Tanh, Relu, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus };
  Fn fn = Tanh;
  double alpha = 0, beta = 0;
  double operator()(double x) const;
  // In place over n floats; through the kernel table where it has the function.
  void apply(float* x, size_t n) const;
};

// A checked call. Internal order of the results: Y [S, dirs, B, Hs], states [dirs, B, Hs].
struct Call {
  Kind kind = Kind::Rnn;
  int gates = 1;  // G: 1 for RNN, 3 for GRU (z, r, h), 4 for LSTM (i, o, f, c)
  int dirs = 1;
  bool reverse = false;  // direction "reverse" (with "bidirectional", direction 1 is reversed)
  bool batch_major = false;  // layout 1: X [B, S, I], Y [B, S, dirs, Hs], states [B, dirs, Hs]
  int64_t S = 0, B = 0, I = 0, Hs = 0;
  std::vector<int64_t> lens;  // per batch entry, clamped to [0, S]
  bool has_clip = false;
  double clip = 0;
  bool linear_before_reset = false, input_forget = false;
  std::vector<Act> acts;  // acts_per_dir per direction
  size_t acts_per_dir = 1;

  bool reversed(int d) const { return reverse || d == 1; }
  const Act* acts_of(int d) const { return &acts[static_cast<size_t>(d) * acts_per_dir]; }
  // Row of X (viewed as [S * B, I]) holding step t of batch entry b.
  int64_t x_row(int64_t t, int64_t b) const { return batch_major ? b * S + t : t * B + b; }
  double clipped(double v) const { return has_clip ? std::min(std::max(v, -clip), clip) : v; }
};

Call check_call(OpCtx& c, Kind kind);

// Input i (an initial state, optional) in the internal [dirs, B, Hs] order; zeros when absent.
template <class T>
std::vector<T> initial_state(const OpCtx& c, const Call& k, size_t i) {
  std::vector<T> s(static_cast<size_t>(k.dirs * k.B * k.Hs), T(0));
  if (!c.has(i)) return s;
  const RTensor& t = c.t(i);
  for (int d = 0; d < k.dirs; ++d)
    for (int64_t b = 0; b < k.B; ++b)
      for (int64_t h = 0; h < k.Hs; ++h) {
        int64_t from = k.batch_major ? (b * k.dirs + d) * k.Hs + h : (d * k.B + b) * k.Hs + h;
        s[static_cast<size_t>((d * k.B + b) * k.Hs + h)] = static_cast<T>(get_f64(t, from));
      }
  return s;
}

template <class T>
struct Results {
  std::vector<T> Y, Yh, Yc;
};

// Sets the wanted outputs from results in the internal order, converted to `dtype`.
template <class T>
void set_outputs(OpCtx& c, const Call& k, const Results<T>& r, int32_t dtype);

void run_f32(OpCtx& c, const Call& k);

}  // namespace ofg::exec::rnn
