#!/usr/bin/python3
"""Op-level speed of onnxforge against ONNX Runtime: every compute-heavy op in isolation, on a grid of
shapes taken from real models (bench/op_cases.py builds one small ONNX model per grid point).

Measured as bench/ort_bench.py measures whole models (and with its functions): onnxforge through
bench/bench_run over the C ABI, ONNX Runtime (onnxruntime-node 1.30, CPU provider, graph
optimizations "all"), each on 1 thread and on the machine's cores, in R rounds; a ratio is
onnxforge / ORT (lower is better), the median of the rounds' ratios. ORT's time is the "model_run"
event of its own profiler (bench/ort_op_run.js), not the wall time of the node call that
DATA/realworld/ort_run.js reports: for one op, the binding's copies of outputs into JavaScript
(milliseconds per MB) would dwarf the op itself. ort_run.js still records the reference outputs.
Outputs are checked too: ORT's outputs are recorded as output_K.pb and `onnxforge run DIR` compares
(column "match": largest absolute difference, or FAIL). An op that one engine refuses is listed with
the engine's message, never left out.

Prints per op the median and the worst ratio over its grid on 1 thread and on N threads, and flags
what misses the targets of issue 25: a grid point above 2x ("!>2x"), an op median above 1.2x
("!>1.2x"). --verbose adds one row per grid point.
    /usr/bin/python3 bench/op_bench.py BUILD_DIR [DATA_DIR] [--ops Conv,MatMul,...] [--runs N] [--rounds R]
                                       [--verbose] [--json]
The models are written to BUILD/op-bench/OP/LABEL/ (model.onnx, test_data_set_0), so a single grid
point can be profiled with `perf record bench/bench_run model.onnx test_data_set_0/input_*.pb`.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import op_cases  # noqa: E402
import ort_bench  # noqa: E402
from onnx import numpy_helper  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(usage=__doc__)
    p.add_argument("pos", nargs="+")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--ops", type=lambda v: set(v.split(",")))
    p.add_argument("--json", action="store_true")
    p.add_argument("--verbose", action="store_true")
    a = p.parse_args(argv)
    opts = {"runs": max(1, a.runs), "rounds": max(1, a.rounds), "ops": a.ops, "json": a.json, "verbose": a.verbose}
    return os.path.abspath(a.pos[0]), ort_bench.data_dir(a.pos), opts


def write_case(folder, build):
    """model.onnx and test_data_set_0/input_K.pb of one grid point (rewritten every time: cheap)."""
    m, inputs = build()
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(os.path.join(folder, "test_data_set_0"))
    with open(os.path.join(folder, "model.onnx"), "wb") as f:
        f.write(m.SerializeToString())
    for k, (name, a) in enumerate(inputs):
        with open(os.path.join(folder, "test_data_set_0", "input_%d.pb" % k), "wb") as f:
            f.write(numpy_helper.from_array(a, name).SerializeToString())


def first_line(text):
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:160] if lines else "failed"


def measure(build, module, ort_run, folder, runs, rounds, cores):
    """One grid point: refusals, output check and the rounds of timings."""
    work = tempfile.mkdtemp(prefix="ofg_op_")
    try:
        inputs, pbs = ort_bench.ort_inputs(folder, work)
        model = os.path.join(folder, "model.onnx")
        row = {"rounds": []}
        ort_bench.record_ort_outputs(module, ort_run, folder, inputs, work)
        if not os.path.exists(os.path.join(folder, "test_data_set_0", "output_0.pb")):
            job = os.path.join(work, "ref_job.json")
            p = subprocess.run(["node", ort_run, job], capture_output=True, text=True,
                               env=dict(os.environ, ORT_NODE=module))
            row["ort_error"] = first_line(p.stderr)
        p = subprocess.run([os.path.join(build, "bench", "bench_run"), model, *pbs, "--runs", "1", "--warmup", "0"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            row["onnxforge_error"] = first_line(p.stderr + p.stdout)
        if "ort_error" in row or "onnxforge_error" in row:
            return row
        row["match"] = ort_bench.check_onnxforge(build, folder)
        for _ in range(rounds):
            r = {}
            for t in (1, cores):
                r["ofg_t%d" % t] = ort_bench.time_onnxforge(build, model, pbs, runs, t)
                r["ort_t%d" % t] = time_ort(module, model, inputs, t, runs, work)
            row["rounds"].append(r)
        for key in row["rounds"][0]:
            vals = [r[key] for r in row["rounds"] if r[key]]
            row[key + "_ms"] = statistics.median(vals) if vals else None
        for t in (1, cores):
            vals = [r["ofg_t%d" % t] / r["ort_t%d" % t] for r in row["rounds"] if r["ofg_t%d" % t] and r["ort_t%d" % t]]
            row["ratio_t%d" % t] = statistics.median(vals) if vals else None
        return row
    finally:
        shutil.rmtree(work, ignore_errors=True)


def time_ort(module, model, inputs, threads, runs, work):
    """ORT's median "model_run" time (its profiler) after one warm-up run; see ort_op_run.js for why."""
    job = {"model": model, "threads": threads, "level": "all", "inputs": inputs, "repeat": runs + 1,
           "profile": os.path.join(work, "prof", "p")}
    os.makedirs(os.path.join(work, "prof"), exist_ok=True)
    path = os.path.join(work, "op_job.json")
    with open(path, "w") as f:
        json.dump(job, f)
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ort_op_run.js")
    p = subprocess.run(["node", script, path], capture_output=True, text=True, env=dict(os.environ, ORT_NODE=module),
                       **ort_bench.pin_for(threads))
    if p.returncode != 0:
        return None
    times = json.loads(p.stdout.strip().splitlines()[-1])["model_run_ms"][1:]
    return statistics.median(times) if times else None


