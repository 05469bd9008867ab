#!/usr/bin/python3
"""Opset conversion of every shared model (DATA/models/*, DATA/realworld/models/*) to opsets 11, 13,
17 and the newest the library knows, and back to the model's own opset. Each step is
`onnxforge convert --target-opset N`, which verifies the converted model against its source by
execution; the result is then run by `onnxforge run` against the reference outputs beside the
model (PyTorch's for DATA/models, ONNX Runtime's for the real-world set), checked with onnx.checker
when /usr/bin/python3 has onnx (opsets it knows only), and run in ONNX Runtime (onnxruntime-node
through DATA/realworld/ort_run.js) when ORT_NODE or BUILD/ort-node provides it.
A model with no adapter to a target is reported as "not convertible" (exit 4), never as a pass.

    opset_models.py ONNXFORGE_CLI DATA_DIR [--targets 11,13,17,newest] [--models a,b] [--no-ort]
Prints one row per (model, target): nodes, convert ms, run result, max abs error, checker, ORT.
Exit 0 when every step passed, 1 otherwise, 77 when there is no data.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from tensor_files import ORT_DTYPES, input_files, read_tensor  # noqa: E402

ORT_TOL = (1e-4, 1e-3)  # atol, rtol (float32 models)


def model_dirs(data, only):
    out = []
    for root in (os.path.join(data, "models"), os.path.join(data, "realworld", "models")):
        if not os.path.isdir(root):
            continue
        for name in sorted(os.listdir(root)):
            d = os.path.join(root, name)
            if os.path.isfile(os.path.join(d, "model.onnx")) and (not only or name in only):
                out.append(d)
    return out


def newest(cli, model):
    p = subprocess.run([cli, "convert", model, os.devnull + ".x.onnx", "--target-opset", "999999"], capture_output=True, text=True)
    m = re.search(r"outside 7\.\.(\d+)", p.stderr)
    return int(m.group(1)) if m else 21


def own_opset(cli, model):
    p = subprocess.run([cli, "inspect", model, "--json"], capture_output=True, text=True)
    try:
        j = json.loads(p.stdout)
    except ValueError:
        return 0
    return int(j.get("opsets", {}).get("ai.onnx", 0))


def run_dir(cli, model_path, src_dir, work, tag):
    """`onnxforge run` of model_path on the test data of src_dir: (ok, max abs error, text)."""
    d = os.path.join(work, tag)
    os.makedirs(d, exist_ok=True)
    shutil.copy(model_path, os.path.join(d, "model.onnx"))
    sets = [s for s in os.listdir(src_dir) if s.startswith("test_data_set_")]
    for s in sets:
        os.symlink(os.path.abspath(os.path.join(src_dir, s)), os.path.join(d, s))
    if not sets:
        return True, None, "no test data"
    tol = ["--rtol", "1e-2", "--atol", "1e-3"] if "half" in src_dir else ["--rtol", "1e-3", "--atol", "1e-4"]
    p = subprocess.run([cli, "run", d] + tol, capture_output=True, text=True)
    errs = [float(x) for x in re.findall(r"max_abs (\S+)", p.stdout) if x not in ("nan", "inf")]
    return p.returncode == 0, max(errs) if errs else None, (p.stdout + p.stderr).strip().splitlines()[-1:]


def checker(path, target):
    if target > 17:
        return "-"
    try:
        import onnx
    except ImportError:
        return "-"
    try:
        onnx.checker.check_model(onnx.load(path))
        return "ok"
    except Exception as e:  # noqa: BLE001 - any checker complaint is a failure to report
        return "FAIL " + str(e).splitlines()[0][:80]


def ort_module(cli):
    env = os.environ.get("ORT_NODE")
    if env and os.path.isdir(env):
        return env
    build = os.path.dirname(os.path.abspath(cli))
    for b in (build, os.path.dirname(build)):
        m = os.path.join(b, "ort-node", "node_modules", "onnxruntime-node")
        if os.path.isdir(m):
            return m
    return None


def ort_check(module, ort_run, path, src_dir, work, test_set="test_data_set_0"):
    """ONNX Runtime's outputs of the converted model against the reference outputs of `test_set`: max abs error or FAIL."""
    try:
        import numpy as np
        import onnx
    except ImportError:
        return "-"
    ts = os.path.join(src_dir, test_set)
    if not os.path.isdir(ts) or not shutil.which("node"):
        return "-"
    m = onnx.load(path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    names = [i.name for i in m.graph.input if i.name not in inits]
    inputs = []
    for k, pb in enumerate(input_files(ts)):
        t, a = read_tensor(pb)
        raw = os.path.join(work, "ort_in_%d.bin" % k)
        a.tofile(raw)
        inputs.append({"name": names[k] if k < len(names) else t.name, "dtype": ORT_DTYPES.get(t.data_type, "float32"),
                       "dims": list(a.shape), "file": raw})
    job = {"model": path, "threads": 1, "level": "disabled", "inputs": inputs, "outdir": os.path.join(work, "ort_out")}
    jp = os.path.join(work, "ort_job.json")
    with open(jp, "w") as f:
        json.dump(job, f)
    p = subprocess.run(["node", ort_run, jp], capture_output=True, text=True, env=dict(os.environ, ORT_NODE=module))
    if p.returncode:
        if "official released onnx opset" in p.stderr:
            return "n/a (opset unknown to this ORT)"
        return "FAIL " + (p.stderr.strip().splitlines() or ["?"])[-1][:100]
    with open(os.path.join(work, "ort_out", "outputs.json")) as f:
        outs = json.load(f)["outputs"]
    worst = 0.0
    for i, o in enumerate(outs):
        ref = os.path.join(ts, "output_%d.pb" % i)
        if not os.path.exists(ref):
            continue
        _, e = read_tensor(ref)
        a = np.fromfile(o["file"], dtype=o["dtype"] if o["dtype"] != "bool" else np.uint8).reshape(o["dims"])
        if a.dtype.kind == "f":
            atol, rtol = (1e-3, 1e-2) if e.dtype == np.float16 or "half" in src_dir else ORT_TOL
            a64, e64 = a.astype(np.float64), e.astype(np.float64)
            if a64.shape != e64.shape:
                return "FAIL shape"
            if not np.allclose(a64, e64, atol=atol, rtol=rtol, equal_nan=True):
                return "FAIL max %.3g" % np.nanmax(np.abs(a64 - e64))
            if a64.size:
                worst = max(worst, float(np.nanmax(np.abs(a64 - e64))))
        elif not np.array_equal(a.astype(np.int64), e.astype(np.int64)):
            return "FAIL ints"
    return "%.2g" % worst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("data")
    ap.add_argument("--targets", default="11,13,17,newest")
    ap.add_argument("--models", default="")
    ap.add_argument("--no-ort", action="store_true")
    a = ap.parse_args()
    dirs = model_dirs(a.data, set(filter(None, a.models.split(","))))
    if not dirs:
        print("SKIP: no shared models under", a.data)
        return 77
    ort = None if a.no_ort else ort_module(a.cli)
    ort_run = os.path.join(a.data, "realworld", "ort_run.js")
    if ort and not os.path.exists(ort_run):
        ort = None
    if not ort:
        print("note: ONNX Runtime not available (set ORT_NODE or install onnxruntime-node into BUILD/ort-node): ORT column '-'")
    top = newest(a.cli, os.path.join(dirs[0], "model.onnx"))
    targets = [top if t == "newest" else int(t) for t in a.targets.split(",")]
    work = tempfile.mkdtemp(prefix="opset_models.")
    failed = 0
    print("%-24s %4s %7s %6s %8s %-6s %9s %-8s %s" % ("model", "from", "target", "nodes", "conv_ms", "run", "max_err",
                                                     "checker", "ort / back"))
    try:
        for d in dirs:
            name = os.path.basename(d)
            src = os.path.join(d, "model.onnx")
            mine = own_opset(a.cli, src)
            for t in targets:
                tag = "%s_%d" % (name, t)
                out = os.path.join(work, tag + ".onnx")
                t0 = time.time()
                p = subprocess.run([a.cli, "convert", src, out, "--target-opset", str(t)], capture_output=True, text=True)
                ms = (time.time() - t0) * 1000
                if p.returncode == 4:
                    first = p.stderr.strip().splitlines()[1:2]
                    print("%-24s %4d %7d %6s %8.0f not convertible: %s" % (name, mine, t, "-", ms, first[0].strip() if first else ""))
                    continue
                if p.returncode != 0:
                    failed += 1
                    print("%-24s %4d %7d %6s %8.0f FAIL convert: %s" % (name, mine, t, "-", ms, p.stderr.strip()[-200:]))
                    continue
                ok, err, text = run_dir(a.cli, out, d, work, tag)
                chk = checker(out, t)
                o = ort_check(ort, ort_run, out, d, work) if ort else "-"
                # and back to the model's own opset
                back = os.path.join(work, tag + "_back.onnx")
                pb = subprocess.run([a.cli, "convert", out, back, "--target-opset", str(mine)], capture_output=True, text=True)
                bok = pb.returncode == 0 and run_dir(a.cli, back, d, work, tag + "_back")[0]
                nodes = subprocess.run([a.cli, "inspect", out, "--json"], capture_output=True, text=True)
                try:
                    n = json.loads(nodes.stdout).get("nodes", "-")
                except ValueError:
                    n = "-"
                bad = not ok or chk.startswith("FAIL") or o.startswith("FAIL") or not bok
                failed += bad
                print("%-24s %4d %7d %6s %8.0f %-6s %9s %-8s %s / %s" % (
                    name, mine, t, n, ms, "ok" if ok else "FAIL", "-" if err is None else "%.2g" % err, chk, o,
                    "back ok" if bok else "back FAIL " + (pb.stderr.strip()[-160:])))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
