// onnxforge numeric kernels: the only place that touches SIMD.
//
// Contract shared by every function below:
//  - float32 unless stated; tensors are dense row-major unless a leading dimension is given.
//  - Single-threaded, no exceptions thrown from kernels (argument errors are the caller's job:
//    the interpreter validates shapes before calling), no allocation inside hot loops.
//  - Output buffers must not partially overlap inputs. Exact aliasing (y == x) is allowed for
//    elementwise, unary and conversion kernels only.
//  - Scratch: sgemm, conv and the drivers use a thread_local aligned scratch area that grows to
//    the largest request seen on that thread and is kept for reuse (release_scratch() frees it).
//    This keeps the API free of workspace arguments; kernels are therefore reentrant across
//    threads but a kernel must not be called from inside another kernel's callback.
//  - Every kernel has a scalar reference (scalar_table()) that is the test oracle and the
//    fallback. ISA tables start as a copy of the scalar table and override what they speed up,
//    so an entry is never null.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/parallel.h"
#include "kernels/spatial.h"

namespace ofg::kernels {

// ------------------------------------------------------------------ enums and parameter blocks

enum class BinaryOp { Add, Sub, Mul, Div, Max, Min, Pow };

// Max/Min propagate NaN (as numpy.maximum does). Pow follows std::pow, except that an exponent
// of 2 gives x * x (correctly rounded, as ONNX Runtime computes squares).
// For integers: Add/Sub/Mul wrap modulo 2^n (no UB), Div truncates toward zero like C++ with
// x/0 == 0 and INT_MIN/-1 == INT_MIN (the interpreter should reject /0 before calling), Pow is
// exponentiation by squaring with wrap-around, negative exponents give 0 unless the base is +-1.

enum class UnaryOp {
  Relu,         // NaN stays NaN
  LeakyRelu,    // alpha
  Clip,         // alpha = min, beta = max; NaN stays NaN
  Exp, Log, Tanh, Sigmoid, Erf,
  GeluErf,      // 0.5 x (1 + erf(x / sqrt 2))
  GeluTanh,     // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  HardSigmoid,  // max(0, min(1, alpha x + beta))
  HardSwish,    // x * max(0, min(1, x / 6 + 0.5))
  Softplus,     // log(1 + exp(x)), computed without overflow
  Silu,         // x * sigmoid(x)
  Sqrt, Reciprocal, Abs, Neg, Floor, Ceil,
  Round,        // half to even
  Swish,        // x * sigmoid(alpha x)
};

enum class ReduceOp { Sum, Mean, Max, Min, Prod, SumSquare, L1, L2, LogSum, LogSumExp };
// An empty reduction (len == 0) yields the identity: Sum/SumSquare/L1/L2 0, Prod 1,
// Max -inf, Min +inf, Mean NaN, LogSum/LogSumExp -inf. Max/Min propagate NaN.

// Activation fused into conv outputs (after the bias).
enum class Activation { None, Relu, LeakyRelu /*alpha*/, Clip /*alpha=min, beta=max*/, Sigmoid, Silu, HardSwish };

struct KernelTable;

// Work a convolution does on each output channel after its bias, for the interpreter's run of a
// Conv -> BatchNormalization -> activation chain as one call (the values between them are never
// stored). Every step is the arithmetic of the table entry the separate op would call, in the same
// order, so the result is bit-identical to running the ops one by one:
//   y = y * scale[c], rounded, then y + shift[c], rounded  (affine_vs, BatchNormalization's kernel)
//   y = op(y)                                              (unary; when act)
//   or with a gate, y * op(y) or op(y) * y                 (unary, then binary_vv Mul with the
//                                                           operands in the graph's Mul order)
struct ConvPost {
  const float* scale = nullptr;  // C_out values, or null for no affine step (shift then unused)
  const float* shift = nullptr;
  bool act = false;
  UnaryOp op = UnaryOp::Relu;
  float alpha = 0.f, beta = 0.f;
  enum class Gate : uint8_t { None, XTimesAct, ActTimesX } gate = Gate::None;
  // The table whose entries the steps reproduce (the one the separate ops run on; a table may
  // run some convolutions with another ISA's kernel); null: the convolution's own.
  const KernelTable* table = nullptr;
};


// NCHW convolution. Weights are [C_out, C_in/group, kH, kW]; bias is [C_out] or null.
struct Conv2DParams {
  size_t N = 1, C_in = 0, H = 0, W = 0, C_out = 0, kH = 1, kW = 1;
  size_t stride_h = 1, stride_w = 1;
  size_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  size_t dil_h = 1, dil_w = 1;
  size_t group = 1;
  size_t H_out = 0, W_out = 0;  // fill with conv2d_fill_output_size() or by hand (ceil mode)
  const float* bias = nullptr;
  Activation act = Activation::None;
  float act_alpha = 0.f, act_beta = 0.f;
  const ConvPost* post = nullptr;  // after the bias; act must be None when it is set
};
void conv2d_fill_output_size(Conv2DParams& p);

// Generic N-D convolution for 1..3 spatial axes (scalar only: 2-D has its own fast paths).
// Layout N, C, spatial...; weights [C_out, C_in/group, k...].
struct ConvNdParams {
  size_t rank = 1;  // spatial rank, 1..3
  size_t N = 1, C_in = 0, C_out = 0, group = 1;
  size_t in[3] = {1, 1, 1}, kernel[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  size_t stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1};
  size_t pad_begin[3] = {0, 0, 0};
  const float* bias = nullptr;
  Activation act = Activation::None;
  float act_alpha = 0.f, act_beta = 0.f;
};

// ConvTranspose 2-D, NCHW. Weights are [C_in, C_out/group, kH, kW] (ONNX layout).
// H_out = stride*(H-1) + output_padding + dil*(kH-1) + 1 - pad_top - pad_bottom; the caller
// computes it (output_shape attribute handling included) and passes it.
struct ConvTranspose2DParams {
  size_t N = 1, C_in = 0, H = 0, W = 0, C_out = 0, kH = 1, kW = 1;
  size_t stride_h = 1, stride_w = 1;
  size_t pad_top = 0, pad_left = 0;
  size_t dil_h = 1, dil_w = 1;
  size_t group = 1;
  size_t H_out = 0, W_out = 0;
  const float* bias = nullptr;
};

// Pooling, NCHW. Windows are clipped to the input; padding never contributes to max.
// Average divisor: count_include_pad ? window clipped to the padded extent
// [-pad_begin, in + pad_end) : window clipped to the real input. A window with no real
// element yields -inf (max) / 0 (avg).
struct Pool2DParams {
  size_t N = 1, C = 0, H = 0, W = 0, kH = 1, kW = 1;
  size_t stride_h = 1, stride_w = 1;
  size_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  size_t dil_h = 1, dil_w = 1;  // MaxPool only; AveragePool ignores them
  size_t H_out = 0, W_out = 0;
  bool count_include_pad = false;
};

// Result of comparing actual a with expected b.
// |a-b| and |a-b|/|b| are computed in double. Mismatch iff |a-b| > atol + rtol*|b|.
// NaN vs NaN and inf vs the same inf are equal (difference 0). NaN vs anything else, or inf vs
// a different value, is a mismatch with difference +inf. A zero b with a nonzero difference
// gives relative difference +inf. worst_index is the first index holding max_abs (0 if n == 0).
struct DiffStats {
  double max_abs = 0.0;
  double max_rel = 0.0;
  size_t worst_index = 0;
  size_t mismatches = 0;
};

// ------------------------------------------------------------------ the dispatch table

// The function type of every entry (kernels::fn::sgemm, ...), for declaring implementations.
namespace fn {
#define OFG_KERNEL(ret, name, params) using name = ret params;
#include "kernels/kernel_list.h"
#undef OFG_KERNEL
}  // namespace fn

// One pointer per entry of kernels/kernel_list.h (where each entry is documented).
struct KernelTable {
  const char* isa;
#define OFG_KERNEL(ret, name, params) fn::name* name;
#include "kernels/kernel_list.h"
#undef OFG_KERNEL
};

// The complete reference table. Always available.
const KernelTable& scalar_table();
// The preferred SIMD table for this CPU (AVX-512 F/DQ/BW/VL, else AVX2+FMA+F16C on x86-64; NEON
// on ARM; ONNXFORGE_FORCE_ISA=avx2 picks the AVX2 one), or nullptr when the CPU or the build has
// none. Ignores ONNXFORGE_FORCE_SCALAR so tests can compare both.
const KernelTable* simd_table();
// Every SIMD table this CPU runs, narrowest first (x86-64: AVX2, then AVX-512): what the tests
// compare against the scalar reference.
const std::vector<const KernelTable*>& simd_tables();
// Chosen once, on first use: simd_table() unless it is null or ONNXFORGE_FORCE_SCALAR=1.
const KernelTable& active_table();
// "avx512", "avx2", "neon" or "scalar": the ISA of active_table().
const char* active_isa();

// Frees this thread's scratch area.
void release_scratch();

// ------------------------------------------------------------------ drivers and free functions
// The free functions call active_table(); the *_with variants take a table (tests use them to
// run the same driver on scalar and SIMD inner loops).

inline void sgemm(bool trans_a, bool trans_b, size_t M, size_t N, size_t K, float alpha,
                  const float* A, size_t lda, const float* B, size_t ldb, float beta, float* C,
                  size_t ldc) {
  active_table().sgemm(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

inline void conv2d(const Conv2DParams& p, const float* x, const float* w, float* y) {
  active_table().conv2d(p, x, w, y);
}
inline void conv_nd(const ConvNdParams& p, const float* x, const float* w, float* y) {
  active_table().conv_nd(p, x, w, y);
}
inline void conv_transpose2d(const ConvTranspose2DParams& p, const float* x, const float* w,
                             float* y) {
  active_table().conv_transpose2d(p, x, w, y);
}
// im2col + table.sgemm per group (1x1 stride 1 unpadded: GEMM straight on the input), then
// bias and activation through table.binary_vs / table.unary. SIMD conv2d entries use it for the
// non-depthwise cases; exposed so tests can check it against the naive reference.
void conv2d_gemm(const KernelTable& t, const Conv2DParams& p, const float* x, const float* w,
                 float* y);
// The N-D (1-3 spatial axes) convolution as im2col over the padded volume + table.sgemm per
// group, then bias and activation: what the SIMD tables' conv_nd runs (the scalar conv_nd's
// direct loops are its reference).
void conv_nd_gemm(const KernelTable& t, const ConvNdParams& p, const float* x, const float* w, float* y);
// Bias + activation over [N, C, HW] in place (used by the conv paths), then post (when not null)
// with plane c of each image taken as channel c0 + c.
void apply_bias_activation(const KernelTable& t, float* y, size_t N, size_t C, size_t HW,
                           const float* bias, Activation act, float alpha, float beta,
                           const ConvPost* post = nullptr, size_t c0 = 0);
// post's steps for n values of channel c, read from x and written to y (x == y allowed), in
// stretches short enough to stay in L1 between the steps.
void apply_conv_post(const KernelTable& t, const ConvPost& post, size_t c, const float* x, float* y,
                     size_t n);
// post's steps in place on one value of each of the n channels c0, c0 + 1, ...
void apply_conv_post_channels(const KernelTable& t, const ConvPost& post, size_t c0, float* y, size_t n);

// Numpy-broadcasting binary op. Shapes are int64 dims (rank 0..kMaxBroadcastRank, all >= 0,
// broadcast-compatible: the caller checked). y has the broadcast shape, dense.
constexpr size_t kMaxBroadcastRank = 8;
void binary_f32_with(const KernelTable& t, BinaryOp op, const float* a, const int64_t* a_dims,
                     size_t a_rank, const float* b, const int64_t* b_dims, size_t b_rank,
                     float* y);
inline void binary_f32(BinaryOp op, const float* a, const int64_t* a_dims, size_t a_rank,
                       const float* b, const int64_t* b_dims, size_t b_rank, float* y) {
  binary_f32_with(active_table(), op, a, a_dims, a_rank, b, b_dims, b_rank, y);
}
void binary_i32(BinaryOp op, const int32_t* a, const int64_t* a_dims, size_t a_rank,
                const int32_t* b, const int64_t* b_dims, size_t b_rank, int32_t* y);
void binary_i64(BinaryOp op, const int64_t* a, const int64_t* a_dims, size_t a_rank,
                const int64_t* b, const int64_t* b_dims, size_t b_rank, int64_t* y);
// Broadcast shape of a and b into out (rank max(a_rank, b_rank)); false if incompatible.
bool broadcast_shape(const int64_t* a_dims, size_t a_rank, const int64_t* b_dims, size_t b_rank,
                     int64_t* out, size_t* out_rank);

// Elements per part of an elementwise loop split between threads (see parallel_ranges): parts
// start on multiples of kElementGrain, a multiple of every vector loop's step.
constexpr size_t kElementGrain = 256, kElementsPerPart = size_t{1} << 15;

inline void unary(UnaryOp op, const float* x, float* y, size_t n, float alpha = 0.f,
                  float beta = 0.f) {
  const KernelTable& t = active_table();
  parallel_ranges(n, kElementGrain, kElementsPerPart,
                  [&](size_t b, size_t e) { t.unary(op, x + b, y + b, e - b, alpha, beta); });
}
inline void reduce(ReduceOp op, const float* x, float* y, size_t outer, size_t len, size_t inner) {
  active_table().reduce(op, x, y, outer, len, inner);
}
// Softmax over [outer, len, inner], the outer rows split between threads.
inline void softmax_with_log(const float* x, float* y, size_t outer, size_t len, size_t inner, bool log) {
  const KernelTable& t = active_table();
  const size_t row = len * inner;
  parallel_ranges(outer, 1, plane_grain(row), [&](size_t b, size_t e) {
    t.softmax(x + b * row, y + b * row, e - b, len, inner, log);
  });
}
inline void softmax(const float* x, float* y, size_t outer, size_t len, size_t inner) {
  softmax_with_log(x, y, outer, len, inner, false);
}
inline void log_softmax(const float* x, float* y, size_t outer, size_t len, size_t inner) {
  softmax_with_log(x, y, outer, len, inner, true);
}
inline void layer_norm(const float* x, const float* scale, const float* bias, float* y,
                       size_t rows, size_t D, float eps, float* mean = nullptr,
                       float* inv_std = nullptr) {
  const KernelTable& t = active_table();
  parallel_ranges(rows, 1, plane_grain(D), [&](size_t b, size_t e) {
    t.layer_norm(x + b * D, scale, bias, y + b * D, e - b, D, eps, mean ? mean + b : nullptr,
                 inv_std ? inv_std + b : nullptr);
  });
}

inline void max_pool2d(const Pool2DParams& p, const float* x, float* y) {
  active_table().max_pool2d(p, x, y);
}
inline void avg_pool2d(const Pool2DParams& p, const float* x, float* y) {
  active_table().avg_pool2d(p, x, y);
}
// x is [N*C, HW]; y is [N*C].
inline void global_avg_pool(const float* x, float* y, size_t NC, size_t HW) {
  active_table().reduce(ReduceOp::Mean, x, y, NC, HW, 1);
}
inline void global_max_pool(const float* x, float* y, size_t NC, size_t HW) {
  active_table().reduce(ReduceOp::Max, x, y, NC, HW, 1);
}

// y = transpose(x, perm): y.dims[i] = x.dims[perm[i]]. rank 0..8, elem_size 1, 2, 4 or 8.
// Dims of size 1 are dropped and axes that stay adjacent are merged; a trailing 2-D swap
// (possibly batched, e.g. NCHW <-> NHWC) goes to the blocked table.transpose2d. Neither pointer
// needs to be aligned.
void transpose_with(const KernelTable& t, const void* x, void* y, size_t elem_size,
                    const int64_t* dims, const size_t* perm, size_t rank);
inline void transpose(const void* x, void* y, size_t elem_size, const int64_t* dims,
                      const size_t* perm, size_t rank) {
  transpose_with(active_table(), x, y, elem_size, dims, perm, rank);
}
// The naive index walk (reference for tests).
void transpose_reference(const void* x, void* y, size_t elem_size, const int64_t* dims,
                         const size_t* perm, size_t rank);

inline uint64_t hash_bytes(const void* data, size_t n) { return active_table().hash_bytes(data, n); }
inline bool equal_bytes(const void* a, const void* b, size_t n) {
  return active_table().equal_bytes(a, b, n);
}
inline DiffStats diff(const float* a, const float* b, size_t n, double atol, double rtol) {
  return active_table().diff(a, b, n, atol, rtol);
}

inline void f16_to_f32(const uint16_t* x, float* y, size_t n) { active_table().f16_to_f32(x, y, n); }
inline void f32_to_f16(const float* x, uint16_t* y, size_t n) { active_table().f32_to_f16(x, y, n); }
inline void bf16_to_f32(const uint16_t* x, float* y, size_t n) { active_table().bf16_to_f32(x, y, n); }
inline void f32_to_bf16(const float* x, uint16_t* y, size_t n) { active_table().f32_to_bf16(x, y, n); }
// Single-value helpers (exact, scalar).
float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);
float bf16_to_f32(uint16_t h);
uint16_t f32_to_bf16(float f);

namespace detail {
// 64-byte aligned thread_local scratch of at least `floats` floats; slot 0..3 are independent
// areas so a driver can hold several at once. The pointer stays valid until the next call with
// the same slot on this thread.
float* scratch(int slot, size_t floats);
// Fills a table with the scalar entries (ISA tables start from it).
void fill_scalar_table(KernelTable& t);
}  // namespace detail

}  // namespace ofg::kernels
