#include "kernels/internal.h"

namespace ofg::kernels::scalar {

float binary_one(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::Add: return a + b;
    case BinaryOp::Sub: return a - b;
    case BinaryOp::Mul: return a * b;
    case BinaryOp::Div: return a / b;
    // a + b turns a NaN operand into the NaN result (numpy.maximum semantics).
    case BinaryOp::Max: return (std::isnan(a) || std::isnan(b)) ? a + b : (a < b ? b : a);
    case BinaryOp::Min: return (std::isnan(a) || std::isnan(b)) ? a + b : (b < a ? b : a);
    // Squares exactly rounded (pow is not guaranteed to be), as ONNX Runtime computes them.
    case BinaryOp::Pow: return b == 2.f ? a * a : std::pow(a, b);
  }
  return 0.f;
}

void binary_vv(BinaryOp op, const float* a, const float* b, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = binary_one(op, a[i], b[i]);
}
void binary_vs(BinaryOp op, const float* a, float b, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = binary_one(op, a[i], b);
}
void binary_sv(BinaryOp op, float a, const float* b, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = binary_one(op, a, b[i]);
}

void affine_vs(const float* x, float a, float b, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = binary_one(BinaryOp::Add, rounded(binary_one(BinaryOp::Mul, x[i], a)), b);
}

}  // namespace ofg::kernels::scalar
