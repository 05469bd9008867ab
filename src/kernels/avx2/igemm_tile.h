// The 6x16 int32 register tile of the integer GEMMs (AVX2 int16 and VNNI): both pack one 32-bit
// word per row and k unit for A (a pair of int16, or four bytes) and 16 such words per k unit for
// B, and differ only in the instruction that accumulates a word into the 8 lanes. Internal linkage on purpose: the VNNI files include it compiled for other ISA
// extensions, and an inline function shared across them could be linked in from the wrong one.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ofg::kernels::avx2 {
namespace {

constexpr size_t kTileM = 6, kTileN = 16;

// Rows [0, mr), columns [0, nr) of the tile to C.
void store_tile_i32(const int32_t (&tile)[kTileM][kTileN], int32_t* C, size_t ldc, size_t mr, size_t nr, bool first) {
  for (size_t r = 0; r < mr; ++r) {
    int32_t* c = C + r * ldc;
    if (nr == kTileN) {
      for (size_t h = 0; h < kTileN; h += 8) {
        __m256i* cp = reinterpret_cast<__m256i*>(c + h);
        const __m256i t = _mm256_load_si256(reinterpret_cast<const __m256i*>(tile[r] + h));
        _mm256_storeu_si256(cp, first ? t : _mm256_add_epi32(_mm256_loadu_si256(cp), t));
      }
      continue;
    }
    for (size_t j = 0; j < nr; ++j)
      c[j] = first ? tile[r][j] : static_cast<int32_t>(static_cast<uint32_t>(c[j]) + static_cast<uint32_t>(tile[r][j]));
  }
}

// Loads and broadcasts of a register type for tile_6x2: 256-bit here, 512-bit where the file is
// compiled for AVX-512 (avx512/igemm_avx512vnni.cpp).
inline __m256i tile_load(const uint8_t* p, __m256i*) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
inline __m256i tile_set1(int32_t w, __m256i*) { return _mm256_set1_epi32(w); }
inline __m256i tile_zero(__m256i*) { return _mm256_setzero_si256(); }
#if defined(__AVX512F__)
inline __m512i tile_load(const uint8_t* p, __m512i*) { return _mm512_loadu_si512(p); }
inline __m512i tile_set1(int32_t w, __m512i*) { return _mm512_set1_epi32(w); }
inline __m512i tile_zero(__m512i*) { return _mm512_setzero_si512(); }
#endif

// The 6-row tile of two registers V per row: units (>= 1) k units of packed panels (A: 24 bytes
// per unit, B: two registers), step(acc, a_word, b) accumulating; the accumulators to out.
template <class V, class Step>
void tile_6x2(size_t units, const uint8_t* pa, const uint8_t* pb, Step step, V (&out)[kTileM][2]) {
  constexpr size_t bw = sizeof(V);  // bytes of one B register
  V* const tag = nullptr;
  // Twelve named accumulators (GCC keeps an array of them in memory, storing it every
  // iteration), each started by its own first step: twelve copies of one zero register would make
  // the allocator shuffle the accumulators between registers on every iteration.
  V c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
  {
    const V b0 = tile_load(pb, tag), b1 = tile_load(pb + bw, tag);
#define OFG_TILE_FIRST(r)                            \
  {                                                  \
    int32_t w;                                       \
    std::memcpy(&w, pa + 4 * r, 4);                  \
    const V va = tile_set1(w, tag);                  \
    c##r##0 = step(tile_zero(tag), va, b0);          \
    c##r##1 = step(tile_zero(tag), va, b1);          \
  }
    OFG_TILE_FIRST(0) OFG_TILE_FIRST(1) OFG_TILE_FIRST(2) OFG_TILE_FIRST(3) OFG_TILE_FIRST(4) OFG_TILE_FIRST(5)
#undef OFG_TILE_FIRST
  }
  for (size_t t = 1; t < units; ++t) {
    const V b0 = tile_load(pb + t * 2 * bw, tag), b1 = tile_load(pb + t * 2 * bw + bw, tag);
    const uint8_t* a = pa + t * 4 * kTileM;
#define OFG_TILE_ROW(r)                        \
  {                                            \
    int32_t w;                                 \
    std::memcpy(&w, a + 4 * r, 4);             \
    const V va = tile_set1(w, tag);            \
    c##r##0 = step(c##r##0, va, b0);           \
    c##r##1 = step(c##r##1, va, b1);           \
  }
    OFG_TILE_ROW(0) OFG_TILE_ROW(1) OFG_TILE_ROW(2) OFG_TILE_ROW(3) OFG_TILE_ROW(4) OFG_TILE_ROW(5)
#undef OFG_TILE_ROW
  }
#define OFG_TILE_OUT(r) out[r][0] = c##r##0, out[r][1] = c##r##1;
  OFG_TILE_OUT(0) OFG_TILE_OUT(1) OFG_TILE_OUT(2) OFG_TILE_OUT(3) OFG_TILE_OUT(4) OFG_TILE_OUT(5)
#undef OFG_TILE_OUT
}

// units (>= 1) k units of packed panels (A: 24 bytes per unit, B: 64), step(acc, a_word, b) accumulating;
// the result is stored to C when `first`, else added.
template <class Step>
void micro_6x16_i32(size_t units, const uint8_t* pa, const uint8_t* pb, int32_t* C, size_t ldc, size_t mr, size_t nr,
                    bool first, Step step) {
  __m256i out[kTileM][2];
  tile_6x2(units, pa, pb, step, out);
  alignas(32) int32_t tile[kTileM][kTileN];
  for (size_t r = 0; r < kTileM; ++r) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(tile[r]), out[r][0]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(tile[r] + 8), out[r][1]);
  }
  store_tile_i32(tile, C, ldc, mr, nr, first);
}

}  // namespace
}  // namespace ofg::kernels::avx2
