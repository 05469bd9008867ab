#!/usr/bin/python3
"""RotaryEmbedding on the shared LLaMA-style decoder (DATA/models/llama_tiny_dirty, PyTorch's
reference outputs in test_data_set_0 (prefill) and test_data_set_1 (decode step)):

1. `optimize --target-opset 23 --verify` gives 8 RotaryEmbedding (4 layers x q, k) and no Neg
   left (each rotate_half had one);
2. the optimized model verifies against the original on both test sets, and `onnxforge run`
   matches PyTorch's outputs on both;
3. ONNX Runtime (onnxruntime-node through DATA/realworld/ort_run.js, when ORT_NODE or
   BUILD/ort-node provides it; a test oracle only) runs it and matches PyTorch on both sets;
4. `convert --target-opset 17` lowers every RotaryEmbedding (none left, verified by execution)
   and the result verifies and runs against PyTorch's outputs on both sets.

    rotary_models.py ONNXFORGE_CLI DATA_DIR
Exit 0 when every check passed, 1 otherwise, 77 when the model is absent.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from opset_models import ort_check, ort_module, run_dir  # noqa: E402

SETS = ("test_data_set_0", "test_data_set_1")


def op_counts(cli, path):
    p = subprocess.run([cli, "inspect", path, "--json"], capture_output=True, text=True)
    j = json.loads(p.stdout)
    return j.get("ops", {})


def main():
    cli, data = sys.argv[1], sys.argv[2]
    src = os.path.join(data, "models", "llama_tiny_dirty")
    model = os.path.join(src, "model.onnx")
    if not os.path.isfile(model):
        print("SKIP: %s not found" % model)
        return 77
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    work = tempfile.mkdtemp(prefix="ofg_rotary_")
    fused = os.path.join(work, "fused23.onnx")
    p = subprocess.run([cli, "optimize", model, fused, "--target-opset", "23", "--verify"], capture_output=True, text=True)
    check(p.returncode == 0, "optimize --target-opset 23 --verify (exit %d)" % p.returncode)
    if p.returncode:
        print(p.stdout[-2000:], p.stderr[-2000:])
        return 1
    ops = op_counts(cli, fused)
    check(ops.get("RotaryEmbedding", 0) == 8, "8 RotaryEmbedding at opset 23 (got %d)" % ops.get("RotaryEmbedding", 0))
    check(ops.get("Neg", 0) == 0, "no Neg left (got %d)" % ops.get("Neg", 0))

    lowered = os.path.join(work, "lowered17.onnx")
    p = subprocess.run([cli, "convert", fused, lowered, "--target-opset", "17"], capture_output=True, text=True)
    check(p.returncode == 0, "convert --target-opset 17 of the fused model (exit %d) %s" % (p.returncode, p.stderr.strip()[-300:]))
    if p.returncode == 0:
        low = op_counts(cli, lowered)
        check(low.get("RotaryEmbedding", 0) == 0, "no RotaryEmbedding at opset 17")

    module = ort_module(cli)
    ort_run = os.path.join(data, "realworld", "ort_run.js")
    for tag, path in (("opset 23", fused), ("lowered to 17", lowered)):
        if not os.path.isfile(path):
            continue
        for s in SETS:
            v = subprocess.run([cli, "verify", model, path, "--test-data", os.path.join(src, s)], capture_output=True, text=True)
            check(v.returncode == 0, "%s: verify against the original on %s" % (tag, s))
        ok, err, text = run_dir(cli, path, src, work, tag.replace(" ", "_"))
        check(ok, "%s: onnxforge run vs PyTorch on both sets (max abs %s) %s" % (tag, err, "" if ok else text))
    if module and os.path.isfile(ort_run):
        for s in SETS:
            r = ort_check(module, ort_run, fused, src, work, s)
            check(r != "-" and not r.startswith("FAIL") and not r.startswith("n/a"), "ONNX Runtime runs opset 23 vs PyTorch on %s: %s" % (s, r))
    else:
        print("skip ONNX Runtime: no onnxruntime-node (ORT_NODE or BUILD/ort-node)")
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
