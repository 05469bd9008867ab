"""onnxforge optimize --explain NODE (issue 24, part 3 "why not"): the story of one node, i.e. the
rewrites that started from it and the reasons rules left it alone, among them the whole-pass
"opset N has no X: use --target-opset M"; the --report JSON carries "not_applied"."""
import json
import os
import sys

from clitest import TMP, main, require_onnx, run, save

np, onnx, TensorProto, helper, numpy_helper = require_onnx()


def conv_bn_model():
    """Conv -> BatchNormalization where the Conv output is also read by a Relu (the fusion
    declines: second consumer), a Div that fold_reciprocal_mul declines, and a layer norm's
    ReduceMean at opset 13 (no LayerNormalization before 17)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4])
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("y", "r", "q", "m")]
    inits = [numpy_helper.from_array(np.ones((2, 2, 1, 1), np.float32), "w")]
    for n in ("scale", "bias", "mean", "var"):
        inits.append(numpy_helper.from_array(np.ones(2, np.float32), n))
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv0"),
             helper.make_node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["y"], name="bn0"),
             helper.make_node("Relu", ["c"], ["r"], name="relu0"),
             helper.make_node("Div", ["x", "x"], ["q"], name="div0"),
             helper.make_node("ReduceMean", ["x"], ["m"], name="mean0", axes=[-1], keepdims=1)]
    g = helper.make_graph(nodes, "g", [x], outs, inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def test_explain_names_the_reason():
    path = save(conv_bn_model(), "convbn.onnx")
    out = os.path.join(TMP, "convbn.opt.onnx")
    rep = os.path.join(TMP, "convbn.json")
    p = run("optimize", path, out, "--explain", "bn0", "--report", rep)
    assert "explain bn0:" in p.stdout, p.stdout
    assert ("not applied: fuse_conv_batchnorm/conv_batchnorm (BatchNormalization): the Conv output has a second "
            "consumer besides BatchNormalization") in p.stdout, p.stdout
    data = json.loads(open(rep).read())
    na = data["pipeline"]["not_applied"]
    assert {"pass": "fold_reciprocal_mul", "rule": "reciprocal_mul", "node": "div0", "op": "Div",
            "reason": "the dividend is not a constant 1"} in na, na
    assert {"pass": "fuse_layer_norm", "rule": "decomposed_layer_norm", "node": "", "op": "ReduceMean",
            "reason": "opset 13 has no LayerNormalization: use --target-opset 17"} in na, na
    # The whole-pass decline shows in the story of a node of its op.
    p = run("optimize", path, out, "--explain", "mean0")
    assert "opset 13 has no LayerNormalization: use --target-opset 17" in p.stdout, p.stdout


def test_explain_lists_the_rewrites_of_a_node():
    # Without the second reader the BatchNormalization folds: the story says so.
    m = conv_bn_model()
    del m.graph.node[2]
    del m.graph.output[1]
    path = save(m, "convbn_ok.onnx")
    p = run("optimize", path, os.path.join(TMP, "ok.onnx"), "--explain", "bn0")
    assert "rewritten by fuse_conv_batchnorm/conv_batchnorm (BatchNormalization)" in p.stdout, p.stdout
    assert "not applied: fuse_conv_batchnorm" not in p.stdout, p.stdout


def test_explain_unknown_node_says_nothing_happened():
    path = save(conv_bn_model(), "convbn2.onnx")
    p = run("optimize", path, os.path.join(TMP, "o2.onnx"), "--explain", "no_such_node")
    assert "no rule started from it or declined it" in p.stdout, p.stdout


if __name__ == "__main__":
    sys.exit(main(globals()))
