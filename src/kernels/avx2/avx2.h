// Entry points of the AVX2 kernels (only the dispatch table refers to them).
#pragma once

#include "kernels/internal.h"

namespace ofg::kernels::avx2 {
void sgemm(bool trans_a, bool trans_b, size_t M, size_t N, size_t K, float alpha, const float* A,
           size_t lda, const float* B, size_t ldb, float beta, float* C, size_t ldc);
}  // namespace ofg::kernels::avx2

namespace ofg::kernels::avx2 {
void binary_vv(BinaryOp op, const float* a, const float* b, float* y, size_t n);
void binary_vs(BinaryOp op, const float* a, float b, float* y, size_t n);
void binary_sv(BinaryOp op, float a, const float* b, float* y, size_t n);
void unary(UnaryOp op, const float* x, float* y, size_t n, float alpha, float beta);
void reduce(ReduceOp op, const float* x, float* y, size_t outer, size_t len, size_t inner);
void softmax(const float* x, float* y, size_t outer, size_t len, size_t inner, bool log);
void layer_norm(const float* x, const float* scale, const float* bias, float* y, size_t rows,
                size_t D, float eps, float* mean, float* inv_std);
void transpose2d(size_t elem_size, const void* src, size_t src_ld, void* dst, size_t dst_ld,
                 size_t rows, size_t cols);
uint64_t hash_bytes(const void* data, size_t n);
DiffStats diff_f32(const float* a, const float* b, size_t n, double atol, double rtol);
void f16_to_f32(const uint16_t* x, float* y, size_t n);
void f32_to_f16(const float* x, uint16_t* y, size_t n);
void bf16_to_f32(const uint16_t* x, float* y, size_t n);
void f32_to_bf16(const float* x, uint16_t* y, size_t n);
void conv2d(const Conv2DParams& p, const float* x, const float* w, float* y);
void max_pool2d(const Pool2DParams& p, const float* x, float* y);
size_t conv2d_packed_size(const Conv2DParams& p);
void conv2d_pack(const Conv2DParams& p, const float* w, float* packed);
void conv2d_prepacked(const Conv2DParams& p, const float* x, const float* packed, float* y);
}  // namespace ofg::kernels::avx2
