#!/bin/sh
# isa_confinement.sh LIB OBJDUMP: fails when a function outside the AVX2/AVX-512 kernels uses
# their registers (ymm, zmm, the AVX-512 masks k1-k7). Such code would stop a process with an
# illegal instruction on a processor without those extensions, although the library checks cpuid
# before it calls any kernel of either table. It can get there when the linker keeps, of the
# copies of an inline function that several objects instantiate, the one compiled for AVX-512
# (CMakeLists.txt lists the ISA files last for that reason, with link-time optimisation or not).
# Functions are told apart by their demangled names: the kernels live in the namespaces
# ofg::kernels::avx2 and ofg::kernels::avx512, or are templates instantiated with their Isa.
set -eu
lib="$1"
objdump="${2:-objdump}"
out="$("$objdump" -d --no-show-raw-insn -C "$lib" | awk '
  /^[0-9a-f]+ <.*>:$/ { fn = $0; checked = 0; next }
  /%ymm|%zmm|%k[1-7]/ {
    if (!checked && fn !~ /avx2|avx512/) { print fn; checked = 1 }
  }')"
functions="$("$objdump" -d --no-show-raw-insn -C "$lib" | grep -c '^[0-9a-f]* <.*>:$' || true)"
if [ -n "$out" ]; then
  echo "functions outside the AVX2/AVX-512 kernels that use their registers:"
  echo "$out" | head -40
  echo "isa_confinement: 0 passed, 1 failed"
  exit 1
fi
echo "isa_confinement: $functions functions read; the AVX2/AVX-512 registers only in the kernels' own"
