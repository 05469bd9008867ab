#!/usr/bin/env bash
# `pip install ./bindings/python` as a user does it: into a fresh virtual environment, offline
# (--no-index), with a Python that is not Debian's when the machine has one (a python3 earlier on
# PATH than /usr/bin/python3, which sees none of Debian's python3-* packages), else Debian's.
# The in-tree backend builds libonnxforge with CMake (into SRC/build-python) and puts it inside the
# package; then, in a clean environment (no ONNXFORGE_LIBRARY, no LD_LIBRARY_PATH, not from the
# source folder), the package must import, load the bundled library, simplify the demo model, and
# report the version the header, the CLI and the pkg-config file give.
# Usage: python_pip_install.sh SRC_DIR BUILD_DIR   (exit 77: no Python with pip and venv here)
set -uo pipefail
src="$1"
build="$2"
py=""
for candidate in $(type -ap python3) /usr/bin/python3; do
  if "$candidate" -m venv --help >/dev/null 2>&1 && "$candidate" -c "import ensurepip" >/dev/null 2>&1; then
    py="$candidate"
    break
  fi
done
if [ -z "$py" ]; then
  echo "SKIP: no python3 with venv and ensurepip (Debian: python3-venv)"
  exit 77
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "python: $py ($("$py" --version 2>&1)); Debian's: $([ "$(readlink -f "$py")" = "$(readlink -f /usr/bin/python3)" ] && echo yes || echo no)"
"$py" -m venv "$work/venv" || { echo "FAIL: cannot make a venv with $py"; exit 1; }
t0=$(date +%s)
if ! "$work/venv/bin/pip" install --no-index --disable-pip-version-check -q "$src/bindings/python" >"$work/pip.log" 2>&1; then
  echo "FAIL: pip install"; tail -40 "$work/pip.log"; exit 1
fi
echo "pip install: $(( $(date +%s) - t0 )) s"
header_version="$(sed -n 's/^#define OFG_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' "$src/include_c/onnxforge.h" | paste -sd.)"
cli_version="$("$build/onnxforge" --version | awk '{print $2}')"
pc_version="$(sed -n 's/^Version: //p' "$build/onnxforge.pc")"
cd "$work" || exit 1
env -i HOME="$work" PATH=/usr/bin:/bin "$work/venv/bin/python" - "$header_version" "$cli_version" "$pc_version" <<'PY'
import importlib.metadata, os, sys
import onnxforge
here = os.path.dirname(onnxforge.__file__)
assert os.path.dirname(onnxforge.library_path) == here, ("not the bundled library", onnxforge.library_path)
assert "site-packages" in here, here
header, cli, pc = sys.argv[1:4]
versions = {"header": header, "CLI --version": cli, "onnxforge.pc": pc, "onnxforge.__version__": onnxforge.__version__,
            "ofg_version_string": onnxforge.version(), "wheel metadata": importlib.metadata.version("onnxforge")}
assert len(set(versions.values())) == 1, versions
with onnxforge.demo() as m:
    before = m.node_count()
    data = m.to_bytes()
out = onnxforge.simplify(data)
with onnxforge.load(out) as m:
    after = m.node_count()
assert after < before, (before, after)
print("bundled", os.path.basename(onnxforge.library_path), "| version", onnxforge.__version__, "everywhere |",
      "demo simplified", before, "->", after, "nodes, verified")
PY
