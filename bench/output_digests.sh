#!/usr/bin/env bash
# Optimizes every shared model with one onnxforge CLI and prints "model sha256 nodes" per line:
# two builds compared with this show whether a refactor changed any output byte.
#   bench/output_digests.sh PATH/TO/onnxforge [DATA_DIR] > digests.txt
# DATA_DIR defaults to $ONNXFORGE_DATA or ../shared beside the repository.
set -euo pipefail
cli=${1:?usage: output_digests.sh ONNXFORGE_CLI [DATA_DIR]}
here=$(cd "$(dirname "$0")/.." && pwd)
data=${2:-${ONNXFORGE_DATA:-$here/../shared}}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for model in "$data"/models/*/model.onnx "$data"/realworld/models/*/model.onnx "$data"/realworld/models/*.onnx; do
  [ -f "$model" ] || continue
  rel=${model#"$data"/}
  name=$(echo "$rel" | tr '/' '_')
  if "$cli" optimize "$model" "$out/$name" --threads 1 >/dev/null 2>"$out/$name.err"; then
    echo "$rel $(sha256sum < "$out/$name" | cut -c1-16)"
  else
    echo "$rel FAILED $(head -c 200 "$out/$name.err" | tr '\n' ' ')"
  fi
done
