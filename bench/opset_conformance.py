#!/usr/bin/python3
"""Opset conversion over the ONNX node conformance suite (DATA/onnx-backend-tests/node): each test
model is converted to every target given (default 11, 13, 17 and the newest the library knows)
with `onnxforge convert --target-opset N` (verified by execution against the original), and the
converted model is run by `onnxforge run` against the test's expected outputs.
Only tests whose original passes `onnxforge run` count. Prints per target: tests tried, converted,
not convertible (no adapter: exit 4), failed conversions (other exits), and converted models that
still pass; with --list, the not-convertible and failing tests.

    bench/opset_conformance.py ONNXFORGE_CLI [DATA_DIR] [--targets 11,13,17,newest] [--list] [--limit N]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("data", nargs="?", default=os.environ.get("ONNXFORGE_DATA",
                                                              os.path.join(os.path.dirname(__file__), "..", "..", "shared")))
    ap.add_argument("--targets", default="11,13,17,newest")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--limit", type=int, default=0)
    a = ap.parse_args()
    node = os.path.join(a.data, "onnx-backend-tests", "node")
    if not os.path.isdir(node):
        print("SKIP: no node suite under", node)
        return 77
    tests = sorted(t for t in os.listdir(node) if os.path.isfile(os.path.join(node, t, "model.onnx")))
    if a.limit:
        tests = tests[:a.limit]
    p = subprocess.run([a.cli, "convert", os.path.join(node, tests[0], "model.onnx"), "/dev/null", "--target-opset", "999999"],
                       capture_output=True, text=True)
    m = re.search(r"outside 7\.\.(\d+)", p.stderr)
    newest = int(m.group(1)) if m else 21
    targets = [newest if t == "newest" else int(t) for t in a.targets.split(",")]
    work = tempfile.mkdtemp(prefix="opset_conf.")
    stats = {t: Counter() for t in targets}
    notes = {t: [] for t in targets}
    try:
        for name in tests:
            src = os.path.join(node, name)
            if subprocess.run([a.cli, "run", src], capture_output=True).returncode != 0:
                continue  # the original does not pass: nothing to compare with
            for t in targets:
                s = stats[t]
                s["tried"] += 1
                d = os.path.join(work, "%s_%d" % (name, t))
                os.makedirs(d)
                r = subprocess.run([a.cli, "convert", os.path.join(src, "model.onnx"), os.path.join(d, "model.onnx"),
                                    "--target-opset", str(t)], capture_output=True, text=True)
                if r.returncode == 4:
                    s["not convertible"] += 1
                    why = r.stderr.strip().splitlines()[2:3]
                    notes[t].append("%s: not convertible: %s" % (name, why[0].strip() if why else ""))
                elif r.returncode != 0:
                    s["convert failed"] += 1
                    notes[t].append("%s: exit %d: %s" % (name, r.returncode, r.stderr.strip().splitlines()[-1:]))
                else:
                    s["converted"] += 1
                    for x in os.listdir(src):
                        if x.startswith("test_data_set_"):
                            os.symlink(os.path.abspath(os.path.join(src, x)), os.path.join(d, x))
                    if subprocess.run([a.cli, "run", d], capture_output=True).returncode == 0:
                        s["still pass"] += 1
                    else:
                        notes[t].append("%s: converted but fails the expected outputs" % name)
                shutil.rmtree(d, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%-8s %6s %10s %16s %15s %11s" % ("target", "tried", "converted", "not convertible", "convert failed", "still pass"))
    for t in targets:
        s = stats[t]
        print("%-8d %6d %10d %16d %15d %11d" % (t, s["tried"], s["converted"], s["not convertible"], s["convert failed"],
                                                s["still pass"]))
    if a.list:
        for t in targets:
            for n in notes[t]:
                print("[%d] %s" % (t, n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
