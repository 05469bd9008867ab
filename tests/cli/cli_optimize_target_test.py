"""onnxforge optimize --target NAME (issue 24, part 1): legalisation after the passes. A model the
target can take after rewrites (LayerNormalization at opset 17 for opset:13) is written legal,
exit 0; one with a node no rewrite fixes exits 6, names the node and rule and writes no OUT;
--allow-illegal writes it (exit 0); --report carries the legalisation as "target"."""
import json
import os
import sys

from clitest import TMP, main, require_onnx, run, save

np, onnx, TensorProto, helper, numpy_helper = require_onnx()


def layer_norm_model():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 8])
    g = numpy_helper.from_array(np.linspace(0.5, 2.0, 8).astype(np.float32), "g")
    b = numpy_helper.from_array(np.linspace(-1.0, 1.0, 8).astype(np.float32), "b")
    node = helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"], name="ln0", axis=-1, epsilon=1e-5)
    gr = helper.make_graph([node], "g", [x], [y], [g, b])
    return helper.make_model(gr, opset_imports=[helper.make_opsetid("", 17)])


def unique_model():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [6])
    u = helper.make_tensor_value_info("u", TensorProto.FLOAT, None)
    r = helper.make_tensor_value_info("r", TensorProto.FLOAT, [6])
    nodes = [helper.make_node("Unique", ["x"], ["u"], name="unique0"), helper.make_node("Relu", ["x"], ["r"], name="relu0")]
    gr = helper.make_graph(nodes, "g", [x], [u, r])
    return helper.make_model(gr, opset_imports=[helper.make_opsetid("", 13)])


def ops_of(path):
    return [n.op_type for n in onnx.load(path).graph.node]


def test_layer_norm_lowered_for_opset13_and_reported():
    src = save(layer_norm_model(), "ln.onnx")
    out, rep = os.path.join(TMP, "ln13.onnx"), os.path.join(TMP, "ln13.json")
    p = run("optimize", src, out, "--target", "opset:13", "--report", rep, ok=(0,))
    assert "target opset:13: opset 17 -> 13" in p.stdout and "illegal nodes 1 -> 0" in p.stdout, p.stdout
    m = onnx.load(out)
    assert [o.version for o in m.opset_import if o.domain in ("", "ai.onnx")] == [13]
    assert "LayerNormalization" not in ops_of(out) and "ReduceMean" in ops_of(out), ops_of(out)
    t = json.load(open(rep))["target"]
    assert (t["target"], t["opset_before"], t["opset_after"], t["illegal_after"], t["legal"]) == ("opset:13", 17, 13, 0, True), t
    assert t["verified"].startswith("verified by execution"), t
    assert any(r["op"] == "LayerNormalization" for r in t["rewrites"]), t
    run("check", out, "--target", "opset:13", ok=(0,))


def test_illegal_left_exits_6_and_writes_nothing():
    src = save(unique_model(), "unique.onnx")
    out, rep = os.path.join(TMP, "u.onnx"), os.path.join(TMP, "u.json")
    p = run("optimize", src, out, "--target", "tensorrt", "--report", rep, ok=(6,))
    assert "still illegal: unique0 (Unique)" in p.stdout and "Unique is not supported by tensorrt" in p.stdout, p.stdout
    assert "--allow-illegal" in p.stderr, p.stderr
    assert not os.path.exists(out)
    r = json.load(open(rep))
    assert r["exit_code"] == 6 and r["output_written"] is False, r
    assert [(f["node"], f["rule"]) for f in r["target"]["findings"]] == [("unique0", "op")], r["target"]
    p = run("optimize", src, out, "--target", "tensorrt", "--allow-illegal", ok=(0,))
    assert "still illegal: unique0 (Unique)" in p.stdout, p.stdout
    assert os.path.exists(out) and "Unique" in ops_of(out)


def test_usage_errors():
    src = save(unique_model(), "unique2.onnx")
    out = os.path.join(TMP, "x.onnx")
    p = run("optimize", src, out, "--target", "tensorrtt", ok=(2,))
    assert "unknown target 'tensorrtt'" in p.stderr, p.stderr
    run("optimize", src, out, "--allow-illegal", ok=(2,))
    run("optimize", src, out, "--target", "tensorrt", "--target-opset", "13", ok=(2,))
    assert not os.path.exists(out)
    h = run("help", "optimize").stdout
    assert "--target" in h and "--allow-illegal" in h and "6 --target" in h, h


if __name__ == "__main__":
    sys.exit(main(globals()))
