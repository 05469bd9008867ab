// Picks the kernel table once per process. The SIMD fill functions live in files compiled with
// ISA flags, so they are only called after the CPU has been checked.
#include "kernels/internal.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>
#elif defined(__aarch64__) || defined(__ARM_NEON)
#include <sys/auxv.h>  // getauxval: glibc and Bionic (Android API 18+)
#endif

namespace ofg::kernels {

namespace {

#if defined(__x86_64__)
bool cpu_has_avx2_fma_f16c() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  const bool fma = c & (1u << 12), osxsave = c & (1u << 27), avx = c & (1u << 28),
             f16c = c & (1u << 29);
  if (!(fma && osxsave && avx && f16c)) return false;
  // The OS must save the YMM state on context switches (XCR0 bits 1 and 2).
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & 6u) != 6u) return false;
  if (__get_cpuid_max(0, nullptr) < 7) return false;
  __cpuid_count(7, 0, a, b, c, d);
  return b & (1u << 5);
}
#endif

#if defined(__aarch64__) || defined(__ARM_NEON)
// The kernel's hwcaps (the bit values of <asm/hwcap.h>, spelled out so that no libc header has
// to provide them). aarch64: ASIMD (bit 1) is part of the base ISA but a kernel may hide it;
// 32-bit ARM: NEON is bit 12 of AT_HWCAP.
bool cpu_has_neon() {
  const unsigned long hw = getauxval(AT_HWCAP);
#if defined(__aarch64__)
  return hw & (1ul << 1);
#else
  return hw & (1ul << 12);
#endif
}
#endif

#if defined(__x86_64__)
// The OS saves the opmask and ZMM state (XCR0 bits 5-7) besides the SSE and YMM state: without
// it EVEX instructions fault.
bool os_saves_zmm() {
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (lo & 0xE6u) == 0xE6u;
}

// AVX-512 F, DQ (mask <-> vector moves), BW and VL (the compiler may use them in the AVX-512
// files), on top of what the AVX2 table needs.
bool cpu_has_avx512() {
  if (!cpu_has_avx2_fma_f16c() || __get_cpuid_max(0, nullptr) < 7) return false;
  unsigned a, b, c, d;
  __cpuid_count(7, 0, a, b, c, d);
  const unsigned need = (1u << 16) | (1u << 17) | (1u << 30) | (1u << 31);  // F, DQ, BW, VL
  return (b & need) == need && os_saves_zmm();
}

unsigned detect_vnni() {
  if (__get_cpuid_max(0, nullptr) < 7) return 0;
  unsigned a, b, c, d, flags = 0;
  __cpuid_count(7, 1, a, b, c, d);
  if (a & (1u << 4)) flags |= kVnniAvx;  // AVX-VNNI: VEX encoded, needs only the YMM state
  __cpuid_count(7, 0, a, b, c, d);
  const bool f = b & (1u << 16), vl = b & (1u << 31), vnni = c & (1u << 11);
  if (f && vl && vnni && os_saves_zmm()) flags |= kVnniAvx512;
  return flags;
}
#endif

}  // namespace

unsigned x86_vnni() {
#if defined(__x86_64__)
  static const unsigned v = cpu_has_avx2_fma_f16c() ? detect_vnni() : 0;
  return v;
#else
  return 0;
#endif
}

#if defined(__aarch64__)
// Declared in kernels/neon/neon.h. HWCAP_ASIMDDP is bit 20 of AT_HWCAP (<asm/hwcap.h>).
bool arm_dotprod() {
  static const bool v = cpu_has_neon() && (getauxval(AT_HWCAP) & (1ul << 20));
  return v;
}
#endif

namespace {

// The tables this CPU runs: scalar always, then the SIMD ones from the narrowest (x86-64: AVX2,
// AVX-512; ARM: NEON). The preferred SIMD table is the widest unless ONNXFORGE_FORCE_ISA names
// another one present ("avx2" on an AVX-512 machine); ONNXFORGE_FORCE_SCALAR=1 makes the scalar
// table the active one.
struct Tables {
  KernelTable scalar{};
  KernelTable avx2{}, avx512{}, neon{};
  std::vector<const KernelTable*> simd;
  const KernelTable* preferred = nullptr;
  const KernelTable* active = nullptr;

  Tables() {
    detail::fill_scalar_table(scalar);
#if defined(__x86_64__)
    if (cpu_has_avx2_fma_f16c()) {
      fill_avx2_table(avx2);
      simd.push_back(&avx2);
    }
    if (cpu_has_avx512()) {
      fill_avx512_table(avx512);
      simd.push_back(&avx512);
    }
#elif defined(__aarch64__) || defined(__ARM_NEON)
    if (cpu_has_neon()) {
      fill_neon_table(neon);
      simd.push_back(&neon);
    }
#endif
    if (!simd.empty()) preferred = simd.back();
    if (const char* isa = std::getenv("ONNXFORGE_FORCE_ISA"))
      for (const KernelTable* t : simd)
        if (std::strcmp(isa, t->isa) == 0) preferred = t;
    const char* force = std::getenv("ONNXFORGE_FORCE_SCALAR");
    const bool forced = force && std::strcmp(force, "1") == 0;
    active = (preferred && !forced) ? preferred : &scalar;
  }
};

const Tables& tables() {
  static const Tables t;  // thread-safe one-time initialisation
  return t;
}

}  // namespace

const KernelTable& scalar_table() { return tables().scalar; }
const KernelTable* simd_table() { return tables().preferred; }
const std::vector<const KernelTable*>& simd_tables() { return tables().simd; }
const KernelTable& active_table() { return *tables().active; }
const char* active_isa() { return active_table().isa; }
const KernelTable& avx2_table() { return tables().avx2; }
const KernelTable& avx512_table() { return tables().avx512; }
const KernelTable& neon_table() { return tables().neon; }

void detail::fill_scalar_table(KernelTable& t) {
  t.isa = "scalar";
#define OFG_KERNEL(ret, name, params) t.name = scalar::name;
#include "kernels/kernel_list.h"
#undef OFG_KERNEL
}

// ------------------------------------------------------------------ scratch

namespace {
struct Scratch {
  float* ptr[4] = {nullptr, nullptr, nullptr, nullptr};
  size_t cap[4] = {0, 0, 0, 0};
  void release() {
    for (int i = 0; i < 4; ++i) {
      ::operator delete[](ptr[i], std::align_val_t(64));
      ptr[i] = nullptr;
      cap[i] = 0;
    }
  }
  ~Scratch() { release(); }
};
thread_local Scratch tls_scratch;
}  // namespace

float* detail::scratch(int slot, size_t floats) {
  Scratch& s = tls_scratch;
  if (floats > s.cap[slot]) {
    ::operator delete[](s.ptr[slot], std::align_val_t(64));
    // Round up so that slightly growing requests do not reallocate every call.
    size_t cap = floats + floats / 4 + 64;
    s.ptr[slot] = static_cast<float*>(::operator new[](cap * sizeof(float), std::align_val_t(64)));
    s.cap[slot] = cap;
  }
  return s.ptr[slot];
}

void release_scratch() { tls_scratch.release(); }

}  // namespace ofg::kernels
