// MelWeightMatrix (opset 17): the (dft_length/2 + 1, num_mel_bins) matrix of triangular filters
// that maps a one-sided linear spectrum onto the mel scale, mel(f) = 2595 log10(1 + f/700).
// num_mel_bins + 2 points are spaced evenly in mel between the edges, mapped back to hertz and
// to a spectrum bin floor((dft_length + 1) f / sample_rate); filter i rises from point i to a
// peak of 1 at point i+1 and falls to point i+2. The mel step divides the range by
// num_mel_bins + 2 (not + 1) as the ONNX reference and its test data do.
#include "exec/infer_rules.h"
#include "exec/ops/util.h"

namespace ofg::exec {
namespace {

double hz_to_mel(double f) { return 2595.0 * std::log10(1.0 + f / 700.0); }
double mel_to_hz(double m) { return 700.0 * (std::pow(10.0, m / 2595.0) - 1.0); }

void op_mel_weight_matrix(OpCtx& c) {
  c.require_inputs(5);
  // A bin count a 32-bit index can address: beyond it the matrix would not fit in memory anyway.
  constexpr int64_t kMaxBins = int64_t{1} << 31;
  int64_t mels = c.size_value(get_i64(c.t_numel(0, 1), 0), "num_mel_bins", kMaxBins);
  int64_t dft = get_i64(c.t_numel(1, 1), 0);
  c.require(dft >= 1 && dft <= kMaxBins, "dft_length must be in [1, 2^31], got " + std::to_string(dft));
  int64_t rate = get_i64(c.t_numel(2, 1), 0);
  c.require(rate > 0, "sample_rate must be positive, got " + std::to_string(rate));
  double lo = get_f64(c.t_numel(3, 1), 0), hi = get_f64(c.t_numel(4, 1), 0);
  c.require(std::isfinite(lo) && std::isfinite(hi) && lo >= 0 && lo <= hi,
            "the edges must satisfy 0 <= lower_edge_hertz <= upper_edge_hertz, got " + std::to_string(lo) + " and " +
                std::to_string(hi));
  int32_t dt = static_cast<int32_t>(c.attr_i("output_datatype", kFloat));
  int64_t spec = dft / 2 + 1;

  double lo_mel = hz_to_mel(lo), step = (hz_to_mel(hi) - lo_mel) / static_cast<double>(mels + 2);
  std::vector<int64_t> point(scratch_elems(mels + 2, sizeof(int64_t)));
  for (int64_t i = 0; i < mels + 2; ++i) {
    double hz = mel_to_hz(static_cast<double>(i) * step + lo_mel);
    double bin = std::floor(static_cast<double>(dft + 1) * hz / static_cast<double>(rate));
    // Points beyond the spectrum would address rows the matrix does not have.
    c.require(bin >= 0 && bin < static_cast<double>(spec) + (i == mels + 1 ? 1 : 0),
              "upper_edge_hertz " + std::to_string(hi) + " maps beyond the " + std::to_string(spec) +
                  " bins of a " + std::to_string(dft) + "-point DFT at sample_rate " + std::to_string(rate));
    point[static_cast<size_t>(i)] = static_cast<int64_t>(bin);
  }
  std::vector<double> w(scratch_elems(checked_mul(spec, mels)), 0.0);
  for (int64_t i = 0; i < mels; ++i) {
    int64_t left = point[static_cast<size_t>(i)], mid = point[static_cast<size_t>(i + 1)];
    int64_t right = point[static_cast<size_t>(i + 2)];
    if (mid == left) {
      w[static_cast<size_t>(mid * mels + i)] = 1.0;
    } else {
      for (int64_t j = left; j <= mid; ++j)
        w[static_cast<size_t>(j * mels + i)] = static_cast<double>(j - left) / static_cast<double>(mid - left);
    }
    for (int64_t j = mid; j < right; ++j)
      w[static_cast<size_t>(j * mels + i)] = static_cast<double>(right - j) / static_cast<double>(right - mid);
  }
  c.set(0, tensor_of(w, dt, {spec, mels}));
}

bool rule_mel_weight_matrix(InferCtx& c) {
  std::vector<int64_t> v;
  IDim rows, cols;
  if (c.const_ints(1, v) && v.size() == 1 && v[0] >= 1) rows = rules::st(v[0] / 2 + 1);
  if (c.const_ints(0, v) && v.size() == 1 && v[0] >= 0) cols = rules::st(v[0]);
  c.out[0] = rules::ranked(static_cast<int32_t>(c.attr_i("output_datatype", kFloat)), {rows, cols});
  return true;
}

}  // namespace

void register_signal_mel_ops(Registry& r) {
  r.add("MelWeightMatrix", op_mel_weight_matrix, 17, 1 << 30, false).infer(rule_mel_weight_matrix).traits(kMayGrow);
}

}  // namespace ofg::exec
