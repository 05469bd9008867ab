// The kernel table, one entry per line: OFG_KERNEL(return type, name, (parameters)).
//
// This list is the only place a kernel's signature is written. It is included with OFG_KERNEL
// defined to make the members of KernelTable (kernels.h), the declarations of the scalar
// reference (internal.h) and the scalar fill (dispatch.cpp); an ISA folder declares and sets the
// entries it overrides by name (kernels/avx2/avx2.h, kernels/neon/table.cpp), with the types
// from kernels::fn. Adding a kernel: a line here, its scalar implementation, and optionally a
// name in an ISA's override list with that ISA's implementation.
//
// No include guard: this file is meant to be included several times.

// C = alpha * op(A) * op(B) + beta * C; op(A) is MxK, op(B) is KxN. beta == 0: C not read.
OFG_KERNEL(void, sgemm, (bool trans_a, bool trans_b, size_t M, size_t N, size_t K, float alpha, const float* A,
                         size_t lda, const float* B, size_t ldb, float beta, float* C, size_t ldc))

// C = A * B with B (KxN, row stride ldb) packed beforehand, for a B used many times (constant
// weights): sgemm_packed_b_size floats, 64-byte aligned (0: the table has no packed form, do not
// call the other two), filled by sgemm_pack_b; sgemm_prepacked_b then gives what sgemm(false, false, M, N, K,
// 1, A, lda, B, ldb, beta, C, ldc) gives, bit for bit.
OFG_KERNEL(size_t, sgemm_packed_b_size, (size_t K, size_t N))
OFG_KERNEL(void, sgemm_pack_b, (size_t K, size_t N, const float* B, size_t ldb, float* packed))
OFG_KERNEL(void, sgemm_prepacked_b, (size_t M, size_t N, size_t K, const float* A, size_t lda, const float* packed,
                                     float beta, float* C, size_t ldc))

// y = alpha * A x + beta * y; A is MxK with row stride lda. beta == 0: y not read. The
// matrix-vector case of sgemm (recurrent steps with batch 1), without sgemm's packing.
OFG_KERNEL(void, sgemv, (size_t M, size_t K, float alpha, const float* A, size_t lda, const float* x, float beta,
                         float* y))

// y = alpha * x B + beta * y for the row vector x (K) and B KxN with row stride ldb: y[n] = alpha *
// sum_k x[k] B[k * ldb + n] + beta * y[n]. beta == 0: y not read. The product of a vector with a
// transposed matrix kept across calls (recurrent weights): whole rows of B are read in order and no
// lane sums are needed, unlike sgemv on the untransposed matrix.
OFG_KERNEL(void, sgemv_t, (size_t K, size_t N, float alpha, const float* x, const float* B, size_t ldb, float beta,
                           float* y))

// Exact integer GEMM: C[m * ldc + n] = sum over k < K of (a(m, k) - za[m]) * (b(k, n) - zb[n]), where
// a(m, k) = A[m * lda + k] and b(k, n) = B[k * ldb + n] are read as uint8, or as int8 when
// a_signed / b_signed. za holds M values and zb N values (zero points: each within its
// operand's type, so every factor lies in [-255, 255]). The sum is formed modulo 2^32, so C is
// the exact value whenever it fits in int32: always for K <= 33025 (callers split longer K).
OFG_KERNEL(void, igemm, (size_t M, size_t N, size_t K, const uint8_t* A, size_t lda, bool a_signed,
                         const int32_t* za, const uint8_t* B, size_t ldb, bool b_signed, const int32_t* zb,
                         int32_t* C, size_t ldc))

// igemm with B (K x N, row stride ldb, int8 when b_signed) packed beforehand, for a B used many
// times (constant weights): igemm_packed_b_size bytes, 64-byte aligned (0: the table has no packed
// form, do not call the other two), filled by igemm_pack_b; igemm_prepacked_b then gives what
// igemm gives with that B and the same b_signed, and splits the product over the machine's threads
// itself (kernels/gemm_split.h). K <= 33025, as igemm's exactness needs.
OFG_KERNEL(size_t, igemm_packed_b_size, (size_t K, size_t N))
OFG_KERNEL(void, igemm_pack_b, (size_t K, size_t N, const uint8_t* B, size_t ldb, bool b_signed, uint8_t* packed))
OFG_KERNEL(void, igemm_prepacked_b, (size_t M, size_t N, size_t K, const uint8_t* A, size_t lda, bool a_signed,
                                     const int32_t* za, const uint8_t* packed, bool b_signed, const int32_t* zb,
                                     int32_t* C, size_t ldc))

// One output row of a depthwise integer convolution: y[j] = sum over t < ntaps of
// taps[t] * rows[t][j * stride] for j < n, in int32 with wrap-around (exact for |values| <= 255
// and ntaps <= 32768).
OFG_KERNEL(void, dw_row_i16, (const int16_t* const* rows, const int16_t* taps, size_t ntaps, size_t stride, size_t n,
                              int32_t* y))

