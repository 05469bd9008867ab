#!/usr/bin/env bash
# Cross-builds onnxforge once for TARGET and runs test sets under qemu-user with ctest
# (CMAKE_CROSSCOMPILING_EMULATOR from the toolchain file: qemu-aarch64 / qemu-arm -L /usr/<triple>).
#   tests/cross/run_cross.sh TARGET [--build-only] [SET...]
# TARGET: aarch64 (build-aarch64) or armv7 (build-armv7, ARMv7-A + NEON, hard float).
# SET (default for aarch64: kernels interp conformance models scalar capi size; for armv7: kernels interp capi size):
#   kernels      the kernel tests (NEON table against the scalar reference, odd sizes and tails)
#                and the 128-bit integer emulation 32-bit targets use
#   interp       the interpreter tests (gtest Exec*, InferTypes, op validation)
#   gtest        the whole gtest suite
#   conformance  the ONNX backend-test suites node, simple, pytorch-converted, pytorch-operator
#                (every test of each); not the light suite (nine full-size models such as VGG-19
#                and ResNet-50: several exceed the 120 s a test may take under qemu)
#   models       the shared-model checks: ../shared/models against PyTorch's outputs, on the
#                default table and on forced scalar kernels (conformance_models[_scalar])
#   passes       the pass pipeline with --verify on the shared models (about 17 min emulated;
#                not in the default sets)
#   scalar       interp + the conformance node suite with ONNXFORGE_FORCE_SCALAR=1
#   capi         the C program calling every exported function; the pkg-config/find_package
#                cross consumers of the installed prefix; the Android API guard check
#   size         the stripped-library size budget
# Prints the time each set took, the skipped tests with their reasons, and a last line
# "cross TARGET: P passed, F failed, S skipped".
# Environment: OFG_CROSS_JOBS (parallel ctest jobs and build jobs, default nproc), ONNXFORGE_DATA.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
target="${1:?usage: run_cross.sh aarch64|armv7 [SET...]}"
shift
case "$target" in
  aarch64) toolchain="$root/cmake/toolchains/aarch64-linux-gnu.cmake"; default_sets=(kernels interp conformance models scalar capi size) ;;
  armv7)   toolchain="$root/cmake/toolchains/armv7-linux-gnueabihf.cmake"; default_sets=(kernels interp capi size) ;;
  *) echo "unknown target $target (aarch64, armv7)" >&2; exit 2 ;;
esac
build_only=0
if [ "${1:-}" = "--build-only" ]; then build_only=1; shift; fi
sets=("$@")
[ "${#sets[@]}" -gt 0 ] || sets=("${default_sets[@]}")
jobs="${OFG_CROSS_JOBS:-$(nproc 2>/dev/null || echo 2)}"
build="$root/build-$target"
data_arg=()
[ -n "${ONNXFORGE_DATA:-}" ] && data_arg=(-DOFG_DATA_DIR="$ONNXFORGE_DATA")

t0=$(date +%s)
build_failed() {  # the caller (.ci/dev) counts a failed build as one failed test
  tail -40 "$1"
  echo "cross $target: 0 passed, 1 failed, 0 skipped (the cross build failed)"
  exit 1
}
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_BUILD_TYPE=Release \
  -DOFG_BUILD_BENCH=OFF "${data_arg[@]}" >"$build/cross-configure.log" 2>&1 || build_failed "$build/cross-configure.log"
# Only what the sets run (the gtest suite, the command, the C test, the library).
cmake --build "$build" -j"$jobs" --target ofg_tests onnxforge_cli ofg_c_api_test onnxforge onnxforge_static \
  >"$build/cross-build.log" 2>&1 || build_failed "$build/cross-build.log"
echo "cross $target: built in $(( $(date +%s) - t0 )) s"
[ "$build_only" -eq 0 ] || exit 0

interp_re='^(Exec|InferTypes|OpValidation|OpCtxChecks|CheckedArithmetic|SaturateCast|TensorBudget)'
status=0
no_run=0  # sets that ran no test count as one failure each
junits=()
py=/usr/bin/python3
[ -x "$py" ] || py=python3
run_set() {  # run_set NAME [env assignments --] ctest args...
  local name="$1"; shift
  local envs=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  local log t1 junit="$build/ctest-junit-$name.xml"
  log="$(mktemp)"
  t1=$(date +%s)
  rm -f "$junit"
  (cd "$build" && env "${envs[@]}" ctest -j"$jobs" --output-on-failure --timeout 3600 --output-junit "$junit" "$@") >"$log" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || { status=1; grep -E "Failed|\*\*\*|Error|Timeout" "$log" | head -40; }
  if [ ! -f "$junit" ] || ! grep -q '<testcase' "$junit"; then
    echo "cross $target set $name: no tests ran"; tail -20 "$log"; status=1; no_run=$((no_run + 1))
  else
    junits+=("$junit")
    # Skipped tests with their reasons, and "cross TARGET set NAME: P passed, F failed, S skipped".
    "$py" "$root/tests/ctest_summary.py" "cross $target set $name" "$junit" 2>&1 | sed "\$ s/\$/ ($(( $(date +%s) - t1 )) s)/"
  fi
  rm -f "$log"
}
for s in "${sets[@]}"; do
  case "$s" in
    kernels)     run_set kernels -- -R '^(Kernels|Int128)' ;;
    interp)      run_set interp -- -R "$interp_re" ;;
    gtest)       run_set gtest -- -E '^(conformance_|passes_real_models|realworld_models|c_api_|cross_|library_size)' ;;
    conformance) run_set conformance -- -R '^conformance_' -E 'conformance_(models|light)' ;;
    models)      run_set models -- -R '^conformance_models' ;;
    passes)      run_set passes -- -R '^passes_real_models$' ;;
    scalar)      run_set scalar ONNXFORGE_FORCE_SCALAR=1 -- -R "$interp_re|^conformance_node\$" ;;
    capi)        run_set capi -- -R '^(c_api_every_function|cross_pkgconfig_consumer|android_api_guards)$' ;;
    size)        run_set size -- -R '^library_size_budget$' ;;
    *) echo "unknown set $s" >&2; status=1 ;;
  esac
done
# The whole target: "cross TARGET: P passed, F failed, S skipped" (the skips were listed per set).
p=0 f=0 k=0
if [ "${#junits[@]}" -gt 0 ]; then
  read -r p f k <<<"$("$py" "$root/tests/ctest_summary.py" "cross $target" "${junits[@]}" | tail -1 |
    sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped.*/\1 \2 \3/p')"
fi
p=${p:-0} k=${k:-0} f=$(( ${f:-1} + no_run ))
[ "$f" -eq 0 ] || status=1
echo "cross $target: $p passed, $f failed, $k skipped ($(( $(date +%s) - t0 )) s)"
exit $status
