#!/usr/bin/env python3
"""Whole-process `onnxforge optimize` on each shared model against `cp` of the same file (the
floor), both timed in the same run, interleaved, median of N; peak RSS from /usr/bin/time -v;
per-pass time from the report.

Each tool writes a file of its own that does not exist yet (the previous run's output is removed
before the timed command, untimed). With --same-output both write the same path in turn, as the
first version of this script did: then each run also pays for tearing down the other tool's file
(on ext4, cp's O_TRUNC of an existing file starts writeback of the new one when it closes, and
replacing that file next waits for the I/O), which measures the file system's history more than
either tool.

usage: bench/optimize_bench.py BUILD_DIR [DATA_DIR] [--runs N] [--same-output]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

args = [a for a in sys.argv[1:] if not a.startswith("--")]
same_output = "--same-output" in sys.argv
runs = 5
if "--runs" in sys.argv:
    runs = int(sys.argv[sys.argv.index("--runs") + 1])
    args = [a for a in args if a != str(runs)]
build = args[0]
data = args[1] if len(args) > 1 else os.environ.get("ONNXFORGE_DATA", os.path.join(os.path.dirname(__file__), "..", "..", "shared"))
tool = os.path.join(build, "onnxforge")
models_dir = os.path.join(data, "models")
tmp = tempfile.mkdtemp()


def timed(cmd):
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t0) * 1000.0


def peak_rss_kb(cmd):
    r = subprocess.run(["/usr/bin/time", "-v"] + cmd, check=True, capture_output=True, text=True)
    for line in r.stderr.splitlines():
        if "Maximum resident set size" in line:
            return int(line.split(":")[1])
    return -1


print(f"{'model':26s} {'MB':>6s} {'cp ms':>7s} {'opt ms':>7s} {'ratio':>6s} {'RSS MB':>7s} {'RSS limit':>9s}  slowest pass")
for name in sorted(os.listdir(models_dir)):
    src = os.path.join(models_dir, name, "model.onnx")
    if not os.path.isfile(src):
        continue
    out = os.path.join(tmp, name + ".onnx")
    cp_out = out if same_output else os.path.join(tmp, name + ".cp.onnx")
    report = os.path.join(tmp, name + ".json")
    cp_times, opt_times = [], []
    for _ in range(runs):  # interleaved so both see the same machine state
        if not same_output:
            for path in (cp_out, out):
                if os.path.exists(path):
                    os.unlink(path)
        cp_times.append(timed(["cp", src, cp_out]))
        opt_times.append(timed([tool, "optimize", src, out, "--report", report]))
    cp_ms, opt_ms = statistics.median(cp_times), statistics.median(opt_times)
    rss = peak_rss_kb([tool, "optimize", src, out]) / 1024.0
    size_mb = os.path.getsize(src) / (1024.0 * 1024.0)
    passes = {}
    for p in json.load(open(report))["pipeline"]["passes"]:
        passes[p["name"]] = passes.get(p["name"], 0.0) + p["milliseconds"]
    slowest = max(passes.items(), key=lambda kv: kv[1])
    print(f"{name:26s} {size_mb:6.1f} {cp_ms:7.1f} {opt_ms:7.1f} {opt_ms / cp_ms:6.2f} {rss:7.1f} {size_mb * 1.3 + 16:9.1f}  {slowest[0]} {slowest[1]:.2f} ms")
