#!/usr/bin/env bash
# No Android NDK here: compiles the files that make OS calls with __ANDROID__ and an old
# __ANDROID_API__ defined (over the cross compiler's glibc headers) and checks that the objects
# call none of the functions Bionic only has from a later API level (aligned_alloc: 28,
# renameat2: 30, copy_file_range: 34) and nothing glibc-only (backtrace, mallinfo, qsort_r, error).
#   android_guards.sh CXX SOURCE_DIR GENERATED_INCLUDE_DIR [CXXFLAGS...]
set -euo pipefail
cxx="$1" src="$2" gen="$3"
nm="${cxx%g++}nm"; command -v "$nm" >/dev/null || nm=nm
shift 3
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bad='^(aligned_alloc|renameat2|copy_file_range|backtrace|backtrace_symbols|mallinfo|mallinfo2|malloc_trim|qsort_r|error|error_at_line|gnu_get_libc_version)$'
status=0
for f in src/exec/tensor.cpp src/onnx/mapped_file.cpp src/onnx/save.cpp src/onnx/temp_file.cpp src/onnx/load.cpp \
         src/onnx/external_data.cpp src/kernels/dispatch.cpp src/api/api_core.cpp \
         src/verify/given_inputs.cpp passes/fold_constants.cpp; do
  [ -f "$src/$f" ] || continue
  o="$work/$(basename "$f").o"
  "$cxx" "$@" -std=c++17 -O1 -c -D__ANDROID__ -D__ANDROID_API__=24 -DOFG_BUILDING_LIBRARY \
    -I"$src/include_c" -I"$src/src" -I"$src" -I"$gen" -o "$o" "$src/$f"
  if "$nm" -u "$o" | awk '{print $NF}' | grep -E "$bad"; then
    echo "$f calls the functions above, which Bionic lacks at API 24"; status=1
  fi
done
[ $status -eq 0 ] && echo "Android API 24 guards: the OS-facing files compile and call nothing Bionic lacks"
exit $status
