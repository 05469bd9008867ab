#!/usr/bin/env bash
# Counts the registered op names written as string literals outside the op layer: in src/exec
# (registration lines of the families excluded), src/verify and passes. Op facts belong in the
# registry entry (src/ops/facts.h); what is left here is pattern structure (the layer norm a
# fusion matches, the ops a pass rewrites) and ops read for their own semantics.
#   bench/op_name_literals.sh [REPO]          per-folder counts and the total
#   bench/op_name_literals.sh [REPO] --list   every occurrence
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
names=$( { grep -rhoE '(r\.(add|declare)|add_unary[^(]*)\("[A-Za-z0-9_]+"' src/exec/ops
           grep -hoE 'X\([A-Za-z]+,' src/exec/ops/elementwise.cpp; } |
         grep -oE '"?[A-Za-z0-9_]+"?,?$' | tr -d '",(' | sort -u)
pat=$(echo "$names" | sed 's/.*/"&"/' | paste -sd'|')
hits=$(grep -rnE "$pat" src/exec src/verify passes --include=*.cpp --include=*.h | grep -vE 'r\.(add|declare)\(|add_unary' || true)
if [ "${2:-}" = "--list" ]; then echo "$hits"; exit 0; fi
echo "$hits" | grep -oE "^[^:]+|$pat" | awk '/^(src|passes)\//{split($0,p,"/"); f=(p[1]=="passes")?"passes":p[1]"/"p[2]; next}
  {c[f]++; t++} END {for (k in c) printf "%s %d\n", k, c[k]; printf "total %d\n", t}'
