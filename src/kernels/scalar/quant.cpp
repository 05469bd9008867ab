// Reference 8-bit quantization kernels: the formulas of the ONNX reference implementation, one
// element at a time, in the precision each step is specified in.
#include "kernels/internal.h"

#include <algorithm>

namespace ofg::kernels::scalar {

namespace {
// Rounded value plus zero point, clamped into the 8-bit type; NaN gives 0.
uint8_t saturate8(float rounded_plus_zero, bool out_signed) {
  if (std::isnan(rounded_plus_zero)) return 0;
  const float lo = out_signed ? -128.f : 0.f, hi = out_signed ? 127.f : 255.f;
  return static_cast<uint8_t>(static_cast<int32_t>(std::min(std::max(rounded_plus_zero, lo), hi)));
}
}  // namespace

void quantize_u8(const float* x, size_t n, float scale, float zero, bool out_signed, uint8_t* y) {
  for (size_t i = 0; i < n; ++i) y[i] = saturate8(std::nearbyint(x[i] / scale) + zero, out_signed);
}

void dequantize_u8(const uint8_t* x, size_t n, bool in_signed, int32_t zero, float scale, float* y) {
  for (size_t i = 0; i < n; ++i) y[i] = static_cast<float>(int8_value(x[i], in_signed) - zero) * scale;
}

void requantize_u8(const int32_t* acc, size_t n, double bias, double mult, int32_t zero, bool out_signed,
                   uint8_t* y) {
  for (size_t i = 0; i < n; ++i) {
    const float f = static_cast<float>((static_cast<double>(acc[i]) + bias) * mult);
    y[i] = saturate8(std::nearbyint(f) + static_cast<float>(zero), out_signed);
  }
}

}  // namespace ofg::kernels::scalar
