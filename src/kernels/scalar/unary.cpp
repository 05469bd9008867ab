// Reference unary ops: libm in float (the SIMD approximations are measured against libm in
// double by the tests, not against this).
#include "kernels/internal.h"

namespace ofg::kernels::scalar {

namespace {
float sigmoid(float x) {
  // Both branches avoid exp overflow.
  if (x >= 0.f) return 1.f / (1.f + std::exp(-x));
  const float e = std::exp(x);
  return e / (1.f + e);
}
}  // namespace

float unary_one(UnaryOp op, float x, float alpha, float beta) {
  // x * f(x) with f(-inf) == 0 would give NaN at -inf; -FLT_MAX gives the limit (-0).
  const float xl = x < -3.4028234663852886e38f ? -3.4028234663852886e38f : x;
  switch (op) {
    case UnaryOp::Relu: return x < 0.f ? 0.f : x;
    case UnaryOp::LeakyRelu: return x < 0.f ? alpha * x : x;
    case UnaryOp::Clip: {  // min(max(x, lo), hi) as ONNX defines it (hi wins when lo > hi); NaN stays
      const float y = x < alpha ? alpha : x;
      return y > beta ? beta : y;
    }
    case UnaryOp::Exp: return std::exp(x);
    case UnaryOp::Log: return std::log(x);
    case UnaryOp::Tanh: return std::tanh(x);
    case UnaryOp::Sigmoid: return sigmoid(x);
    case UnaryOp::Erf: return std::erf(x);
    case UnaryOp::GeluErf: return 0.5f * xl * std::erfc(-xl * 0.70710678118654752f);
    case UnaryOp::GeluTanh: {
      const float u = 0.7978845608028654f * (xl + 0.044715f * xl * xl * xl);
      return 0.5f * xl * (1.f + std::tanh(u));
    }
    case UnaryOp::HardSigmoid: {
      const float v = alpha * x + beta;
      return v < 0.f ? 0.f : (v > 1.f ? 1.f : v);
    }
    case UnaryOp::HardSwish: {
      const float v = x * (1.f / 6.f) + 0.5f;
      return x * (v < 0.f ? 0.f : (v > 1.f ? 1.f : v));
    }
    case UnaryOp::Softplus:
      // log(1 + e^x) = max(x, 0) + log1p(e^-|x|)
      return (x > 0.f ? x : 0.f) + std::log1p(std::exp(-std::fabs(x)));
    case UnaryOp::Silu: return xl * sigmoid(xl);
    case UnaryOp::Sqrt: return std::sqrt(x);
    case UnaryOp::Reciprocal: return 1.f / x;
    case UnaryOp::Abs: return std::fabs(x);
    case UnaryOp::Neg: return -x;
    case UnaryOp::Floor: return std::floor(x);
    case UnaryOp::Ceil: return std::ceil(x);
    case UnaryOp::Round: return std::nearbyint(x);  // default rounding mode: half to even
    case UnaryOp::Swish: return xl * sigmoid(alpha * xl);
  }
  return x;
}

void unary(UnaryOp op, const float* x, float* y, size_t n, float alpha, float beta) {
  for (size_t i = 0; i < n; ++i) y[i] = unary_one(op, x[i], alpha, beta);
}

}  // namespace ofg::kernels::scalar
