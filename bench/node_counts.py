#!/usr/bin/python3
"""Node counts per model: the original, onnxforge's optimize at the model's own opset and at each
--target-opset given, and ONNX Runtime's offline optimizer at its basic and extended levels (the
model ORT saves with optimizedModelFilePath; extended emits com.microsoft ops only ORT runs).

    /usr/bin/python3 bench/node_counts.py build/onnxforge MODEL_DIR_OR_ONNX... [--opsets 23,24]
        [--input-shape NAME=D,D ...] [--markdown]

ONNX Runtime is found as the tests find it (ORT_NODE or build/ort-node); without it, or without
the shared realworld/ort_run.js, its columns read "-". Prints one row per model; with
--input-shape the fixed shapes are passed to optimize (all models get the same list, so use one
model per call for that).
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from opset_models import ort_module  # noqa: E402

COUNTED_OPS = ("Attention", "RotaryEmbedding", "RMSNormalization", "LayerNormalization", "Gelu", "Swish",
               "If", "Shape", "Cast")


def model_path(arg):
    return os.path.join(arg, "model.onnx") if os.path.isdir(arg) else arg


def counts(path):
    m = onnx.load(path, load_external_data=False)
    ops = collections.Counter(n.op_type for n in m.graph.node)
    return len(m.graph.node), ops


def optimize(cli, src, out, opset, shapes):
    cmd = [cli, "optimize", src, out, "--verify"]
    if opset:
        cmd += ["--target-opset", str(opset)]
    for s in shapes:
        cmd += ["--input-shape", s]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return r.returncode == 0, r.stdout


def ort_optimize(module, ort_run, src, out, level):
    job = os.path.join(os.path.dirname(out), "job_%s.json" % level)
    with open(job, "w") as f:
        json.dump({"model": src, "level": level, "optimized": out}, f)
    env = dict(os.environ, ORT_NODE=module)
    r = subprocess.run(["node", ort_run, job], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    return r.returncode == 0 and os.path.exists(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("models", nargs="+")
    ap.add_argument("--opsets", default="23,24")
    ap.add_argument("--input-shape", action="append", default=[])
    ap.add_argument("--data", default=os.environ.get("ONNXFORGE_DATA", os.path.join(HERE, "..", "..", "shared")))
    a = ap.parse_args()
    opsets = [int(o) for o in a.opsets.split(",") if o]
    module = ort_module(a.cli)
    ort_run = os.path.join(a.data, "realworld", "ort_run.js")
    have_ort = module is not None and os.path.exists(ort_run)
    head = ["model", "original", "ofg own"] + ["ofg %d" % o for o in opsets] + ["ORT basic", "ORT extended", "fused ops at highest opset"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for arg in a.models:
        src = model_path(arg)
        name = os.path.basename(os.path.dirname(src)) if os.path.isdir(arg) else os.path.basename(src)
        row = [name, str(counts(src)[0])]
        last_ops = None
        with tempfile.TemporaryDirectory() as work:
            for opset in [None] + opsets:
                out = os.path.join(work, "ofg_%s.onnx" % (opset or "own"))
                ok, log = optimize(a.cli, src, out, opset, a.input_shape)
                if ok:
                    n, ops = counts(out)
                    row.append(str(n))
                    last_ops = ops
                else:
                    row.append("FAIL")
                    sys.stderr.write(log[-2000:])
            for level in ("basic", "extended"):
                out = os.path.join(work, "ort_%s.onnx" % level)
                row.append(str(counts(out)[0]) if have_ort and ort_optimize(module, ort_run, os.path.abspath(src), out, level) else "-")
        fused = ", ".join("%s %d" % (op, last_ops[op]) for op in COUNTED_OPS if last_ops and last_ops[op]) if last_ops else "-"
        row.append(fused)
        print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
