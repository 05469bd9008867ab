// The lane operations that GCC and Clang vector extensions spell the same way for every ISA:
// constants, unaligned loads and stores, arithmetic, comparisons to all-ones masks, sign-bit
// manipulation and the 32-bit integer lanes of the vector math. An ISA's struct (avx2/isa.h, neon/isa.h) derives from Lanes<its float
// vector type> and adds only what needs its own instructions (fma, min/max with their NaN rules,
// division, rounding, horizontal sums, blends). Masks are float vectors whose lanes are all ones
// or all zeros, as the ISA structs' select() expects. (An ISA whose compiler lowers float vector
// operators to scalar code hides the float ones with intrinsics: 32-bit ARM, neon/isa.h.)
#pragma once

namespace ofg::kernels::simd {

template <class F>
struct Lanes {
  typedef int I __attribute__((vector_size(sizeof(F))));
  typedef unsigned U __attribute__((vector_size(sizeof(F))));

  static F zero() { return F{}; }
  static F set1(float v) { return F{} + v; }
  // Unaligned: the copy compiles to one vector load or store.
  static F load(const float* p) {
    F v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
  }
  static void store(float* p, F v) { __builtin_memcpy(p, &v, sizeof v); }
  static F add(F a, F b) { return a + b; }
  static F sub(F a, F b) { return a - b; }
  static F mul(F a, F b) { return a * b; }
  static F div(F a, F b) { return a / b; }  // IEEE division where the ISA has it (kExactDiv)
  // Sign handling on the bits: exact for every input, subnormals and NaN included.
  static F abs(F x) { return (F)((I)x & 0x7FFFFFFF); }
  static F neg(F x) { return (F)((I)x ^ static_cast<int>(0x80000000u)); }
  static F sign_bit(F x) { return (F)((I)x & static_cast<int>(0x80000000u)); }
  static F lt(F a, F b) { return (F)(a < b); }
  static F gt(F a, F b) { return (F)(a > b); }
  static F eq(F a, F b) { return (F)(a == b); }
  static F unord(F a, F b) { return (F)~((a == a) & (b == b)); }  // either is NaN
  static F or_mask(F a, F b) { return (F)((I)a | (I)b); }

  static I as_int(F x) { return (I)x; }
  static F as_float(I x) { return (F)x; }
  static I iset1(int v) { return I{} + v; }
  static I iand(I a, I b) { return a & b; }
  static I ior(I a, I b) { return a | b; }
  static I isub(I a, I b) { return a - b; }
  static F int_eq(I a, I b) { return (F)(a == b); }
  static F int_lt(I a, I b) { return (F)(a < b); }
  static I to_int(F x) { return __builtin_convertvector(x, I); }  // x integral
  static F int_to_float(I x) { return __builtin_convertvector(x, F); }
  static I half_int(I n) { return n >> 1; }  // floor(n / 2): arithmetic shift
  static F pow2(I n) { return (F)((n + 127) << 23); }  // 2^n for n in [-126, 127]
  static I exponent_field(I bits) { return (I)((U)bits >> 23); }  // sign bit clear
};

// Every lane = v, bit for bit, through the integer lanes: for values broadcast one by one in hot
// loops (the A values of register tiles, sgemv's x). Lanes::set1 adds 0.f, which turns -0 into
// +0 and, on values loaded in the loop, puts a dependent add before each broadcast (GEMM tiles
// ran at half speed); on constants it folds away, which this form does not always do.
template <class S>
inline typename S::V splat(float v) {
  int bits;
  __builtin_memcpy(&bits, &v, sizeof bits);
  return S::as_float(S::iset1(bits));
}

}  // namespace ofg::kernels::simd
