#!/usr/bin/env bash
# The library exports exactly the ofg_* symbols listed in exported_symbols.txt: an ABI change is
# always a deliberate edit of that list.
set -euo pipefail
lib="$1"
expected="$2"
actual="$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sed 's/@.*//' | sort -u)"
if echo "$actual" | grep -v '^ofg_' | grep -q .; then
  echo "non-ofg symbols exported:"; echo "$actual" | grep -v '^ofg_'; exit 1
fi
if ! diff <(sort -u "$expected") <(echo "$actual"); then
  echo "exported symbols differ from $expected (< expected, > actual)"; exit 1
fi
echo "$(echo "$actual" | wc -l) exported symbols, all ofg_*, as listed"