def match_text(m):
    if m is None:
        return "no report"
    return ("%.2g" % m[0]) + ("" if m[1] else " FAIL")


def summarize(rows, cores):
    """Per op: points, and for 1 and N threads the median and worst ratio (with the worst's label)."""
    ops = []
    for op in dict.fromkeys(r["op"] for r in rows):
        mine = [r for r in rows if r["op"] == op]
        s = {"op": op, "points": len(mine), "refused": [r for r in mine if "ratio_t1" not in r],
             "mismatch": [r["label"] for r in mine if r.get("match") is None or not r["match"][1]
                          if "ratio_t1" in r]}
        for t in (1, cores):
            timed = [r for r in mine if r.get("ratio_t%d" % t)]
            if timed:
                worst = max(timed, key=lambda r: r["ratio_t%d" % t])
                s["median_t%d" % t] = statistics.median(r["ratio_t%d" % t] for r in timed)
                s["worst_t%d" % t] = (worst["ratio_t%d" % t], worst["label"])
        ops.append(s)
    return ops


def print_report(rows, ops, cores, opts):
    print("CPU: %s, %d cores; ORT %s (graph optimizations all); medians of %d runs, ratio = median over %d rounds"
          % (ort_bench.cpu_name(), cores, ort_bench.ORT_VERSION, opts["runs"], opts["rounds"]))
    if opts["verbose"]:
        print("%-34s %-40s %9s %9s %7s | %9s %9s %7s | %s" % ("op", "shape (from)", "ofg ms", "ORT ms", "ratio",
                                                             "ofg* ms", "ORT* ms", "ratio*", "match"))
        for r in rows:
            if "ratio_t1" not in r:
                print("%-34s %-40s %s" % (r["op"], r["label"], refusal(r)))
                continue
            cells = []
            for t in (1, cores):
                ratio = r.get("ratio_t%d" % t)
                flag = " !>2x" if ratio and ratio > 2 else ""
                cells.append("%9.3f %9.3f %7s" % (r["ofg_t%d_ms" % t] or 0, r["ort_t%d_ms" % t] or 0,
                                                  ("%.2f" % ratio if ratio else "-") + flag))
            print("%-34s %-40s %s | %s | %s" % (r["op"], r["label"], cells[0], cells[1], match_text(r.get("match"))))
        print()
    print("%-34s %6s | %7s %7s %-36s | %7s %7s %-36s | %s" % (
        "op", "points", "median", "worst", "worst shape (1 thread)", "median*", "worst*",
        "worst shape (%d threads)" % cores, "notes"))
    for s in ops:
        cells, flags = [], []
        for t in (1, cores):
            if "median_t%d" % t not in s:
                cells.append("%7s %7s %-36s" % ("-", "-", ""))
                continue
            w, label = s["worst_t%d" % t]
            cells.append("%7.2f %7.2f %-36s" % (s["median_t%d" % t], w, label[:36]))
            if w > 2:
                flags.append("!>2x(%s)" % ("1t" if t == 1 else "%dt" % t))
            if s["median_t%d" % t] > 1.2:
                flags.append("!>1.2x(%s)" % ("1t" if t == 1 else "%dt" % t))
        for r in s["refused"]:
            flags.append("%s: %s" % (r["label"], refusal(r)))
        if s["mismatch"]:
            flags.append("MISMATCH: " + ",".join(s["mismatch"]))
        print("%-34s %6d | %s | %s | %s" % (s["op"], s["points"], cells[0], cells[1], "; ".join(flags)))
    for t, label in ((1, "1 thread"), (cores, "%d threads" % cores)):
        vals = [s["median_t%d" % t] for s in ops if "median_t%d" % t in s]
        bad = sum(1 for r in rows if (r.get("ratio_t%d" % t) or 0) > 2)
        if vals:
            print("%s: median of op medians %.2f; %d of %d ops above 1.2x; %d grid points above 2x" % (
                label, statistics.median(vals), sum(1 for v in vals if v > 1.2), len(vals), bad))


def refusal(r):
    out = []
    if "onnxforge_error" in r:
        out.append("onnxforge refuses (%s)" % r["onnxforge_error"])
    if "ort_error" in r:
        out.append("ORT refuses (%s)" % r["ort_error"])
    return "; ".join(out)


def main():
    build, data, opts = parse_args(sys.argv[1:])
    module = ort_bench.ensure_ort(build)
    ort_run = os.path.join(data, "realworld", "ort_run.js")
    cores = os.cpu_count() or 1
    rows = []
    for op, label, make in op_cases.cases():
        if opts["ops"] and op not in opts["ops"] and op.split("(")[0] not in opts["ops"]:
            continue
        folder = os.path.join(build, "op-bench", op.split("(")[0], label)
        write_case(folder, make)
        row = measure(build, module, ort_run, folder, opts["runs"], opts["rounds"], cores)
        row.update(op=op, label=label)
        rows.append(row)
        if not opts["json"]:
            print("  %s %s: %s" % (op, label, ("%.2f / %.2f" % (row["ratio_t1"] or 0, row["ratio_t%d" % cores] or 0))
                                   if "ratio_t1" in row else refusal(row)), file=sys.stderr, flush=True)
    ops = summarize(rows, cores)
    if opts["json"]:
        print(json.dumps({"cores": cores, "rows": rows, "ops": ops}, indent=1, default=str))
        return
    print_report(rows, ops, cores, opts)


if __name__ == "__main__":
    main()
