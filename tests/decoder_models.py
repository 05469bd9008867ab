#!/usr/bin/python3
"""Issue 23: decoders of our own in other exporter styles than llama_tiny_dirty, end to end.

Generates qwen2_style and mha_interleaved (bench/models/decoders.py: PyTorch-exporter-style opset-17
graphs with a KV cache, a prefill and a decode test set, expected outputs from an independent numpy
forward) into a temporary folder, then for each model:
  - `onnxforge run` of the original matches the numpy references;
  - ONNX Runtime (onnxruntime-node through DATA/realworld/ort_run.js) on the original agrees with the
    numpy references within 1e-4 (absolute), on every test set;
  - `optimize --verify` at the model's own opset and with `--target-opset 23` both verify (against the
    test sets beside the model), and each result matches the references under `onnxforge run` and in
    ONNX Runtime;
  - every RMSNorm (2 per layer and the final one) is RMSNormalization with --target-opset 23, none at 17;
    likewise 2 RotaryEmbedding (q and k) and 1 Attention per layer;
  - prints the node counts (and the counts of the ops the fusions aim at) per opset, beside ONNX
    Runtime's own offline optimizers (levels basic and extended) on the original.
ONNX Runtime is found as tests/opset_models.py finds it (ORT_NODE, else BUILD/ort-node); without it,
or without node, those checks are skipped with a message and the rest still runs.

    decoder_models.py ONNXFORGE_CLI [DATA_DIR] [--models a,b] [--no-ort] [--keep DIR]
(--models llama_1024 runs the same checks on the benchmark decoder: a few minutes, not in ctest.)
Exit 0 when every check passed, 1 otherwise, 77 (skip) when numpy or onnx is missing.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
sys.path.insert(0, os.path.join(HERE, "..", "bench", "models"))

MODELS = ["qwen2_style", "mha_interleaved"]
ORT_VS_NUMPY = 1e-4  # the largest absolute difference accepted between ONNX Runtime and numpy
# Ops the issue-23 fusions produce or remove; printed per opset so a change in them shows.
WATCH = ["If", "Cast", "Shape", "RMSNormalization", "RotaryEmbedding", "Attention", "Swish", "Gelu", "Softmax",
         "SimplifiedLayerNormalization", "SkipSimplifiedLayerNormalization"]


def inspect(cli, path):
    p = subprocess.run([cli, "inspect", path, "--json"], capture_output=True, text=True)
    try:
        return json.loads(p.stdout)
    except ValueError:
        return {}


def ort_levels(module, ort_run, path, work):
    """Node counts of ONNX Runtime's own offline optimizers (levels basic and extended) on path, for
    comparison: {level: {"nodes": N, "ops": {op: count}}}; a level that fails is left out."""
    import onnx
    found = {}
    for level in ("basic", "extended"):
        out, job = os.path.join(work, "ort_%s.onnx" % level), os.path.join(work, "ort_%s.json" % level)
        with open(job, "w") as f:
            json.dump({"model": path, "threads": 1, "level": level, "optimized": out}, f)
        p = subprocess.run(["node", ort_run, job], capture_output=True, text=True,
                           env=dict(os.environ, ORT_NODE=module))
        if p.returncode == 0 and os.path.exists(out):
            nodes = onnx.load(out, load_external_data=False).graph.node
            ops = {}
            for n in nodes:
                ops[n.op_type] = ops.get(n.op_type, 0) + 1
            found[level] = {"nodes": len(nodes), "ops": ops}
    return found


def test_sets(model_dir):
    return sorted(s for s in os.listdir(model_dir) if s.startswith("test_data_set_"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("data", nargs="?", default=os.environ.get("ONNXFORGE_DATA", os.path.join(HERE, "..", "..",
                                                                                          "shared")))
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--no-ort", action="store_true")
    ap.add_argument("--keep", help="write the generated and optimized models here (kept)")
    a = ap.parse_args()
    try:
        import numpy  # noqa: F401
        import onnx  # noqa: F401
    except ImportError as e:
        print("SKIP: the generator needs numpy and onnx in /usr/bin/python3 (%s)" % e)
        return 77
    import decoders
    import make_models
    from opset_models import ort_check, ort_module, run_dir

    ort, ort_run = None, os.path.join(a.data, "realworld", "ort_run.js")
    if a.no_ort:
        print("note: --no-ort: ONNX Runtime checks skipped")
    elif not shutil.which("node"):
        print("note: node is not installed: ONNX Runtime checks skipped")
    elif not os.path.exists(ort_run):
        print("note: %s is missing: ONNX Runtime checks skipped" % ort_run)
    else:
        ort = ort_module(a.cli)
        if not ort:
            print("note: onnxruntime-node not found (set ORT_NODE or run bench/ort_bench.py once, which installs it "
                  "into BUILD/ort-node): ONNX Runtime checks skipped")

    work = a.keep or tempfile.mkdtemp(prefix="decoder_models.")
    os.makedirs(work, exist_ok=True)
    failures = []
    rows = []

    def check(ok, what):
        print("  %-4s %s" % ("ok" if ok else "FAIL", what))
        if not ok:
            failures.append(what)

    def ort_all(model_path, src, tag, exact):
        """ORT on every test set: exact = require ORT_VS_NUMPY; else ort_check's float tolerance."""
        if not ort:
            return "-"
        worst = []
        for ts in test_sets(src):
            d = os.path.join(work, "ort_" + tag.replace(" ", "_"))
            os.makedirs(d, exist_ok=True)
            r = ort_check(ort, ort_run, model_path, src, d, ts)
            if r.startswith("n/a"):
                print("  note: %s %s: %s" % (tag, ts, r))
                return r
            ok = not r.startswith("FAIL") and r != "-" and (not exact or float(r) <= ORT_VS_NUMPY)
            check(ok, "%s: ONNX Runtime vs numpy on %s: %s" % (tag, ts, r))
            worst.append(r)
        return ",".join(worst)

    try:
        for name in filter(None, a.models.split(",")):
            model, sets = decoders.decoder(name, make_models.Graph)
            make_models.write(work, name, model, sets)
            src = os.path.join(work, name)
            path = os.path.join(src, "model.onnx")
            print("%s (%d test sets)" % (name, len(test_sets(src))))
            p = subprocess.run([a.cli, "run", src, "--rtol", "1e-3", "--atol", "1e-4"], capture_output=True, text=True)
            check(p.returncode == 0, "%s: onnxforge run matches numpy (%s)" % (name, (p.stdout + p.stderr).strip()
                                                                            .splitlines()[-1:]))
            ort_orig = ort_all(path, src, name, True)
            info = inspect(a.cli, path)
            rows.append((name, "original", info, ort_orig))
            if ort:
                for level, counts in ort_levels(ort, ort_run, path, work).items():
                    rows.append((name, "ORT " + level, counts, "-"))
            opset = info.get("opsets", {}).get("ai.onnx", 17)
            for label, extra in (("opt %d" % opset, []), ("opt 23", ["--target-opset", "23"])):
                out = os.path.join(work, "%s_%s.onnx" % (name, label.replace(" ", "")))
                p = subprocess.run([a.cli, "optimize", path, out, "--verify"] + extra, capture_output=True, text=True)
                tail = [ln.strip() for ln in (p.stdout + p.stderr).splitlines() if "verify:" in ln or "error" in ln]
                check(p.returncode == 0 and os.path.exists(out), "%s: optimize --verify %s (exit %d, %s)" % (
                    name, " ".join(extra) or "at its opset", p.returncode, tail[-1:] or (p.stderr.strip()[-200:],)))
                if p.returncode != 0:
                    continue
                ok, err, text = run_dir(a.cli, out, src, work, "%s_%s_run" % (name, label.replace(" ", "")))
                check(ok, "%s %s: onnxforge run of the optimized model matches numpy (max abs %s)" % (name, label, err))
                info = inspect(a.cli, out)
                # Every RMSNorm of these styles becomes RMSNormalization once the opset allows it
                # (23), and none below: a guard for the fusion on exporter styles other than llama's.
                want = 2 * decoders.CONFIGS[name]["layers"] + 1 if extra else 0
                got = info.get("ops", {}).get("RMSNormalization", 0)
                check(got == want, "%s %s: %d RMSNormalization (expected %d)" % (name, label, got, want))
                # Likewise the rotary (q and k) and the attention of every layer.
                layers = decoders.CONFIGS[name]["layers"]
                for op, per_layer in (("RotaryEmbedding", 2), ("Attention", 1)):
                    want = per_layer * layers if extra else 0
                    got = info.get("ops", {}).get(op, 0)
                    check(got == want, "%s %s: %d %s (expected %d)" % (name, label, got, op, want))
                rows.append((name, label, info, ort_all(out, src, "%s %s" % (name, label), False)))
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)

    print("\n%-16s %-12s %6s  %-64s %s" % ("model", "graph", "nodes", "watched ops", "ORT max abs vs numpy per set"))
    for name, label, info, o in rows:
        ops = info.get("ops", {})
        watched = " ".join("%s %d" % (k, ops[k]) for k in WATCH if ops.get(k))
        print("%-16s %-12s %6s  %-64s %s" % (name, label, info.get("nodes", "-"), watched, o))
    if failures:
        print("FAILED: %d check(s):\n  %s" % (len(failures), "\n  ".join(failures)))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
