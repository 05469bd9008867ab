"""onnxforge diff A B (issue 24, part 4): identical models exit 0 with one line; a Conv+Add fused
into a Conv with bias is matched through a hand-written provenance report (nested one level down,
as optimize's report may carry it) and falls back to added/removed without it; --json is the
library's JSON; --max cuts the lists; usage and input errors exit 2. With --shared (its own test,
skipped without the shared models): a model optimized by `onnxforge optimize` has every node
matched."""
import json
import os
import sys

from clitest import TMP, main, require_onnx, run, save

np, onnx, TensorProto, helper, numpy_helper = require_onnx()


def conv_add_relu():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(3, 2, 1, 1), "w")
    b = numpy_helper.from_array(np.array([0.5, 0.25, 0.125], dtype=np.float32).reshape(1, 3, 1, 1), "bias")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="c1"),
             helper.make_node("Add", ["c", "bias"], ["t"], name="a1"),
             helper.make_node("Relu", ["t"], ["y"], name="r1")]
    return helper.make_model(helper.make_graph(nodes, "g", [x], [y], [w, b]),
                             opset_imports=[helper.make_opsetid("", 17)])


def conv_bias_relu():
    """The same as one Conv with a bias; every value renamed, so names cannot match it."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(3, 2, 1, 1), "w")
    b = numpy_helper.from_array(np.array([0.5, 0.25, 0.125], dtype=np.float32), "b_folded")
    nodes = [helper.make_node("Conv", ["x", "w", "b_folded"], ["fresh"], name="c1"),
             helper.make_node("Relu", ["fresh"], ["y"], name="r1")]
    return helper.make_model(helper.make_graph(nodes, "g", [x], [y], [w, b]),
                             opset_imports=[helper.make_opsetid("", 17)])


def write(name, text):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def test_identical_models_exit_0():
    a = save(conv_add_relu(), "a.onnx")
    a2 = save(conv_add_relu(), "a2.onnx")
    p = run("diff", a, a2)
    assert p.stdout == "identical: 3 nodes\n", p.stdout
    data = json.loads(run("diff", a, a2, "--json").stdout)
    assert data["identical"] is True and data["summary"]["same"] == 3, data


def test_fused_through_provenance_and_fallback():
    a = save(conv_add_relu(), "a.onnx")
    b = save(conv_bias_relu(), "b.onnx")
    # Nested as optimize --report writes it (the pipeline's report under "pipeline").
    report = write("report.json", json.dumps({"pipeline": {"passes": [], "provenance": {"c1": ["c1", "a1"], "r1": ["r1"]},
                                                           "folded": {}}}))
    p = run("diff", a, b, "--provenance", report, ok=(1,))
    first = p.stdout.splitlines()[0]
    assert first.startswith("different: 3 -> 2 nodes; 1 same, 0 changed, 1 fused,"), p.stdout
    assert "0 added, 0 removed" in first and "matched 2 of 2 B nodes (2 by provenance" in first, p.stdout
    assert "c1 (Conv) <- c1 (Conv), a1 (Add)" in p.stdout, p.stdout
    assert "op counts: Add 1->0" in p.stdout, p.stdout
    data = json.loads(run("diff", a, b, "--provenance", report, "--json", ok=(1,)).stdout)
    assert data["provenance"] is True and data["identical"] is False, data
    assert data["summary"]["fused"] == 1 and data["summary"]["b_matched"] == 2, data["summary"]
    fused = data["nodes"]["fused"][0]
    assert fused["b"]["name"] == "c1" and [n["name"] for n in fused["a"]] == ["c1", "a1"], fused
    assert fused["how"] == "provenance", fused
    assert data["op_counts"] == [{"op": "Add", "a": 1, "b": 0}], data["op_counts"]
    assert [i["name"] for i in data["initializers"]["added"]] == ["b_folded"], data["initializers"]
    # Without provenance only the Relu (by its output name) matches; the renamed Conv does not.
    data = json.loads(run("diff", a, b, "--json", ok=(1,)).stdout)
    assert data["provenance"] is False, data
    assert [n["name"] for n in data["nodes"]["removed"]] == ["c1", "a1"], data["nodes"]
    assert [n["name"] for n in data["nodes"]["added"]] == ["c1"], data["nodes"]
    changed = data["nodes"]["changed"]
    assert [(c["b"]["name"], c["how"], c["changes"]) for c in changed] == [("r1", "output_name", ["input 0: t -> fresh"])], changed


def test_max_cuts_the_lists():
    a = save(conv_add_relu(), "a.onnx")
    b = save(conv_bias_relu(), "b.onnx")
    p = run("diff", a, b, "--max", "1", ok=(1,))
    assert "removed (2):\n  c1 (Conv)\n  ... 1 more" in p.stdout, p.stdout
    p = run("diff", a, b, "--max", "0", ok=(1,))
    assert "removed (2):\n  c1 (Conv)\n  a1 (Add)\n" in p.stdout, p.stdout


def test_usage_and_input_errors_exit_2():
    a = save(conv_add_relu(), "a.onnx")
    p = run("diff", a, ok=(2,))
    assert "give two models" in p.stderr, p.stderr
    p = run("diff", a, os.path.join(TMP, "missing.onnx"), ok=(2,))
    assert "missing.onnx" in p.stderr, p.stderr
    p = run("diff", a, a, "--provenance", os.path.join(TMP, "nope.json"), ok=(2,))
    assert "cannot read --provenance" in p.stderr, p.stderr
    p = run("diff", a, a, "--provenance", write("norep.json", '{"passes": []}'), ok=(2,))
    assert "no \"provenance\" object" in p.stderr, p.stderr
    p = run("diff", a, a, "--provenance", write("bad.json", '{"provenance": '), ok=(2,))
    assert "not valid JSON" in p.stderr, p.stderr
    assert "onnxforge diff A B" in run("help", "diff").stdout


def shared_optimized_model_is_fully_matched():
    """Run alone (argument --shared, its own ctest): exit 77, ctest's skip, without the model."""
    data_dir = os.environ.get("ONNXFORGE_DATA") or os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared")
    src = os.path.join(data_dir, "models", "mobilenetv2_dirty", "model.onnx")
    if not os.path.exists(src):
        print("SKIP: no shared model %s" % src)
        sys.exit(77)
    out = os.path.join(TMP, "opt.onnx")
    report = os.path.join(TMP, "opt.json")
    run("optimize", src, out, "--report", report)
    with open(report) as f:
        has_provenance = '"provenance"' in f.read()
    args = ["diff", src, out, "--json"] + (["--provenance", report] if has_provenance else [])
    data = json.loads(run(*args, ok=(1,)).stdout)
    s = data["summary"]
    assert s["b_matched"] == s["b_nodes"] > 0 and s["added"] == 0, s
    assert s["fused"] > 0, s


if __name__ == "__main__":
    if sys.argv[2:] == ["--shared"]:
        sys.exit(main({"test_optimized_shared_model_is_fully_matched": shared_optimized_model_is_fully_matched}))
    sys.exit(main(globals()))
