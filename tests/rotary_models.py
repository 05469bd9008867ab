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
   and the result verifies and runs against PyTorch's outputs on both sets;
5. (with ONNX Runtime, onnx and numpy) ONNX Runtime's RotaryEmbedding on small models (half and
   interleaved, full and partial rotary, 4-D and 3-D with num_heads) gives what our interpreter gives for the op and for its
   lowering to opset 17: the op's meaning, including interleaved, is ONNX Runtime's.

    rotary_models.py ONNXFORGE_CLI DATA_DIR
Exit 0 when every check passed, 1 otherwise, 77 when neither the model nor ONNX Runtime is there.
"""
import json
import os
import shutil
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


def op_vs_ort(cli, module, ort_run, work, check):
    """RotaryEmbedding alone at opset 23, run by ONNX Runtime; its outputs become the reference of
    `onnxforge run` for the op itself and for its lowering to 17. False when onnx/numpy are missing."""
    try:
        import numpy as np
        import onnx
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        return False
    rng = np.random.default_rng(0)
    positions, b, heads, s, d = 16, 2, 3, 5, 8
    for interleaved, rot, three_d in ((0, 0, False), (0, 6, False), (1, 0, False), (1, 6, False), (0, 0, True), (1, 6, True)):
        half = (rot or d) // 2
        tag = "op_i%d_r%d%s" % (interleaved, rot, "_3d" if three_d else "")
        shape = [b, s, heads * d] if three_d else [b, heads, s, d]
        folder = os.path.join(work, tag)
        os.makedirs(os.path.join(folder, "test_data_set_0"))
        caches = [numpy_helper.from_array(rng.standard_normal((positions, half)).astype(np.float32), n) for n in ("cos", "sin")]
        attrs = {"interleaved": interleaved}
        if rot:
            attrs["rotary_embedding_dim"] = rot
        if three_d:
            attrs["num_heads"] = heads
        node = helper.make_node("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"], **attrs)
        graph = helper.make_graph([node], tag, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape),
                                                helper.make_tensor_value_info("pos", TensorProto.INT64, [b, s])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)], caches)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
        m.ir_version = 10
        path = os.path.join(folder, "model.onnx")
        onnx.save(m, path)
        x = rng.standard_normal(shape).astype(np.float32)
        pos = rng.integers(0, positions, (b, s)).astype(np.int64)
        inputs = []
        for k, (name, a) in enumerate((("x", x), ("pos", pos))):
            with open(os.path.join(folder, "test_data_set_0", "input_%d.pb" % k), "wb") as f:
                f.write(numpy_helper.from_array(a, name).SerializeToString())
            raw = os.path.join(folder, name + ".bin")
            a.tofile(raw)
            inputs.append({"name": name, "dtype": "float32" if a.dtype == np.float32 else "int64", "dims": list(a.shape), "file": raw})
        job = os.path.join(folder, "job.json")
        with open(job, "w") as f:
            json.dump({"model": path, "threads": 1, "level": "disabled", "inputs": inputs, "outdir": os.path.join(folder, "ort")}, f)
        p = subprocess.run(["node", ort_run, job], capture_output=True, text=True, env=dict(os.environ, ORT_NODE=module))
        check(p.returncode == 0, "%s: ONNX Runtime runs RotaryEmbedding %s" % (tag, p.stderr.strip()[-200:]))
        if p.returncode:
            continue
        y = np.fromfile(os.path.join(folder, "ort", "out_0.bin"), dtype=np.float32).reshape(shape)
        with open(os.path.join(folder, "test_data_set_0", "output_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(y, "y").SerializeToString())
        ok, err, text = run_dir(cli, path, folder, work, tag + "_op")
        check(ok, "%s: our RotaryEmbedding vs ONNX Runtime (max abs %s) %s" % (tag, err, "" if ok else text))
        low = os.path.join(folder, "lowered17.onnx")
        c = subprocess.run([cli, "convert", path, low, "--target-opset", "17"], capture_output=True, text=True)
        check(c.returncode == 0, "%s: lowered to 17" % tag)
        if c.returncode == 0:
            ok, err, text = run_dir(cli, low, folder, work, tag + "_lowered")
            check(ok, "%s: lowering run by onnxforge vs ONNX Runtime's op (max abs %s) %s" % (tag, err, "" if ok else text))
    return True


def main():
    cli, data = sys.argv[1], sys.argv[2]
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    work = tempfile.mkdtemp(prefix="ofg_rotary_")
    module = ort_module(cli)
    ort_run = os.path.join(data, "realworld", "ort_run.js")
    have_ort = bool(module and os.path.isfile(ort_run) and shutil.which("node"))
    ran_ort = have_ort and op_vs_ort(cli, module, ort_run, work, check)
    if not ran_ort:
        print("skip ONNX Runtime: no onnxruntime-node (ORT_NODE or BUILD/ort-node), node, onnx or numpy")
    src = os.path.join(data, "models", "llama_tiny_dirty")
    model = os.path.join(src, "model.onnx")
    if not os.path.isfile(model):
        print("SKIP llama_tiny_dirty: %s not found" % model)
        if not ran_ort:
            return 77
        print("%d failure(s)" % len(failures))
        return 1 if failures else 0
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

    for tag, path in (("opset 23", fused), ("lowered to 17", lowered)):
        if not os.path.isfile(path):
            continue
        for s in SETS:
            v = subprocess.run([cli, "verify", model, path, "--test-data", os.path.join(src, s)], capture_output=True, text=True)
            check(v.returncode == 0, "%s: verify against the original on %s" % (tag, s))
        ok, err, text = run_dir(cli, path, src, work, tag.replace(" ", "_"))
        check(ok, "%s: onnxforge run vs PyTorch on both sets (max abs %s) %s" % (tag, err, "" if ok else text))
    if ran_ort:
        for s in SETS:
            r = ort_check(module, ort_run, fused, src, work, s)
            check(r != "-" and not r.startswith("FAIL") and not r.startswith("n/a"), "ONNX Runtime runs opset 23 vs PyTorch on %s: %s" % (s, r))
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
