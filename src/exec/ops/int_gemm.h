// The compute behind the integer ops of quantize.cpp (MatMulInteger, ConvInteger, QLinearMatMul,
// QLinearConv): exact int32 products through the kernel table's igemm, convolution by im2col
// (or straight on the input for pointwise, directly for depthwise), and requantization.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "exec/tensor.h"

namespace ofg::exec {

// An igemm operand: bytes read as uint8, or int8 when is_signed.
struct IntSpan {
  const uint8_t* data = nullptr;
  bool is_signed = false;
};

// Throws (through the op's error path) unless t is uint8 or int8; returns its bytes.
IntSpan int_span(const RTensor& t);

// The longest K one igemm call takes: no int32 partial sum can wrap (255 * 255 * 33025 < 2^31).
constexpr size_t kIntGemmMaxK = 32768;

// C[m * ldc + n] = sum_k (A[m, k] - za[m]) (B[k, n] - zb[n]) for row-major A (lda) and B (ldb):
// the exact sum, saturated to int32 when it does not fit (long K is split so that no int32 partial
// sum can wrap).
void int_gemm(size_t M, size_t N, size_t K, IntSpan A, size_t lda, const int32_t* za, IntSpan B, size_t ldb,
              const int32_t* zb, int32_t* C, size_t ldc);
// int_gemm with ranges of the longer side on threads, for the matrix products (MatMulInteger,
// QLinearMatMul) whose B is not a constant 2-D weight (that one is packed once and split by the
// kernel: quantize.cpp's int_gemm_shared_b). The convolutions split their output columns
// themselves, so that the im2col, the product and the requantization of a column range stay on
// one core (splitting only the product moved its operands between cores and made a 96x96
// QLinearConv CNN slower on two threads than on one).
void int_gemm_threads(size_t M, size_t N, size_t K, IntSpan A, size_t lda, const int32_t* za, IntSpan B, size_t ldb,
                      const int32_t* zb, int32_t* C, size_t ldc);

// Geometry of an integer convolution of any spatial rank (output size already resolved).
struct IntConvGeom {
  int64_t N = 1, C = 0, OC = 0, group = 1;
  std::vector<int64_t> in, out, kernel, stride, dilation, pad_begin;
};

// y [N, OC, out...] = convolution of (x - xz) with (w[oc] - wz[oc]); x is [N, C, in...], w is
// [OC, C / group, kernel...]; padding contributes nothing. Same saturation as int_gemm.
void int_conv_compute(const IntConvGeom& g, IntSpan x, int32_t xz, IntSpan w, const std::vector<int32_t>& wz,
                      int32_t* y);

// Takes finished sums instead of y: sink(plane, off, sums, count) receives the sums of outputs
// [off, off + count) of output plane `plane` (n * OC + oc), each exactly once, in pieces of
// whatever size the convolution's path produces them (a row, a column block), possibly on several
// threads at once. QLinearConv requantizes them while they are still in cache.
using IntSumSink = std::function<void(int64_t plane, int64_t off, const int32_t* sums, size_t count)>;
void int_conv_compute(const IntConvGeom& g, IntSpan x, int32_t xz, IntSpan w, const std::vector<int32_t>& wz,
                      const IntSumSink& sink);

// y[y_off + i] = clamp(round_half_even(float(double(acc[i] + bias) * mult)) + zp) into y's
// integer type, for i < n: the requantization of QLinearConv / QLinearMatMul. mult is the
// float multiplier (as a double).
void requantize(const int32_t* acc, size_t n, int64_t bias, double mult, int32_t zp, RTensor& y, int64_t y_off);

}  // namespace ofg::exec
