#!/usr/bin/env bash
# A cross consumer of the installed package: installs the cross build, builds C programs for the
# target against it through pkg-config (a prefix of its own, and a sysroot-style DESTDIR install
# with PKG_CONFIG_SYSROOT_DIR) and through find_package with the same toolchain file, then runs
# them under the emulator.
#   consume_cross.sh BUILD_DIR SOURCE_DIR CC "CFLAGS" "EMULATOR ARGS" [TOOLCHAIN_FILE]
set -euo pipefail
build="$1" src="$2" cc="$3" cflags="$4" emu="$5" toolchain="${6:-}"
read -r -a emu_cmd <<<"$emu"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
read -r -a cflag_arr <<<"$cflags"

# 1. A prefix of its own: PKG_CONFIG_LIBDIR (not PKG_CONFIG_PATH) so that no .pc file of the
#    build machine is seen. The .pc file locates the prefix from its own folder (${pcfiledir}).
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
export PKG_CONFIG_LIBDIR="$prefix/lib/pkgconfig"
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
# shellcheck disable=SC2046
"$cc" "${cflag_arr[@]}" -std=c99 -Wall -Werror -o "$work/consumer_pc" "$src/tests/packaging/consumer.c" \
  $(pkg-config --cflags --libs onnxforge) -Wl,-rpath,"$(pkg-config --variable=libdir onnxforge)"
"${emu_cmd[@]}" "$work/consumer_pc" "" "$work/demo.onnx" | grep "nodes"
# shellcheck disable=SC2046
"$cc" "${cflag_arr[@]}" -std=c99 -Wall -Werror -o "$work/example" "$src/examples/optimize_model.c" \
  $(pkg-config --cflags --libs onnxforge) -Wl,-rpath,"$(pkg-config --variable=libdir onnxforge)"
readelf -h "$work/example" | grep -E "Machine|Class"
"${emu_cmd[@]}" "$work/example" "$work/demo.onnx" "$work/ex1.onnx" | tee "$work/ex1.txt"
grep -q "verified: passed" "$work/ex1.txt"
# Static, the library's objects in the program.
# shellcheck disable=SC2046
"$cc" "${cflag_arr[@]}" -std=c99 -Wall -Werror -static -o "$work/example_static" "$src/examples/optimize_model.c" \
  $(pkg-config --static --cflags --libs onnxforge)
"${emu_cmd[@]}" "$work/example_static" "$work/ex1.onnx" "$work/ex2.onnx" | grep -q "verified: passed"

# 2. A sysroot: installed with DESTDIR under prefix /usr, as into a device image, found with
#    PKG_CONFIG_LIBDIR=<sysroot>/usr/lib/pkgconfig and PKG_CONFIG_SYSROOT_DIR=<sysroot>. At run
#    time the emulated program finds the library through LD_LIBRARY_PATH (qemu -E).
sysroot="$work/sysroot"
DESTDIR="$sysroot" cmake --install "$build" --prefix /usr >/dev/null
export PKG_CONFIG_LIBDIR="$sysroot/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$sysroot"
echo "sysroot pkg-config: $(pkg-config --cflags --libs onnxforge | sed "s|$sysroot|<sysroot>|g")"
# shellcheck disable=SC2046
"$cc" "${cflag_arr[@]}" -std=c99 -Wall -Werror -o "$work/consumer" "$src/tests/packaging/consumer.c" \
  $(pkg-config --cflags --libs onnxforge)
"${emu_cmd[@]}" -E LD_LIBRARY_PATH="$sysroot/usr/lib" "$work/consumer" "$work/ex1.onnx" | grep -q "nodes"
unset PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR

# 3. find_package with the same toolchain file: the package folder is named explicitly
#    (the toolchain files restrict package searches to the target's root path).
if [ -n "$toolchain" ]; then
  cmake -S "$src/tests/packaging/cmake_consumer" -B "$work/cm" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
    -Donnxforge_DIR="$prefix/lib/cmake/onnxforge" >/dev/null
  cmake --build "$work/cm" >/dev/null
  "${emu_cmd[@]}" -E LD_LIBRARY_PATH="$prefix/lib" "$work/cm/consumer" "$work/ex1.onnx" | grep -q "nodes"
  echo "find_package consumer built with $(basename "$toolchain") and ran"
fi
echo "cross consumers: pkg-config (prefix, sysroot, static) built and ran under ${emu_cmd[0]}"
