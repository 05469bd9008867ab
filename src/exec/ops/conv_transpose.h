// ConvTranspose on float32: the geometry the op resolves from its attributes, the scatter loop
// that is its reference, and the fast form (one GEMM per image and group, then a column
// scatter) that the op runs. Exposed for the tests, which hold the second to the first.
#pragma once
#include <cstdint>
#include <vector>

namespace ofg::exec {

struct ConvTransposeGeometry {
  int64_t N = 1, C_in = 0, C_out = 0, group = 1;
  // Per spatial axis: input size, kernel size, stride, dilation, padding at the start, output size.
  std::vector<int64_t> in, kernel, stride, dilation, pad_begin, out;
};

// y[N, C_out, out...] = bias (or 0) + the scatter of every input element times its kernel; `w`
// is [C_in, C_out/group, kernel...] as ONNX lays it out. Every spatial rank.
void conv_transpose_reference(const ConvTransposeGeometry& g, const float* x, const float* w, const float* bias,
                              float* y);

// The same result up to the order of the sums, as a GEMM (W_g^T times X_g, through the kernel
// table) and a scatter of its columns into y. Spatial ranks 1 to 3; false (y untouched) otherwise.
bool conv_transpose_gemm(const ConvTransposeGeometry& g, const float* x, const float* w, const float* bias, float* y);

}  // namespace ofg::exec
