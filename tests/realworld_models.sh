#!/usr/bin/env bash
# Real third-party models (DATA/realworld/models: exports by PyTorch, tf2onnx and spox from public
# npm packages, with ONNX Runtime's outputs in test_data_set_N). For every model:
#   1. `onnxforge run` matches ONNX Runtime's outputs (rtol 1e-3, atol 1e-4);
#   2. `optimize --verify` passes, on the test data beside the model and on seeded inputs the
#      verifier derives from the graph alone (--random-inputs, 3 samples);
#   3. the optimized model still matches ONNX Runtime's outputs.
# Models whose declared outputs are float16 are compared with rtol 1e-2, atol 1e-3: float16 keeps
# 11 significant bits (one ulp is 2^-10 ~ 9.8e-4 relative), ONNX Runtime rounds every
# intermediate to float16 while the interpreter computes half-precision ops in float32 and
# rounds once per op, so results may differ by a few ulps after a few dozen ops; 1e-2 is ten
# ulps. (The shared silero_vad_half keeps float16 weights but declares float32 outputs, so it is
# held to the float32 tolerance.)
# Prints a table: nodes of the main graph and of all graphs (subgraphs included) before/after,
# verify time on real data and on derived inputs (3 samples), in ms.
# Usage: realworld_models.sh ONNXFORGE_CLI DATA_DIR
set -uo pipefail
cli="$1"
models="$2/realworld/models"
if [ ! -d "$models" ]; then echo "SKIP: no real-world models in $models"; exit 77; fi
models="$(cd "$models" && pwd)"  # absolute: the test data sets are linked from a temporary folder
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
status=0
ms() { date +%s%N; }
# The last line that says what went wrong, or how the command ended.
why() {  # why LOG EXIT_CODE
  local line
  line="$(grep -m1 -E 'FAIL|onnxforge:|DIFFER' "$1" || true)"
  if [ "$2" -ge 128 ]; then line="crashed (signal $(($2 - 128))) $line"; fi
  echo "exit $2: ${line:-$(tail -1 "$1")}"
}
printf "%-24s %6s %6s %8s %8s %10s %12s  %s\n" model before after all_bef all_aft verify_ms derived_ms result
for dir in "$models"/*/; do
  name="$(basename "$dir")"
  [ -f "$dir/model.onnx" ] || continue
  tol=(--rtol 1e-3 --atol 1e-4)
  if "$cli" inspect "$dir/model.onnx" --json | grep -q '"outputs":\[[^]]*"type":"float16"'; then
    tol=(--rtol 1e-2 --atol 1e-3)
  fi
  result=ok
  # 1. the interpreter against ONNX Runtime
  if ! "$cli" run "$dir" "${tol[@]}" >"$out/$name.run" 2>&1; then
    result="run: $(grep -m1 FAIL "$out/$name.run" || tail -1 "$out/$name.run")"
  fi
  # 2. optimize --verify on the real data beside the model ...
  t0=$(ms)
  "$cli" optimize "$dir/model.onnx" "$out/$name.onnx" --verify >"$out/$name.opt" 2>&1
  rc=$?
  [ $rc -eq 0 ] || result="$result; optimize --verify: $(why "$out/$name.opt" $rc)"
  t1=$(ms)
  # ... and on inputs derived from the graph alone
  "$cli" optimize "$dir/model.onnx" "$out/$name.r.onnx" --verify --random-inputs --samples 3 >"$out/$name.ropt" 2>&1
  rc=$?
  [ $rc -eq 0 ] || result="$result; derived inputs: $(why "$out/$name.ropt" $rc)"
  t2=$(ms)
  # 3. the optimized model against ONNX Runtime
  if [ -f "$out/$name.onnx" ]; then
    mkdir -p "$out/run/$name"
    cp "$out/$name.onnx" "$out/run/$name/model.onnx"
    for t in "$dir"/test_data_set_*; do [ -d "$t" ] && ln -s "$t" "$out/run/$name/"; done
    if ! "$cli" run "$out/run/$name" "${tol[@]}" >"$out/$name.orun" 2>&1; then
      result="$result; optimized run: $(grep -m1 FAIL "$out/$name.orun" || tail -1 "$out/$name.orun")"
    fi
  else
    result="$result; no optimized model"
  fi
  before="$(awk '$1 == "nodes" && $2 ~ /^[0-9]+$/ {print $2}' "$out/$name.opt")"
  after="$(awk '$1 == "nodes" && $2 ~ /^[0-9]+$/ {print $3}' "$out/$name.opt")"
  all_before="$(awk '$1 == "nodes" && $2 == "with" {print $4}' "$out/$name.opt")"
  all_after="$(awk '$1 == "nodes" && $2 == "with" {print $5}' "$out/$name.opt")"
  printf "%-24s %6s %6s %8s %8s %10s %12s  %s\n" "$name" "${before:--}" "${after:--}" "${all_before:--}" "${all_after:--}" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", (b - a) / 1e6}')" \
    "$(awk -v a="$t1" -v b="$t2" 'BEGIN {printf "%.1f", (b - a) / 1e6}')" "$result"
  [ "$result" = ok ] || status=1
done
exit $status
