// Declarations shared by the kernel sources only (not part of the kernels API).
#pragma once

#include "kernels/kernels.h"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace ofg::kernels {

namespace scalar {
void sgemm(bool trans_a, bool trans_b, size_t M, size_t N, size_t K, float alpha, const float* A,
           size_t lda, const float* B, size_t ldb, float beta, float* C, size_t ldc);
void conv2d(const Conv2DParams& p, const float* x, const float* w, float* y);
size_t conv2d_packed_size(const Conv2DParams& p);  // 0: the scalar table has no packed form
void conv2d_pack(const Conv2DParams& p, const float* w, float* packed);
void conv2d_prepacked(const Conv2DParams& p, const float* x, const float* packed, float* y);
void conv_nd(const ConvNdParams& p, const float* x, const float* w, float* y);
void conv_transpose2d(const ConvTranspose2DParams& p, const float* x, const float* w, float* y);
void binary_vv(BinaryOp op, const float* a, const float* b, float* y, size_t n);
void binary_vs(BinaryOp op, const float* a, float b, float* y, size_t n);
void binary_sv(BinaryOp op, float a, const float* b, float* y, size_t n);
void unary(UnaryOp op, const float* x, float* y, size_t n, float alpha, float beta);
void reduce(ReduceOp op, const float* x, float* y, size_t outer, size_t len, size_t inner);
void softmax(const float* x, float* y, size_t outer, size_t len, size_t inner, bool log);
void layer_norm(const float* x, const float* scale, const float* bias, float* y, size_t rows,
                size_t D, float eps, float* mean, float* inv_std);
void max_pool2d(const Pool2DParams& p, const float* x, float* y);
void avg_pool2d(const Pool2DParams& p, const float* x, float* y);
void transpose2d(size_t elem_size, const void* src, size_t src_ld, void* dst, size_t dst_ld,
                 size_t rows, size_t cols);
uint64_t hash_bytes(const void* data, size_t n);
bool bytes_equal(const void* a, const void* b, size_t n);
DiffStats diff_f32(const float* a, const float* b, size_t n, double atol, double rtol);
void f16_to_f32(const uint16_t* x, float* y, size_t n);
void f32_to_f16(const float* x, uint16_t* y, size_t n);
void bf16_to_f32(const uint16_t* x, float* y, size_t n);
void f32_to_bf16(const float* x, uint16_t* y, size_t n);

// One-element forms, shared by the scalar loops and the SIMD tails.
float binary_one(BinaryOp op, float a, float b);
float unary_one(UnaryOp op, float x, float alpha, float beta);
}  // namespace scalar

// Constants of the hash (scalar/compare.cpp); SIMD versions must reproduce it bit for bit.
namespace hashc {
constexpr uint64_t kSeed[4] = {0x243F6A8885A308D3ull, 0x13198A2E03707344ull,
                               0xA4093822299F31D0ull, 0x082EFA98EC4E6C89ull};
constexpr uint64_t kStep = 0x9E3779B97F4A7C15ull;  // added to the lane keys at every stripe
uint64_t finish(const uint64_t acc[4], const unsigned char* tail, size_t tail_len, size_t n);
}  // namespace hashc

// Filled only after the CPU check passed (the fill code itself is compiled for the ISA).
void fill_avx2_table(KernelTable& t);
void fill_neon_table(KernelTable& t);

}  // namespace ofg::kernels
