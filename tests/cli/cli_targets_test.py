"""onnxforge targets / check --target (issue 24, part 1): the list names each profile's source, a
model that breaks rules exits 5 with each node and rule, a legal one exits 0, --json is the
library's report, and an unknown target is a usage error (2) listing the known names."""
import json
import sys

from clitest import main, require_onnx, run, save

np, onnx, TensorProto, helper, numpy_helper = require_onnx()


def model_with_unique_and_cubic_resize():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    u = helper.make_tensor_value_info("u", TensorProto.FLOAT, None)
    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], dtype=np.float32), "scales")
    nodes = [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="resize0", mode="cubic"),
             helper.make_node("Flatten", ["x"], ["f"], name="flat0"),
             helper.make_node("Unique", ["f"], ["u"], name="unique0")]
    g = helper.make_graph(nodes, "g", [x], [y, u], [scales])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def legal_model():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu0")], "g", [x], [y])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def test_targets_lists_every_profile_with_its_source():
    out = run("targets").stdout
    for name in ("tensorrt", "openvino", "rknn", "qnn", "coreml-ort", "opset:N"):
        assert name in out, out
    assert "https://github.com/onnx/onnx-tensorrt/" in out, out
    data = json.loads(run("targets", "--json").stdout)
    names = sorted(t["name"] for t in data["targets"])
    assert names == ["coreml-ort", "openvino", "qnn", "rknn", "tensorrt"], names
    trt = [t for t in data["targets"] if t["name"] == "tensorrt"][0]
    assert (trt["opset_min"], trt["opset_max"]) == (9, 20), trt


def test_check_reports_each_node_and_exits_5():
    path = save(model_with_unique_and_cubic_resize(), "illegal.onnx")
    p = run("check", path, "--target", "tensorrt", ok=(5,))
    assert "2 of 3 nodes not legal for tensorrt" in p.stdout, p.stdout
    assert "resize0 (Resize)" in p.stdout and "attribute" in p.stdout and "mode=cubic" in p.stdout, p.stdout
    assert "unique0 (Unique)" in p.stdout and "Unique is not supported by tensorrt" in p.stdout, p.stdout
    data = json.loads(run("check", path, "--target", "tensorrt", "--json", ok=(5,)).stdout)
    assert data["illegal_nodes"] == 2 and data["legal"] is False, data
    rules = sorted((f["node"], f["rule"]) for f in data["findings"])
    assert rules == [("resize0", "attribute"), ("unique0", "op")], rules
    # OpenVINO takes both (Unique from 11, Resize without a mode restriction).
    run("check", path, "--target", "openvino", ok=(0,))


def test_check_legal_model_exits_0():
    path = save(legal_model(), "legal.onnx")
    for target in ("tensorrt", "openvino", "rknn", "qnn", "coreml-ort", "opset:13"):
        p = run("check", path, "--target", target, ok=(0,))
        assert "0 of 1 nodes not legal" in p.stdout, p.stdout
    # opset:17 wants the model at opset 17: one model-level finding, no illegal node.
    p = run("check", path, "--target", "opset:17", ok=(5,))
    assert "model_opset" in p.stdout and "0 of 1 nodes" in p.stdout, p.stdout


def test_unknown_target_and_usage_errors():
    path = save(legal_model(), "legal2.onnx")
    p = run("check", path, "--target", "tensorrtt", ok=(2,))
    assert "unknown target 'tensorrtt'" in p.stderr and "coreml-ort, openvino, qnn, rknn, tensorrt" in p.stderr, p.stderr
    p = run("check", path, ok=(2,))
    assert "--target" in p.stderr, p.stderr
    run("check", "--target", "tensorrt", ok=(2,))
    p = run("check", path + ".missing", "--target", "tensorrt", ok=(2,))
    assert p.stdout == "", p.stdout
    assert "exit codes" in run("help", "check").stdout


if __name__ == "__main__":
    sys.exit(main(globals()))
