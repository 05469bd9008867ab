// igemm on AVX512-VNNI with 512-bit registers: a 6x32 int32 tile (twelve zmm accumulators, 64
// products per vpdpbusd, twice the 256-bit tile's work per instruction), B packed in 32-column
// panels. Chosen by the AVX2 table on CPUs with AVX512-VNNI (ahead of AVX-VNNI). Compiled with
// -mavx512vnni -mavx512vl; the packers and the zero-point corrections are igemm_vnni.h's on
// 256-bit registers (EVEX vpdpbusd for the column sums), included from the AVX2 folder and
// compiled here for AVX512-VNNI; the function lives in this folder's namespace, as the AVX-512
// code it is.
#include <immintrin.h>

#define OFG_DPBUSD(acc, a, b) _mm256_dpbusd_epi32(acc, a, b)
#include "kernels/avx2/igemm_vnni.h"
#include "kernels/avx512/avx512.h"

namespace ofg::kernels::avx512 {
namespace {

// The 6-row tile, the VNNI packers and the zero-point corrections (internal linkage there).
using namespace avx2;

constexpr size_t kWideN = 32;

// Rows [0, mr), columns [0, nr) of the accumulators of one row (columns 0-15 and 16-31) to c:
// stored when `first`, else added; masked stores for a partial tile.
inline void store_row_i32(int32_t* c, __m512i lo, __m512i hi, size_t nr, bool first) {
  const __mmask16 m0 = nr >= 16 ? __mmask16(0xFFFF) : static_cast<__mmask16>((1u << nr) - 1);
  const __mmask16 m1 = nr >= 32 ? __mmask16(0xFFFF) : nr <= 16 ? __mmask16(0) : static_cast<__mmask16>((1u << (nr - 16)) - 1);
  if (!first) {
    lo = _mm512_add_epi32(lo, _mm512_maskz_loadu_epi32(m0, c));
    hi = _mm512_add_epi32(hi, _mm512_maskz_loadu_epi32(m1, c + 16));
  }
  _mm512_mask_storeu_epi32(c, m0, lo);
  _mm512_mask_storeu_epi32(c + 16, m1, hi);
}

// units (>= 1) quads of packed panels (A: 24 bytes per quad, B: 128).
void micro_6x32_vnni(size_t units, const uint8_t* pa, const uint8_t* pb, int32_t* C, size_t ldc, size_t mr, size_t nr,
                     bool first) {
  __m512i out[kTileM][2];
  tile_6x2(units, pa, pb, [](__m512i acc, __m512i a, __m512i b) { return _mm512_dpbusd_epi32(acc, a, b); }, out);
  for (size_t r = 0; r < mr; ++r) store_row_i32(C + r * ldc, out[r][0], out[r][1], nr, first);
}

// The 512-bit flavour for OFG_DOT_IGEMM_ENTRIES. A read as u8. kc 512 (128 quads): a B panel is
// 16 KiB, an A panel 3 KiB; B block 256 KiB.
struct Vnni512 {
  static constexpr IgemmBlocking kBlocking{kTileM, kWideN, 512, 120, 512, 4, 1};
  static constexpr bool kAReadSigned = false;
  // A 32-column panel as two 16-column halves interleaved per quad.
  static void pack_quads(const uint8_t* src, size_t ld, DotOperand ob, size_t nq, uint8_t* d, int32_t* cs) {
    pack_quads_s8(src, ld, ob, nq, d, 128, cs);
    pack_quads_s8(src + 16, ld, ob, nq, d + 64, 128, cs + 16);
  }
  static void tile(size_t kpad, const uint8_t* pa, const uint8_t* pb, int32_t* c, size_t ldc, size_t mr, size_t nr,
                   bool first) {
    micro_6x32_vnni(kpad / 4, pa, pb, c, ldc, mr, nr, first);
  }
  static void correct(uint32_t* c, uint32_t u, uint32_t zam, const uint32_t* zbn, const int32_t* colsum, size_t nc) {
    correct_row(c, u, zam, zbn, colsum, nc);
  }
};

}  // namespace

OFG_DOT_IGEMM_ENTRIES(igemm_avx512vnni, Vnni512)

}  // namespace ofg::kernels::avx512