// 8-bit quantization and its inverses. Rounding is to nearest, ties to even; a NaN becomes 0.
// quantize_u8: y[i] = clamp(round(x[i] / scale) + zero) with the division in float, into uint8
// (or int8 when out_signed); zero is an integer within the output type.
OFG_KERNEL(void, quantize_u8, (const float* x, size_t n, float scale, float zero, bool out_signed, uint8_t* y))
// dequantize_u8: y[i] = float(x[i] - zero) * scale, x read as uint8 (or int8 when in_signed).
OFG_KERNEL(void, dequantize_u8, (const uint8_t* x, size_t n, bool in_signed, int32_t zero, float scale, float* y))
// requantize_u8: y[i] = clamp(round(float((double(acc[i]) + bias) * mult)) + zero) into uint8 (or
// int8 when out_signed): the product in double, rounded once to float, as QLinearConv specifies
// it in the reference implementation. bias is an integer.
OFG_KERNEL(void, requantize_u8, (const int32_t* acc, size_t n, double bias, double mult, int32_t zero, bool out_signed,
                                 uint8_t* y))

OFG_KERNEL(void, conv2d, (const Conv2DParams& p, const float* x, const float* w, float* y))
// Weights rearranged once for repeated conv2d calls with the same weights (the interpreter
// keeps them per model). conv2d_packed_size gives the floats needed for p's C_out, C_in,
// group, kH, kW, strides and dilations (the packed form may differ with any of them, never
// with N, H, W, padding, bias or activation), or 0 when this table has no packed form for p
// (then call conv2d).
// conv2d_prepacked(p, x, packed, y) == conv2d(p, x, w, y) for packed from conv2d_pack(p, w).
OFG_KERNEL(size_t, conv2d_packed_size, (const Conv2DParams& p))
OFG_KERNEL(void, conv2d_pack, (const Conv2DParams& p, const float* w, float* packed))
OFG_KERNEL(void, conv2d_prepacked, (const Conv2DParams& p, const float* x, const float* packed, float* y))
OFG_KERNEL(void, conv_nd, (const ConvNdParams& p, const float* x, const float* w, float* y))
OFG_KERNEL(void, conv_transpose2d, (const ConvTranspose2DParams& p, const float* x, const float* w, float* y))

// Contiguous inner loops of the broadcasting driver: vector op vector, vector op scalar,
// scalar op vector.
OFG_KERNEL(void, binary_vv, (BinaryOp op, const float* a, const float* b, float* y, size_t n))
OFG_KERNEL(void, binary_vs, (BinaryOp op, const float* a, float b, float* y, size_t n))
OFG_KERNEL(void, binary_sv, (BinaryOp op, float a, const float* b, float* y, size_t n))
// y = x * a rounded, then + b rounded (no fused multiply-add): binary_vs Mul then binary_vs Add
// bit for bit, in one pass (BatchNormalization at inference).
OFG_KERNEL(void, affine_vs, (const float* x, float a, float b, float* y, size_t n))

OFG_KERNEL(void, unary, (UnaryOp op, const float* x, float* y, size_t n, float alpha, float beta))

// x viewed as [outer, len, inner]; y is [outer, inner].
OFG_KERNEL(void, reduce, (ReduceOp op, const float* x, float* y, size_t outer, size_t len, size_t inner))

// x, y viewed as [outer, len, inner]; normalised along len.
OFG_KERNEL(void, softmax, (const float* x, float* y, size_t outer, size_t len, size_t inner, bool log))

// Normalises each of `rows` rows of D elements: y = (x - mean) * inv_std * scale + bias with
// inv_std = 1/sqrt(var + eps) (biased variance). scale is [D]; bias, mean, inv_std may be
// null; mean and inv_std receive [rows].
OFG_KERNEL(void, layer_norm, (const float* x, const float* scale, const float* bias, float* y, size_t rows,
                              size_t D, float eps, float* mean, float* inv_std))

OFG_KERNEL(void, max_pool2d, (const Pool2DParams& p, const float* x, float* y))
OFG_KERNEL(void, avg_pool2d, (const Pool2DParams& p, const float* x, float* y))

// dst[c * dst_ld + r] = src[r * src_ld + c] for r < rows, c < cols; elem_size 1, 2, 4 or 8.
// Neither pointer needs to be aligned.
OFG_KERNEL(void, transpose2d, (size_t elem_size, const void* src, size_t src_ld, void* dst, size_t dst_ld,
                               size_t rows, size_t cols))

// Same value on every ISA and machine (little-endian); not cryptographic.
OFG_KERNEL(uint64_t, hash_bytes, (const void* data, size_t n))
OFG_KERNEL(bool, equal_bytes, (const void* a, const void* b, size_t n))
OFG_KERNEL(DiffStats, diff, (const float* a, const float* b, size_t n, double atol, double rtol))

// IEEE binary16: round to nearest even, subnormals and inf exact; NaN keeps its sign and the
// top payload bits and is made quiet (F16C behaviour, so every ISA gives identical bits).
OFG_KERNEL(void, f16_to_f32, (const uint16_t* x, float* y, size_t n))
OFG_KERNEL(void, f32_to_f16, (const float* x, uint16_t* y, size_t n))
// bfloat16: round to nearest even; NaN stays a quiet NaN with the same sign.
OFG_KERNEL(void, bf16_to_f32, (const uint16_t* x, float* y, size_t n))
OFG_KERNEL(void, f32_to_bf16, (const float* x, uint16_t* y, size_t n))
