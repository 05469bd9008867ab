#!/bin/sh
# check_size.sh LIBRARY STRIP BUDGET_BYTES: strips a copy of LIBRARY (with the target's strip)
# and fails when it is larger than BUDGET_BYTES.
set -eu
lib="$1" strip="$2" budget="$3"
tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
"$strip" -o "$tmp" "$lib"
size="$(wc -c < "$tmp" | tr -d ' ')"
echo "stripped $(basename "$lib"): $size bytes (budget $budget, $((budget - size)) to spare)"
[ "$size" -le "$budget" ] || { echo "over the size budget by $((size - budget)) bytes"; exit 1; }
