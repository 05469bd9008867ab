#!/usr/bin/env bash
# Runs one libFuzzer target of onnxforge for a bounded time; exits non-zero when the run found a
# crash, a sanitizer report, a leak or an out-of-memory (the input is kept as an artifact).
#
#   bash tests/fuzz/run_fuzz.sh TARGET SECONDS [JOBS]
#     TARGET   load | pipeline | verify   (tests/fuzz/fuzz_TARGET.cpp)
#     SECONDS  wall time of the run (libFuzzer -max_total_time)
#     JOBS     fuzzing processes run in parallel (default 1; the machine may be shared)
#
# The fuzz build (clang, -DOFG_FUZZ=ON, ASan + UBSan) is $OFG_FUZZ_BUILD_DIR, by default
# build-fuzz in the repository root; it is configured and built when its target is missing, and
# brought up to date otherwise (OFG_FUZZ_NO_BUILD=1 skips that, as the ctests do); the compilers
# are clang / clang++ unless OFG_FUZZ_CC / OFG_FUZZ_CXX say otherwise. The fuzz build also has
# ctests (label "fuzz") that run each target for 60 s: ctest -L fuzz in that folder.
# Seeds: every model.onnx of at most 32 KiB under $ONNXFORGE_DATA/onnx-backend-tests (the data
# folder defaults to ../shared beside the repository), copied to <build>/fuzz/seeds-TARGET. The corpus
# the fuzzer grows stays in <build>/fuzz/corpus-TARGET across runs; crash inputs go to
# <build>/fuzz/artifacts-TARGET/.
#
# Fuzzing for longer: give more seconds and, on an idle machine, more jobs, e.g.
#   bash tests/fuzz/run_fuzz.sh verify 3600 4
# Each run continues from the corpus of the previous ones. Reproduce a crash with
#   <build>/tests/fuzz/ofg_fuzz_TARGET FILE
# and, once fixed, copy the (small) input to tests/fuzz/regressions/ so that the gtest
# fuzz_findings_test replays it, and add a line to tests/fuzz/FINDINGS.md.
set -euo pipefail

target=${1:?usage: run_fuzz.sh load|pipeline|verify SECONDS [JOBS]}
seconds=${2:?usage: run_fuzz.sh TARGET SECONDS [JOBS]}
jobs=${3:-1}
case "$target" in load|pipeline|verify) ;; *) echo "unknown target '$target' (load, pipeline, verify)" >&2; exit 2 ;; esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${OFG_FUZZ_BUILD_DIR:-$root/build-fuzz}
data=${ONNXFORGE_DATA:-$root/../shared}
exe=$build/tests/fuzz/ofg_fuzz_$target

if [[ "${OFG_FUZZ_NO_BUILD:-0}" != 1 ]]; then
  if [[ ! -f "$build/CMakeCache.txt" ]]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOFG_FUZZ=ON \
      -DCMAKE_C_COMPILER="${OFG_FUZZ_CC:-clang}" -DCMAKE_CXX_COMPILER="${OFG_FUZZ_CXX:-clang++}" \
      -DOFG_BUILD_TESTS=OFF -DOFG_BUILD_BENCH=OFF
  fi
  cmake --build "$build" --target "ofg_fuzz_$target" -j "${OFG_BUILD_JOBS:-2}"
fi
[[ -x "$exe" ]] || { echo "no fuzz target $exe: configure with -DOFG_FUZZ=ON" >&2; exit 2; }

work=$build/fuzz
# One seed folder per target: the ctests run the targets in parallel.
seeds=$work/seeds-$target
corpus=$work/corpus-$target
mkdir -p "$seeds" "$corpus"
if [[ -d "$data/onnx-backend-tests" ]]; then
  # Seed names are the model's folder path, so re-running only refreshes them.
  while IFS= read -r f; do
    rel=${f#"$data/onnx-backend-tests/"}
    cp -u "$f" "$seeds/${rel//\//_}"
  done < <(find "$data/onnx-backend-tests" -name model.onnx -size -32k)
else
  echo "note: no $data/onnx-backend-tests: fuzzing without seeds" >&2
fi

artifacts=$work/artifacts-$target/$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$artifacts"
log=$artifacts/fuzz.log
args=(-max_total_time="$seconds" -timeout=60 -rss_limit_mb=3072 -print_final_stats=1
      -dict="$here/onnx.dict" -artifact_prefix="$artifacts/")
if (( jobs > 1 )); then args+=(-jobs="$jobs" -workers="$jobs"); fi
# OFG_FUZZ_SEED fixes libFuzzer's random seed (the ctests do, so a CI run replays the same
# mutations from the same seeds); unset, every run explores differently.
if [[ -n "${OFG_FUZZ_SEED:-}" ]]; then args+=(-seed="$OFG_FUZZ_SEED"); fi
echo "fuzzing $target for ${seconds}s with $jobs job(s); log $log"
status=0
started=$SECONDS
(cd "$artifacts" && "$exe" "${args[@]}" "$corpus" "$seeds") >"$log" 2>&1 || status=$?
echo "ran $((SECONDS - started))s wall with $jobs job(s)"
if (( jobs > 1 )); then cat "$artifacts"/fuzz-*.log >>"$log" 2>/dev/null || true; fi
grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "$log" | tail -n "$jobs" || true

found=$(find "$artifacts" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'oom-*' -o -name 'timeout-*' \) | sort)
if [[ -n "$found" || $status -ne 0 ]]; then
  echo "FAILED: libFuzzer exited with $status; inputs kept:" >&2
  echo "${found:-  (none)}" >&2
  grep -m3 -E "ERROR: |runtime error|SUMMARY" "$log" >&2 || true
  exit 1
fi
echo "no crash"
