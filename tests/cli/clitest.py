"""What the command-line tests share: the binary under test (argv[1]), a scratch folder, a runner
that checks exit codes, and a main that runs every test_* function and ends with the
"N passed, N failed" line."""
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

CLI = os.path.abspath(sys.argv[1])
TMP = tempfile.mkdtemp(prefix="ofg_cli_")


def require_onnx():
    """numpy, onnx, TensorProto, helper and numpy_helper; exit 77 (ctest's skip) when the
    python3-onnx / python3-numpy packages are missing."""
    try:
        import numpy
        import onnx
        from onnx import TensorProto, helper, numpy_helper
    except ImportError as e:  # pragma: no cover
        print("SKIP: python3-onnx / python3-numpy missing (%s)" % e)
        sys.exit(77)
    return numpy, onnx, TensorProto, helper, numpy_helper


def run(*args, ok=(0,)):
    """Runs `onnxforge ARGS`; fails unless the exit code is one of `ok`."""
    p = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)
    if p.returncode not in ok:
        raise AssertionError("onnxforge %s: exit %d not in %s\nstdout:\n%s\nstderr:\n%s"
                             % (" ".join(map(str, args)), p.returncode, ok, p.stdout, p.stderr))
    return p


def save(model, name):
    import onnx
    path = os.path.join(TMP, name)
    onnx.save(model, path)
    return path


def read(path):
    with open(path, "rb") as f:
        return f.read()


def main(namespace):
    tests = [(n, f) for n, f in sorted(namespace.items()) if n.startswith("test_") and callable(f)]
    passed = failed = 0
    for name, fn in tests:
        try:
            fn()
            passed += 1
            print("ok   " + name)
        except Exception:  # noqa: BLE001 - every failure is reported
            failed += 1
            print("FAIL " + name)
            traceback.print_exc()
    shutil.rmtree(TMP, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1
