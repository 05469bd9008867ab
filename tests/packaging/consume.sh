#!/usr/bin/env bash
# Installs the build into a temporary prefix, then builds and runs consumers of the installed
# package: C programs through pkg-config (dynamic with an rpath, dynamic with LD_LIBRARY_PATH,
# fully static with --static), CMake projects through find_package (shared and static targets),
# the example in examples/, and the Python package (from the prefix and through pip).
#   consume.sh BUILD_DIR SOURCE_DIR [PYTHON3]
set -euo pipefail
build="$1"
src="$2"
py="${3:-}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null

pydir="$prefix/lib/python3/dist-packages"
for f in lib/libonnxforge.so lib/libonnxforge.a include/onnxforge.h lib/pkgconfig/onnxforge.pc \
         lib/cmake/onnxforge/onnxforgeConfig.cmake bin/onnxforge lib/python3/dist-packages/onnxforge/__init__.py \
         lib/python3/dist-packages/onnxforge/_install_paths.py; do
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

# The example, dynamic: without an rpath the loader needs LD_LIBRARY_PATH ...
example="$src/examples/optimize_model.c"
# shellcheck disable=SC2046
cc -std=c99 -Wall -Werror -o "$work/example_dyn" "$example" $(pkg-config --cflags --libs onnxforge)
if env -u LD_LIBRARY_PATH "$work/example_dyn" --demo "$work/x.onnx" 2>"$work/err.txt"; then
  echo "example without rpath started without LD_LIBRARY_PATH (expected: library not found)"; exit 1
fi
grep -q "libonnxforge.so.0" "$work/err.txt"
LD_LIBRARY_PATH="$prefix/lib" "$work/example_dyn" "$work/demo.onnx" "$work/ex1.onnx" | tee "$work/ex1.txt"
grep -q "verified: passed" "$work/ex1.txt"
# ... with an rpath it starts on its own.
# shellcheck disable=SC2046
cc -std=c99 -Wall -Werror -o "$work/example_rpath" "$example" $(pkg-config --cflags --libs onnxforge) \
  -Wl,-rpath,"$(pkg-config --variable=libdir onnxforge)"
readelf -d "$work/example_rpath" | grep -E "RUNPATH|RPATH"
env -u LD_LIBRARY_PATH "$work/example_rpath" --demo "$work/ex2.onnx" | grep -q "saved"

# Static: the whole program (-static) with the libraries pkg-config --static lists.
# shellcheck disable=SC2046
cc -std=c99 -Wall -Werror -static -o "$work/example_static" "$example" $(pkg-config --static --cflags --libs onnxforge)
if readelf -d "$work/example_static" 2>/dev/null | grep -q "NEEDED"; then
  echo "static example needs shared libraries:"; readelf -d "$work/example_static" | grep NEEDED; exit 1
fi
env -u LD_LIBRARY_PATH "$work/example_static" "$work/demo.onnx" "$work/ex3.onnx" | grep -q "verified: passed"
cmp "$work/ex1.onnx" "$work/ex3.onnx"

# find_package: the existing consumer, and the examples (shared and static targets).
cmake -S "$src/tests/packaging/cmake_consumer" -B "$work/cm" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cm" >/dev/null
LD_LIBRARY_PATH="$prefix/lib" "$work/cm/consumer" "$work/demo.onnx" | grep -q "nodes"
cmake -S "$src/examples" -B "$work/ex" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/ex" >/dev/null
env -u LD_LIBRARY_PATH "$work/ex/optimize_model" --demo "$work/ex4.onnx" | grep -q "saved"
if readelf -d "$work/ex/optimize_model_static" | grep -q "libonnxforge"; then
  echo "optimize_model_static needs libonnxforge.so"; exit 1
fi
env -u LD_LIBRARY_PATH "$work/ex/optimize_model_static" --demo "$work/ex5.onnx" | grep -q "saved"
echo "packaging: pkg-config (rpath, LD_LIBRARY_PATH, --static) and find_package (shared, static) consumers built and ran"

# Python: the installed package finds the library of its prefix by itself.
if [ -n "$py" ] && "$py" -c "import numpy" 2>/dev/null; then
  (cd "$work" && env -u ONNXFORGE_LIBRARY -u LD_LIBRARY_PATH PYTHONPATH="$pydir" "$py" -c "
import onnxforge, os
assert os.path.realpath(onnxforge.library_path) == os.path.realpath('$prefix/lib/libonnxforge.so.0'), onnxforge.library_path
m = onnxforge.load('$work/demo.onnx')
r = m.optimize(verify=True)
assert r.ok, r.summary()
m.save('$work/py.onnx')
print('python from the prefix:', onnxforge.version(), r.nodes_before, '->', r.nodes_after, 'nodes, verified')
")
  env -u ONNXFORGE_LIBRARY PYTHONPATH="$pydir" "$py" -m onnxforge inspect "$work/py.onnx" >"$work/inspect.txt"
  head -3 "$work/inspect.txt"
  # pip, offline, from the checkout, bundling the library just installed (config setting
  # library=; tests/python_pip_install.sh does the whole build a user's pip install does).
  if "$py" -m pip --version >/dev/null 2>&1; then
    "$py" -m pip install -q --no-index --disable-pip-version-check --target "$work/pip" \
      --config-settings "library=$prefix/lib/libonnxforge.so" "$src/bindings/python" 2>&1 | grep -v "WARNING: Running pip as" || true
    (cd "$work" && env -u ONNXFORGE_LIBRARY -u LD_LIBRARY_PATH PYTHONPATH="$work/pip" "$py" -c "
import onnxforge, os
assert os.path.dirname(onnxforge.library_path) == os.path.dirname(onnxforge.__file__), onnxforge.library_path
m = onnxforge.demo()
assert m.optimize(verify=True).ok
print('python via pip install --target, the library bundled in the package:', onnxforge.library_path)
")
  else
    echo "pip missing for $py: pip install not tried"
  fi
else
  echo "no python3 with numpy: Python package from the prefix not tried"
fi
