// igemm on the Armv8.2 dot product (SDOT: four s8 x s8 products summed into each int32 lane,
// wrapping); chosen by the NEON table when the kernel reports HWCAP_ASIMDDP. Compiled with
// -march=armv8.2-a+dotprod (CMakeLists.txt) and empty without it. Both operands are read as
// int8: uint8 ones are flipped and corrected through sums (kernels/igemm_dot.h). A 4x16 tile:
// 16 accumulators, each step one A vector (quad t of rows 0-3) and four B vectors (quad t of
// 16 columns), 16 SDOT by lane.
#if defined(__aarch64__) && defined(__ARM_FEATURE_DOTPROD)
#include "kernels/igemm_dot.h"
#include "kernels/neon/igemm_tile.h"
#include "kernels/neon/neon.h"

#include <arm_neon.h>

#include <algorithm>

namespace ofg::kernels::neon {

namespace {

// 16 columns, nq quads from src (row stride ldb) to d as s8: quad t of column c at d[t * 64 + 4 c];
// cs[c] accumulates the packed values.
void pack_quads_s8(const uint8_t* src, size_t ldb, DotOperand ob, size_t nq, uint8_t* d, int32_t* cs) {
  const uint8x16_t fm = vdupq_n_u8(ob.flip ? 0x80 : 0);
  const int8x16_t ones = vdupq_n_s8(1);
  int32x4_t s[4] = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
  for (size_t t = 0; t < nq; ++t) {
    const uint8_t* r = src + 4 * t * ldb;
    const uint8x16_t r0 = veorq_u8(vld1q_u8(r), fm), r1 = veorq_u8(vld1q_u8(r + ldb), fm);
    const uint8x16_t r2 = veorq_u8(vld1q_u8(r + 2 * ldb), fm), r3 = veorq_u8(vld1q_u8(r + 3 * ldb), fm);
    // Bytes of rows 0, 1 (and 2, 3) interleaved, then pairs of those: column c's quad.
    const uint16x8_t l01 = vreinterpretq_u16_u8(vzip1q_u8(r0, r1)), h01 = vreinterpretq_u16_u8(vzip2q_u8(r0, r1));
    const uint16x8_t l23 = vreinterpretq_u16_u8(vzip1q_u8(r2, r3)), h23 = vreinterpretq_u16_u8(vzip2q_u8(r2, r3));
    const int8x16_t q[4] = {vreinterpretq_s8_u16(vzip1q_u16(l01, l23)), vreinterpretq_s8_u16(vzip2q_u16(l01, l23)),
                            vreinterpretq_s8_u16(vzip1q_u16(h01, h23)), vreinterpretq_s8_u16(vzip2q_u16(h01, h23))};
    for (size_t h = 0; h < 4; ++h) {
      vst1q_s8(reinterpret_cast<int8_t*>(d + t * 64 + 16 * h), q[h]);
      s[h] = vdotq_s32(s[h], q[h], ones);
    }
  }
  for (size_t h = 0; h < 4; ++h) vst1q_s32(cs + 4 * h, vaddq_s32(vld1q_s32(cs + 4 * h), s[h]));
}

void micro_4x16_sdot(size_t kpad, const uint8_t* a_panel, const uint8_t* b_panel, int32_t* C, size_t ldc, size_t mr,
                     size_t nr, bool first) {
  const auto* pa = reinterpret_cast<const int8_t*>(a_panel);
  const auto* pb = reinterpret_cast<const int8_t*>(b_panel);
  int32x4_t acc[kIntTileM][4];
  for (auto& row : acc)
    for (auto& v : row) v = vdupq_n_s32(0);
  for (size_t t = 0; t < kpad / 4; ++t) {
    const int8x16_t a = vld1q_s8(pa + t * 16);
    const int8x16_t b0 = vld1q_s8(pb + t * 64), b1 = vld1q_s8(pb + t * 64 + 16);
    const int8x16_t b2 = vld1q_s8(pb + t * 64 + 32), b3 = vld1q_s8(pb + t * 64 + 48);
    // The lane (row r's quad in a) must be a constant: one line per row.
#define OFG_ROW(r)                                    \
  acc[r][0] = vdotq_laneq_s32(acc[r][0], b0, a, r);   \
  acc[r][1] = vdotq_laneq_s32(acc[r][1], b1, a, r);   \
  acc[r][2] = vdotq_laneq_s32(acc[r][2], b2, a, r);   \
  acc[r][3] = vdotq_laneq_s32(acc[r][3], b3, a, r);
    OFG_ROW(0) OFG_ROW(1) OFG_ROW(2) OFG_ROW(3)
#undef OFG_ROW
  }
  store_tile_4x16(acc, C, ldc, mr, nr, first);
}

// c[j] += u zbn[j] - zam colsum[j], 4 columns at a time.
void correct_row(uint32_t* c, uint32_t u, uint32_t zam, const uint32_t* zbn, const int32_t* colsum, size_t nc) {
  const uint32x4_t vu = vdupq_n_u32(u), vz = vdupq_n_u32(zam);
  size_t j = 0;
  for (; j + 4 <= nc; j += 4) {
    const uint32x4_t corr =
        vmlsq_u32(vmulq_u32(vu, vld1q_u32(zbn + j)), vz, vreinterpretq_u32_s32(vld1q_s32(colsum + j)));
    vst1q_u32(c + j, vaddq_u32(vld1q_u32(c + j), corr));
  }
  add_corrections(c, u, zam, zbn, colsum, j, nc);
}

// The SDOT flavour for OFG_DOT_IGEMM_ENTRIES. A read as s8. kc 512 (128 quads): a B panel is 8
// KiB, an A panel 2 KiB; B block 256 KiB.
struct Sdot {
  static constexpr IgemmBlocking kBlocking{kIntTileM, kIntTileN, 512, 128, 512, 4, 1};
  static constexpr bool kAReadSigned = true;
  static void pack_quads(const uint8_t* src, size_t ld, DotOperand ob, size_t nq, uint8_t* d, int32_t* cs) {
    pack_quads_s8(src, ld, ob, nq, d, cs);
  }
  static void tile(size_t kpad, const uint8_t* pa, const uint8_t* pb, int32_t* c, size_t ldc, size_t mr, size_t nr,
                   bool first) {
    micro_4x16_sdot(kpad, pa, pb, c, ldc, mr, nr, first);
  }
  static void correct(uint32_t* c, uint32_t u, uint32_t zam, const uint32_t* zbn, const int32_t* colsum, size_t nc) {
    correct_row(c, u, zam, zbn, colsum, nc);
  }
};

}  // namespace

OFG_DOT_IGEMM_ENTRIES(igemm_sdot, Sdot)

}  // namespace ofg::kernels::neon
#endif
