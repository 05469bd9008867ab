#!/usr/bin/python3
"""Two builds of onnxforge against ONNX Runtime on grid points of bench/op_cases.py, interleaved: each
round times the old build, the new build and ORT on 1 thread and on N threads, one after the other,
so a busy machine slows all three alike. Prints per grid point the medians over the rounds of the
old/ORT, new/ORT and new/old ratios (lower is better).

    /usr/bin/python3 bench/op_compare_builds.py OLD_DIR NEW_DIR --ops Attention,... [--labels SUB] [--rounds R]
                                                [--runs N] [--threads 1,2]
OLD_DIR and NEW_DIR each hold bench/bench_run and libonnxforge.so.0 (the old bench_run is run with
LD_LIBRARY_PATH at its own directory's parent, so a copy of a build works); ORT's node module is
NEW_DIR/ort-node as in bench/op_bench.py.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import op_bench  # noqa: E402
import op_cases  # noqa: E402
import ort_bench  # noqa: E402


def time_build(build, model, pbs, runs, threads):
    env = dict(os.environ, LD_LIBRARY_PATH=build)
    p = subprocess.run([os.path.join(build, "bench", "bench_run"), model, *pbs, "--runs", str(runs), "--threads",
                        str(threads), "--json"], capture_output=True, text=True, env=env)
    return json.loads(p.stdout)["median_ms"] if p.returncode == 0 else None


def main():
    p = argparse.ArgumentParser(usage=__doc__)
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--ops", type=lambda v: set(v.split(",")), required=True)
    p.add_argument("--labels", default="")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--threads", default="1,2")
    a = p.parse_args()
    old, new = os.path.abspath(a.old), os.path.abspath(a.new)
    module = ort_bench.ensure_ort(new)
    for op, label, build in op_cases.cases():
        if op not in a.ops or a.labels not in label:
            continue
        folder = os.path.join(new, "op-bench", op.split("(")[0], label)
        op_bench.write_case(folder, build)
        work = tempfile.mkdtemp(prefix="ofg_opcmp_")
        inputs, pbs = ort_bench.ort_inputs(folder, work)
        model = os.path.join(folder, "model.onnx")
        for t in (int(x) for x in a.threads.split(",")):
            ratios = {"old/ort": [], "new/ort": [], "new/old": []}
            ms = {"old": [], "new": [], "ort": []}
            for _ in range(a.rounds):
                o = time_build(old, model, pbs, a.runs, t)
                n = time_build(new, model, pbs, a.runs, t)
                r = op_bench.time_ort(module, model, inputs, t, a.runs, work)
                if not (o and n and r):
                    continue
                ms["old"].append(o), ms["new"].append(n), ms["ort"].append(r)
                ratios["old/ort"].append(o / r), ratios["new/ort"].append(n / r), ratios["new/old"].append(n / o)
            med = {k: statistics.median(v) if v else float("nan") for k, v in ratios.items()}
            mm = {k: statistics.median(v) if v else float("nan") for k, v in ms.items()}
            print("%-16s %-40s t%d  old %.4f  new %.4f  ort %.4f ms   old/ort %.2f  new/ort %.2f  new/old %.2f" %
                  (op, label, t, mm["old"], mm["new"], mm["ort"], med["old/ort"], med["new/ort"], med["new/old"]),
                  flush=True)


if __name__ == "__main__":
    main()
