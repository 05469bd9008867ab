#!/usr/bin/python3
"""The shared transformers raised to opset 23 with `optimize --target-opset 23 --verify` (fuse_attention
turns their attention blocks into Attention), then lowered back to 17 with `convert --target-opset 17`.
Each result is run by `onnxforge run` against the PyTorch reference outputs of every test set, and
by ONNX Runtime (onnxruntime-node through DATA/realworld/ort_run.js, when ORT_NODE or BUILD/ort-node
provides it) on every test set. The Attention count per model is checked.

    attention_models.py ONNXFORGE_CLI DATA_DIR
Exit 0 when every step passed, 1 otherwise, 77 when there is no data.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from opset_models import ort_check, ort_module, run_dir  # noqa: E402

# model -> Attention nodes expected at opset 23 (vit_tiny's nn.MultiheadAttention: the batch-of-heads
# rank-3 form).
EXPECTED = {"llama_tiny_dirty": 4, "bert_tiny_dirty": 4, "gpt_tiny_dirty": 4, "vit_tiny_dirty": 2}


def ops(cli, path):
    p = subprocess.run([cli, "inspect", path, "--json"], capture_output=True, text=True)
    return json.loads(p.stdout).get("ops", {}) if p.returncode == 0 else {}


def ort_all_sets(module, ort_run, path, src, work):
    """ort_check on each test set (it reads test_data_set_0 of the folder it is given)."""
    res = []
    for s in sorted(x for x in os.listdir(src) if x.startswith("test_data_set_")):
        d = tempfile.mkdtemp(dir=work)
        os.symlink(os.path.abspath(os.path.join(src, s)), os.path.join(d, "test_data_set_0"))
        res.append(ort_check(module, ort_run, path, d, tempfile.mkdtemp(dir=work)))
    return res


def main():
    cli, data = sys.argv[1], sys.argv[2]
    models = [m for m in EXPECTED if os.path.exists(os.path.join(data, "models", m, "model.onnx"))]
    if not models:
        print("no shared transformer models under %s/models: skipped" % data)
        return 77
    module = ort_module(cli)
    ort_run = os.path.join(data, "realworld", "ort_run.js")
    if not os.path.exists(ort_run):
        module = None
    failed = 0
    work = tempfile.mkdtemp()
    for name in models:
        src = os.path.join(data, "models", name)
        up = os.path.join(work, name + ".23.onnx")
        down = os.path.join(work, name + ".17.onnx")
        p = subprocess.run([cli, "optimize", os.path.join(src, "model.onnx"), up, "--target-opset", "23", "--verify"],
                           capture_output=True, text=True)
        if p.returncode:
            print("FAIL %s: optimize --target-opset 23: %s" % (name, (p.stderr or p.stdout).strip()[-300:]))
            failed += 1
            continue
        o = ops(cli, up)
        nodes_up = sum(o.values())
        if o.get("Attention", 0) != EXPECTED[name]:
            print("FAIL %s: %d Attention at opset 23, expected %d" % (name, o.get("Attention", 0), EXPECTED[name]))
            failed += 1
        p = subprocess.run([cli, "convert", up, down, "--target-opset", "17"], capture_output=True, text=True)
        if p.returncode:
            print("FAIL %s: convert --target-opset 17: %s" % (name, (p.stderr or p.stdout).strip()[-300:]))
            failed += 1
            continue
        if ops(cli, down).get("Attention", 0):
            print("FAIL %s: Attention left at opset 17" % name)
            failed += 1
        for tag, path in (("23", up), ("17", down)):
            ok, err, text = run_dir(cli, path, src, work, name + "_" + tag)
            orts = ort_all_sets(module, ort_run, path, src, work) if module else ["- (no onnxruntime-node)"]
            bad = not ok or any(r.startswith("FAIL") for r in orts)
            failed += bad
            print("%-4s %-18s opset %s  nodes %4d  run vs PyTorch %s (max abs %s)  ORT per set: %s" % (
                "FAIL" if bad else "ok", name, tag, nodes_up if tag == "23" else sum(ops(cli, path).values()),
                "ok" if ok else "FAIL " + str(text), err, ", ".join(orts)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
