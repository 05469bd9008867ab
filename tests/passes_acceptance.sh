#!/usr/bin/env bash
# Acceptance of the default pipeline on the shared real models: every model optimizes, the result
# passes onnx.checker, no BatchNormalization / Identity / Dropout is left, and `onnxforge run` of the
# result matches the PyTorch outputs of every test_data_set_N of the model, and `optimize --verify
# --samples 3` (ofg_verify against the original) passes. Prints node counts.
# Usage: passes_acceptance.sh ONNXFORGE_CLI DATA_DIR
set -uo pipefail
cli="$1"
models="$2/models"
if [ ! -d "$models" ]; then echo "SKIP: no models in $models"; exit 77; fi
py=/usr/bin/python3
have_onnx=1
"$py" -c "import onnx" 2>/dev/null || { echo "note: python3-onnx missing, onnx.checker not run"; have_onnx=0; }
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
status=0
printf "%-26s %7s %7s %10s  %s\n" model before after ms result
for dir in "$models"/*/; do
  name="$(basename "$dir")"
  [ -f "$dir/model.onnx" ] || continue
  log="$out/$name.log"
  if ! "$cli" optimize "$dir/model.onnx" "$out/$name.onnx" --check --report "$out/$name.json" >"$log" 2>&1; then
    echo "$name: optimize failed:"; cat "$log"; status=1; continue
  fi
  before="$(awk '$1 == "nodes" && $2 ~ /^[0-9]+$/ {print $2}' "$log")"
  after="$(awk '$1 == "nodes" && $2 ~ /^[0-9]+$/ {print $3}' "$log")"
  ms="$(awk '/^  time/ {print $6}' "$log" | tr -d ,)"
  result=ok
  if [ "$have_onnx" = 1 ]; then
    result="$("$py" - "$out/$name.onnx" <<'PY' 2>&1 | tail -1
import collections, sys
import onnx
m = onnx.load(sys.argv[1])
onnx.checker.check_model(m)
ops = collections.Counter(n.op_type for n in m.graph.node)
left = {k: ops[k] for k in ("BatchNormalization", "Identity", "Dropout") if ops[k]}
print("ok" if not left else "left: %s" % left)
PY
)"
  fi
  # The optimized model beside the original test data sets (other batch/sequence sizes included).
  mkdir -p "$out/run/$name"
  cp "$out/$name.onnx" "$out/run/$name/model.onnx"
  for t in "$dir"/test_data_set_*; do [ -d "$t" ] && ln -s "$t" "$out/run/$name/"; done
  if ! "$cli" run "$out/run/$name" >"$out/$name.run" 2>&1; then
    result="$result; run: $(tail -1 "$out/$name.run")"
  fi
  # ofg_verify of the optimized model against the original on 3 seeded random samples.
  if ! "$cli" optimize "$dir/model.onnx" "$out/$name.v.onnx" --verify --samples 3 >"$out/$name.verify" 2>&1; then
    result="$result; verify: $(grep -i -m1 -E 'fail|mismatch' "$out/$name.verify" || tail -1 "$out/$name.verify")"
  fi
  printf "%-26s %7s %7s %10s  %s\n" "$name" "$before" "$after" "$ms" "$result"
  [ "$result" = ok ] || status=1
done
exit $status
