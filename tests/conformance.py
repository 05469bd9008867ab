#!/usr/bin/env python3
"""Conformance runner: runs `onnxforge run` over every test of one suite of the ONNX backend
tests (node, pytorch-converted, pytorch-operator, simple, light) or over the real models, and
checks the results against tests/conformance_expected.txt.

Fails when a test expected to pass fails, or when a test listed as an expected failure passes
(so the list is updated deliberately). Writes <outdir>/conformance_<suite>.md with per-suite and
per-op tables.
"""
import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def load_expected(path):
    exp = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split(None, 1)
            exp[parts[0]] = parts[1].strip() if len(parts) > 1 else "unspecified"
    return exp


def ops_of(cli, model):
    try:
        out = subprocess.run([cli, "inspect", model, "--json"], capture_output=True, text=True, timeout=60)
        return sorted(json.loads(out.stdout).get("ops", {}).keys())
    except Exception:
        return []


def run_one(cli, suite, path, rtol, atol, env, timeout):
    if suite == "light":
        cmd = [cli, "run", path, "--light", "--json", "--rtol", str(rtol), "--atol", str(atol)]
        model = path
    else:
        cmd = [cli, "run", path, "--json", "--rtol", str(rtol), "--atol", str(atol)]
        model = os.path.join(path, "model.onnx")
    report = None
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        ok = p.returncode == 0
        try:
            report = json.loads(p.stdout)
        except ValueError:
            pass
        detail = ""
        if not ok:
            bad = [o for o in report["outputs"] if not o["passed"]] if report else []
            if bad:
                o = bad[0]
                detail = o["problem"] or "max_abs %s max_rel %s mismatches %s" % (o["max_abs"], o["max_rel"], o["mismatches"])
            else:
                lines = (p.stderr or p.stdout).strip().splitlines()
                detail = lines[-1] if lines else "exit code %d" % p.returncode
    except subprocess.TimeoutExpired:
        ok, detail = False, "timeout"
    # `run --json` reports the model's ops; a second process (inspect) only when it printed none
    # (one process a test halves the suite's time in the sanitizer build, where each start is slow).
    if report and "ops" in report:
        return ok, detail, sorted(report["ops"].keys())
    return ok, detail, ops_of(cli, model)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--data", required=True, help="the shared data folder (ONNXFORGE_DATA)")
    ap.add_argument("--suite", required=True)
    ap.add_argument("--expected", required=True)
    ap.add_argument("--outdir", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--scalar", action="store_true", help="force the scalar kernels")
    ap.add_argument("--timeout", type=float, default=120, help="seconds one test may take (more under emulation)")
    args = ap.parse_args()

    env = dict(os.environ)
    if args.scalar:
        env["ONNXFORGE_FORCE_SCALAR"] = "1"
    if args.suite == "models":
        root = os.path.join(args.data, "models")
        # The models' MANIFEST comparison: |out-ref| <= 1e-3|ref| + 1e-4 (scales are O(1) here).
        rtol, atol = 1e-3, 1e-4
    else:
        root = os.path.join(args.data, "onnx-backend-tests", args.suite)
        rtol, atol = 1e-3, 1e-5
    if not os.path.isdir(root):
        print("SKIP: %s not found (set ONNXFORGE_DATA)" % root)
        return 77
    if args.suite == "light":
        names = sorted(n for n in os.listdir(root) if n.endswith(".onnx"))
        tests = [(n[:-5], os.path.join(root, n)) for n in names]
        rtol = 2e-3  # upstream uses 2e-3 for light densenet121
    else:
        tests = sorted((n, os.path.join(root, n)) for n in os.listdir(root) if os.path.isdir(os.path.join(root, n)))

    expected = load_expected(args.expected)
    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        results = list(ex.map(lambda t: (t[0],) + run_one(args.cli, args.suite, t[1], rtol, atol, env, args.timeout), tests))

    regressions, unexpected_pass = [], []
    per_op = {}
    passed = 0
    for name, ok, detail, ops in results:
        key = "%s/%s" % (args.suite, name)
        xfail = key in expected
        if ok:
            passed += 1
        if not ok and not xfail:
            regressions.append((key, detail))
        if ok and xfail:
            unexpected_pass.append(key)
        for op in ops:
            s = per_op.setdefault(op, [0, 0])
            s[1] += 1
            s[0] += 1 if ok else 0
    n = len(results)
    n_x = sum(1 for r in results if "%s/%s" % (args.suite, r[0]) in expected)
    isa = "scalar" if args.scalar else "default"
    os.makedirs(args.outdir, exist_ok=True)
    report = os.path.join(args.outdir, "conformance_%s%s.md" % (args.suite, "_scalar" if args.scalar else ""))
    with open(report, "w") as f:
        f.write("# conformance: %s (%s kernels)\n\n" % (args.suite, isa))
        f.write("| suite | tests | passed | expected failures | passed outside expectations |\n|---|---:|---:|---:|---:|\n")
        f.write("| %s | %d | %d | %d | %d/%d |\n\n" % (args.suite, n, passed, n_x, passed - len(unexpected_pass), n - n_x))
        f.write("| op | tests using it | passed |\n|---|---:|---:|\n")
        for op in sorted(per_op):
            f.write("| %s | %d | %d |\n" % (op, per_op[op][1], per_op[op][0]))
        f.write("\n## failures\n\n")
        for name, ok, detail, ops in results:
            if not ok:
                key = "%s/%s" % (args.suite, name)
                f.write("- %s [%s]: %s\n" % (key, expected.get(key, "UNEXPECTED"), detail))
    print("%s: %d tests, %d passed, %d expected failures; outside expectations %d/%d pass; table: %s"
          % (args.suite, n, passed, n_x, passed - len(unexpected_pass), n - n_x, report))
    for k, d in regressions:
        print("REGRESSION %s: %s" % (k, d))
    for k in unexpected_pass:
        print("NOW PASSES (remove from %s): %s" % (os.path.basename(args.expected), k))
    return 1 if regressions or unexpected_pass else 0


if __name__ == "__main__":
    sys.exit(main())
