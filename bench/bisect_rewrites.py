#!/usr/bin/env python3
"""Bisects a wrong optimize result to the first rewrite that breaks it.

    bench/bisect_rewrites.py [--cli PATH/TO/onnxforge] [--check 'COMMAND'] MODEL

`onnxforge optimize --max-rewrites N` stops after N rewrites (optimize.max_rewrites); this runs it
for the N the binary search picks and runs the check on each result. The check is a shell
command in which {original}, {optimized} and {report} (the optimize --report JSON) are replaced
by paths; exit 0 means good. Default: `CLI verify {original} {optimized}`. The smallest N whose
check fails names the rewrite: entry N of the report's "rewrites" list (pass, rule, node).
Needs: the check passes with 0 rewrites and fails with all of them (exit 2 otherwise).
Exit 0: the culprit was found and printed; 1: the check passes with every rewrite; 2: usage,
or the check already fails with no rewrite.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile


def optimize(cli, model, out, report, budget):
    cmd = [cli, "optimize", model, out, "--threads", "1", "--report", report]
    if budget is not None:
        cmd += ["--max-rewrites", str(budget)]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"bisect_rewrites: optimize failed (exit {r.returncode}): {r.stderr.strip()}")
    with open(report) as f:
        return json.load(f)["pipeline"]


def check_passes(check, model, out, report):
    cmd = check.format(original=shlex.quote(model), optimized=shlex.quote(out), report=shlex.quote(report))
    return subprocess.run(["bash", "-c", cmd], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--cli", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "onnxforge"))
    ap.add_argument("--check", help="shell command with {original} {optimized} {report}; exit 0 = good")
    a = ap.parse_args()
    check = a.check or shlex.quote(a.cli) + " verify {original} {optimized} --threads 1"
    with tempfile.TemporaryDirectory() as tmp:
        out, report = os.path.join(tmp, "optimized.onnx"), os.path.join(tmp, "report.json")
        runs = 0

        def good(budget):
            nonlocal runs
            runs += 1
            rep = optimize(a.cli, a.model, out, report, budget)
            return check_passes(check, a.model, out, report), rep

        ok, full = good(None)
        total = full["rewrites_made"]
        if ok:
            print(f"the check passes with all {total} rewrites: nothing to bisect")
            return 1
        if good(0)[0] is False:
            print("the check fails with no rewrite at all (the save, not a rewrite, breaks it)")
            return 2
        lo, hi = 0, total  # the check passes at lo and fails at hi
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if good(mid)[0]:
                lo = mid
            else:
                hi = mid
        _, rep = good(hi)
        w = rep["rewrites"][hi - 1]
        print(f"first failing budget: {hi} of {total} rewrites ({runs} optimize runs)")
        print(f"rewrite {hi}: pass {w['pass']}, rule {w['rule'] or '(whole-graph pass)'}, "
              f"node {w['node'] or '-'} ({w['op'] or '-'}): {w['what']}")
        return 0


if __name__ == "__main__":
    sys.exit(main())
