#!/usr/bin/env python3
"""Two builds of onnxforge side by side on every shared model: whole-process `onnxforge optimize`
time and `bench_run` inference time (median of one-thread runs) of each, interleaved in rounds so a
machine that slows down for a while slows both; prints the medians and new/old ratios, and
whether the two builds' outputs agree (bench_run's hash of the output bytes).

A refactor that must not cost time is checked with it: the old build is a checkout of main before
the change, built the same way.

usage: bench/compare_builds.py OLD_DIR NEW_DIR [DATA_DIR] [--rounds R] [--runs N]
OLD_DIR and NEW_DIR each hold an `onnxforge` CLI, `bench_run` (or bench/bench_run) and
libonnxforge.so.0 (bench_run loads the library of its own directory first).
"""
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def option(name, default):
    if name in sys.argv:
        i = sys.argv.index(name)
        value = int(sys.argv[i + 1])
        del sys.argv[i:i + 2]
        return value
    return default


rounds = option("--rounds", 3)
runs = option("--runs", 5)
args = sys.argv[1:]
if len(args) < 2:
    sys.exit(__doc__)
old_dir, new_dir = args[0], args[1]
here = os.path.dirname(os.path.abspath(__file__))
data = args[2] if len(args) > 2 else os.environ.get("ONNXFORGE_DATA", os.path.join(here, "..", "..", "shared"))
tmp = tempfile.mkdtemp()


def tool(build, name):
    for p in (os.path.join(build, name), os.path.join(build, "bench", name)):
        if os.path.exists(p):
            return p
    sys.exit(f"compare_builds: no {name} in {build}")


def optimize_ms(build, model):
    out = os.path.join(tmp, "out.onnx")
    if os.path.exists(out):
        os.remove(out)
    t0 = time.perf_counter()
    subprocess.run([tool(build, "onnxforge"), "optimize", model, out, "--threads", "1"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t0) * 1000.0


def inference(build, model, inputs):
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.abspath(build))
    r = subprocess.run([tool(build, "bench_run"), model, *inputs, "--runs", str(runs), "--json"], check=True,
                       capture_output=True, text=True, env=env)
    j = json.loads(r.stdout)
    return j["median_ms"], j["outputs_fnv"]


models = sorted(glob.glob(os.path.join(data, "models", "*", "model.onnx")) +
                glob.glob(os.path.join(data, "realworld", "models", "*", "model.onnx")))
print(f"{'model':32} {'opt old':>8} {'opt new':>8} {'ratio':>6} {'run old':>8} {'run new':>8} {'ratio':>6} same")
opt_ratios, run_ratios = [], []
for model in models:
    name = os.path.basename(os.path.dirname(model))
    inputs = sorted(glob.glob(os.path.join(os.path.dirname(model), "test_data_set_0", "input_*.pb")))
    t = {"oo": [], "on": [], "ro": [], "rn": []}
    same = True
    for r in range(rounds):
        # Which build goes first alternates: the second of two runs in a row measured faster.
        order = [("o", old_dir), ("n", new_dir)][::1 if r % 2 == 0 else -1]
        hashes = {}
        for key, build in order:
            t["o" + key].append(optimize_ms(build, model))
            if inputs:
                ms, hashes[key] = inference(build, model, inputs)
                t["r" + key].append(ms)
        same = same and hashes.get("o") == hashes.get("n")
    med = {k: statistics.median(v) if v else float("nan") for k, v in t.items()}
    opt_ratios.append(med["on"] / med["oo"])
    line = f"{name:32} {med['oo']:8.1f} {med['on']:8.1f} {med['on'] / med['oo']:6.2f}"
    if inputs:
        run_ratios.append(med["rn"] / med["ro"])
        line += f" {med['ro']:8.2f} {med['rn']:8.2f} {med['rn'] / med['ro']:6.2f} {'yes' if same else 'NO'}"
    print(line, flush=True)
print(f"median new/old: optimize {statistics.median(opt_ratios):.3f}, inference {statistics.median(run_ratios):.3f}")
