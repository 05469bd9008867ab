// Reference reductions over [outer, len, inner]; sums accumulate in double so the oracle is
// more accurate than the float SIMD versions it checks.
#include "kernels/internal.h"

#include <limits>

namespace ofg::kernels::scalar {

void reduce(ReduceOp op, const float* x, float* y, size_t outer, size_t len, size_t inner) {
  const float inf = std::numeric_limits<float>::infinity();
  for (size_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < inner; ++i) {
      const float* p = x + o * len * inner + i;
      float* out = y + o * inner + i;
      auto at = [&](size_t r) { return p[r * inner]; };
      switch (op) {
        case ReduceOp::Sum:
        case ReduceOp::Mean:
        case ReduceOp::LogSum: {
          double s = 0;
          for (size_t r = 0; r < len; ++r) s += at(r);
          *out = op == ReduceOp::Sum    ? static_cast<float>(s)
                 : op == ReduceOp::Mean ? static_cast<float>(s / static_cast<double>(len))
                                        : static_cast<float>(std::log(s));
          break;
        }
        case ReduceOp::SumSquare:
        case ReduceOp::L2: {
          double s = 0;
          for (size_t r = 0; r < len; ++r) s += static_cast<double>(at(r)) * at(r);
          *out = static_cast<float>(op == ReduceOp::L2 ? std::sqrt(s) : s);
          break;
        }
        case ReduceOp::L1: {
          double s = 0;
          for (size_t r = 0; r < len; ++r) s += std::fabs(at(r));
          *out = static_cast<float>(s);
          break;
        }
        case ReduceOp::Prod: {
          double s = 1;
          for (size_t r = 0; r < len; ++r) s *= at(r);
          *out = static_cast<float>(s);
          break;
        }
        case ReduceOp::Max:
        case ReduceOp::Min: {
          float m = op == ReduceOp::Max ? -inf : inf;
          for (size_t r = 0; r < len; ++r) {
            const float v = at(r);
            if (std::isnan(v)) { m = v; break; }
            if (op == ReduceOp::Max ? v > m : v < m) m = v;
          }
          *out = m;
          break;
        }
        case ReduceOp::LogSumExp: {
          float m = -inf;
          for (size_t r = 0; r < len; ++r) m = std::isnan(at(r)) || at(r) > m ? at(r) : m;
          if (len == 0 || std::isinf(m) || std::isnan(m)) {
            // All -inf gives -inf; any +inf gives +inf; NaN propagates.
            *out = m;
            break;
          }
          double s = 0;
          for (size_t r = 0; r < len; ++r) s += std::exp(static_cast<double>(at(r)) - m);
          *out = static_cast<float>(m + std::log(s));
          break;
        }
      }
    }
  }
}

}  // namespace ofg::kernels::scalar
