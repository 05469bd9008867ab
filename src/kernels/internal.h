// Declarations shared by the kernel sources only (not part of the kernels API).
#pragma once

#include "kernels/kernels.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace ofg::kernels {

// The scalar reference: every entry of kernels/kernel_list.h.
namespace scalar {
#define OFG_KERNEL(ret, name, params) fn::name name;
#include "kernels/kernel_list.h"
#undef OFG_KERNEL

// One-element forms, shared by the scalar loops and the SIMD tails.
float binary_one(BinaryOp op, float a, float b);
float unary_one(UnaryOp op, float x, float alpha, float beta);
}  // namespace scalar

// v unchanged, as a value the compiler cannot see through: a product passed through it is not
// contracted with a following addition into a fused multiply-add (GCC contracts a * b + c in C++
// whenever the target has FMA, whatever the -std mode), so that x * a + b rounds twice, as the
// separate Mul and Add kernels do. For a float or an ISA's float vector.
template <class T>
inline T rounded(T v) {
#if defined(__x86_64__) || defined(__i386__)
  __asm__("" : "+x"(v));
#elif defined(__aarch64__)
  __asm__("" : "+w"(v));
#elif defined(__arm__)
  if constexpr (sizeof(T) == sizeof(float)) __asm__("" : "+t"(v));
  else __asm__("" : "+w"(v));
#else
  __asm__("" : "+m"(v));
#endif
  return v;
}

// The input row (or column) a window tap reads: output position o times the stride, plus tap k
// times the dilation, less the leading padding; negative or past the input's end where the tap
// falls in the padding. The transposed convolution reads it the other way round: the output
// position that input pixel o's tap k writes to.
inline ptrdiff_t window_tap(size_t o, size_t stride, size_t k, size_t dilation, size_t pad) {
  return static_cast<ptrdiff_t>(o * stride + k * dilation) - static_cast<ptrdiff_t>(pad);
}

// Whether a position from window_tap lies in [0, n), that is outside the padding.
inline bool inside(ptrdiff_t i, size_t n) { return i >= 0 && i < static_cast<ptrdiff_t>(n); }

// The scalar window loop of convolution and pooling: f(kh, kw, ih, iw) for every tap of the window
// at (oh, ow) whose position from window_tap lies inside an H x W plane, row by row (taps in the
// padding are skipped). An f that returns bool ends the row's taps early by returning false.
// `p` has kH, kW, stride_h/w, dil_h/w, pad_top and pad_left.
template <class Params, class F>
inline void for_each_window_tap(const Params& p, size_t oh, size_t ow, size_t H, size_t W, F&& f) {
  for (size_t kh = 0; kh < p.kH; ++kh) {
    const ptrdiff_t ih = window_tap(oh, p.stride_h, kh, p.dil_h, p.pad_top);
    if (!inside(ih, H)) continue;
    for (size_t kw = 0; kw < p.kW; ++kw) {
      const ptrdiff_t iw = window_tap(ow, p.stride_w, kw, p.dil_w, p.pad_left);
      if (!inside(iw, W)) continue;
      const size_t r = static_cast<size_t>(ih), c = static_cast<size_t>(iw);
      if constexpr (std::is_same_v<decltype(f(kh, kw, r, c)), bool>) {
        if (!f(kh, kw, r, c)) break;
      } else {
        f(kh, kw, r, c);
      }
    }
  }
}

// One byte of an igemm operand as its integer value (uint8, or int8 when is_signed).
inline int32_t int8_value(uint8_t v, bool is_signed) {
  return is_signed ? static_cast<int32_t>(static_cast<int8_t>(v)) : static_cast<int32_t>(v);
}

// Outputs [j0, n) of dw_row_i16 one at a time: the scalar reference and the SIMD tails.
inline void dw_row_range(const int16_t* const* rows, const int16_t* taps, size_t ntaps, size_t stride, size_t j0,
                         size_t n, int32_t* y) {
  for (size_t j = j0; j < n; ++j) {
    uint32_t s = 0;
    for (size_t t = 0; t < ntaps; ++t) s += static_cast<uint32_t>(int32_t{taps[t]} * rows[t][j * stride]);
    y[j] = static_cast<int32_t>(s);
  }
}

// Constants of the hash (scalar/compare.cpp); SIMD versions must reproduce it bit for bit.
namespace hashc {
constexpr uint64_t kSeed[4] = {0x243F6A8885A308D3ull, 0x13198A2E03707344ull,
                               0xA4093822299F31D0ull, 0x082EFA98EC4E6C89ull};
constexpr uint64_t kStep = 0x9E3779B97F4A7C15ull;  // added to the lane keys at every stripe
uint64_t finish(const uint64_t acc[4], const unsigned char* tail, size_t tail_len, size_t n);
}  // namespace hashc

// In an ISA folder's namespace (avx2/avx2.h, neon/neon.h): declares its implementations of the
// entries its override list LIST names (types from kernel_list.h) and the setters of the entries
// that kernels/simd/ writes once for every ISA (the folder's blocked.cpp and vector.cpp).
#define OFG_DECLARE_ONE_KERNEL(name) fn::name name;
#define OFG_DECLARE_ISA_KERNELS(LIST)       \
  LIST(OFG_DECLARE_ONE_KERNEL)              \
  void set_blocked_entries(KernelTable& t); \
  void set_vector_entries(KernelTable& t);

// In a fill function of namespace ofg::kernels whose table is named `t`: sets the entries of ISA
// folder `ns` (its override list LIST and the entries kernels/simd/ writes for it).
#define OFG_SET_ONE_KERNEL(name) t.name = isa_ns::name;
#define OFG_SET_ISA_ENTRIES(ns, LIST)    \
  {                                      \
    namespace isa_ns = ns;               \
    LIST(OFG_SET_ONE_KERNEL)             \
    ns::set_blocked_entries(t);          \
    ns::set_vector_entries(t);           \
  }

// A dot-product igemm flavour (kernels/igemm_dot.h's OFG_DOT_IGEMM_ENTRIES): its four entries
// declared in the ISA folder's namespace, and set together in table `t` (a packed B is only ever
// read by the flavour that packed it).
#define OFG_DECLARE_DOT_IGEMM(name)        \
  fn::igemm name;                          \
  fn::igemm_packed_b_size name##_packed_b_size; \
  fn::igemm_pack_b name##_pack_b;          \
  fn::igemm_prepacked_b name##_prepacked_b;
#define OFG_SET_DOT_IGEMM(name)                        \
  {                                                    \
    t.igemm = name;                                    \
    t.igemm_packed_b_size = name##_packed_b_size;      \
    t.igemm_pack_b = name##_pack_b;                    \
    t.igemm_prepacked_b = name##_prepacked_b;          \
  }

// The VNNI flavours this x86 CPU runs (with the OS saving the registers they need), as bits:
// AVX-VNNI, and AVX512-VNNI with AVX512VL (its GEMM runs a 512-bit tile). The AVX2 table prefers
// AVX512-VNNI; the tests run every flavour present.
constexpr unsigned kVnniAvx = 1, kVnniAvx512 = 2;
unsigned x86_vnni();

// Filled only after the CPU check passed (the fill code itself is compiled for the ISA).
void fill_avx2_table(KernelTable& t);
void fill_avx512_table(KernelTable& t);  // starts from the AVX2 table
void fill_neon_table(KernelTable& t);

// The filled table of one ISA, for the shared templates that call other entries of their own
// table (an ISA struct's table()); valid only where that ISA's kernels run.
const KernelTable& avx2_table();
const KernelTable& avx512_table();
const KernelTable& neon_table();

}  // namespace ofg::kernels
