#!/usr/bin/env bash
# `--target-opset` of `onnxforge convert` and `optimize`: a model with a node that has no adapter
# to the target exits 4, names the node, op and opsets, and writes nothing; a convertible one is
# written at the target opset (and optimize raises before its passes, so the layer norm fusion of
# opset 17 applies to an opset-13 BERT).
# Usage: cli_target_opset.sh ONNXFORGE_CLI DATA_DIR
set -uo pipefail
cli="$1"
data="$2"
grid="$data/onnx-backend-tests/node/test_gridsample/model.onnx"
bert="$data/models/bert_tiny_dirty/model.onnx"
if [ ! -f "$grid" ] || [ ! -f "$bert" ]; then echo "SKIP: no shared data under $data"; exit 77; fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; else echo "ok   $1"; fi; }

"$cli" convert "$grid" "$out/g.onnx" --target-opset 13 >"$out/g.log" 2>&1
rc=$?
check "GridSample to 13 exits 4" '[ $rc -eq 4 ]'
check "the message names node, op and opsets" 'grep -Eq "\(GridSample, opset [0-9]+ -> 13\): introduced in opset 16, no adapter" "$out/g.log"'
check "nothing written" '[ ! -e "$out/g.onnx" ]'
"$cli" optimize "$grid" "$out/go.onnx" --target-opset 13 >"$out/go.log" 2>&1
rc=$?
check "optimize --target-opset 13 exits 4 too" '[ $rc -eq 4 ] && [ ! -e "$out/go.onnx" ]'

"$cli" convert "$bert" "$out/b11.onnx" --target-opset 11 >"$out/b11.log" 2>&1
check "bert to 11 converts and verifies" 'grep -q "opset 13 -> 11: .* verified by execution" "$out/b11.log"'
check "bert at 11 declares opset 11" '"$cli" inspect "$out/b11.onnx" --json | grep -q "\"ai.onnx\":11"'
"$cli" optimize "$bert" "$out/b17.onnx" --target-opset 17 >"$out/b17.log" 2>&1
check "optimize --target-opset 17 fuses LayerNormalization" \
  '"$cli" inspect "$out/b17.onnx" --json | grep -q "\"LayerNormalization\":"'
"$cli" optimize "$bert" "$out/b13.onnx" >/dev/null 2>&1
check "without --target-opset no LayerNormalization at 13" \
  '! "$cli" inspect "$out/b13.onnx" --json | grep -q "\"LayerNormalization\":"'
"$cli" convert "$bert" "$out/x.onnx" --no-opset-verify >/dev/null 2>&1
rc=$?
check "--no-opset-verify alone is a usage error" '[ $rc -eq 2 ]'
exit $fail
