#!/usr/bin/env bash
# Installs the build into a temporary prefix, then builds and runs two consumers of the
# installed package: a C program through pkg-config, and a CMake project through find_package.
set -euo pipefail
build="$1"
src="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null

for f in lib/libonnxforge.so include/onnxforge.h lib/pkgconfig/onnxforge.pc lib/cmake/onnxforge/onnxforgeConfig.cmake bin/onnxforge; do
  [ -e "$prefix/$f" ] || { echo "missing after install: $f"; exit 1; }
done
"$prefix/bin/onnxforge" --version

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046
cc -std=c99 -Wall -Werror -o "$work/consumer_pc" "$src/tests/packaging/consumer.c" $(pkg-config --cflags --libs onnxforge)
LD_LIBRARY_PATH="$prefix/lib" "$work/consumer_pc" "" "$work/demo.onnx" | tee "$work/out1.txt"
grep -q "nodes" "$work/out1.txt"
LD_LIBRARY_PATH="$prefix/lib" "$work/consumer_pc" "$work/demo.onnx" "$work/demo2.onnx"
cmp "$work/demo.onnx" "$work/demo2.onnx"

cmake -S "$src/tests/packaging/cmake_consumer" -B "$work/cm" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cm" >/dev/null
LD_LIBRARY_PATH="$prefix/lib" "$work/cm/consumer" "$work/demo.onnx" | grep -q "nodes"
echo "packaging: pkg-config and find_package consumers built and ran"
