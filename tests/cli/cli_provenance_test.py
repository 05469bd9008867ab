"""optimize --report carries provenance (issue 24, part 2): the pipeline report's "provenance" maps
every node of OUT to the nodes of IN it came from (a fusion lists all of them, unnamed nodes of IN
are "#k" in walk order, unnamed nodes of OUT get names), "folded" names the nodes constant folding
turned into each initializer; --keep-names keeps the name of every value that stays."""
import json

from clitest import TMP, main, require_onnx, run, save

np, onnx, TensorProto, helper, numpy_helper = require_onnx()


def conv_bn_identity_model():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    inits = [numpy_helper.from_array(np.ones((2, 2, 1, 1), np.float32), "w"),
             numpy_helper.from_array(np.array([1, 2], np.float32), "s"),
             numpy_helper.from_array(np.array([0, 1], np.float32), "b"),
             numpy_helper.from_array(np.array([0, 0.5], np.float32), "mean"),
             numpy_helper.from_array(np.array([1, 2], np.float32), "var"),
             numpy_helper.from_array(np.array([2, 3], np.float32), "k1"),
             numpy_helper.from_array(np.array([4, 5], np.float32), "k2")]
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv0"),
             helper.make_node("BatchNormalization", ["c", "s", "b", "mean", "var"], ["bn"], name="bn0"),
             helper.make_node("Relu", ["bn"], ["r"]),  # unnamed: "#2"
             helper.make_node("Add", ["k1", "k2"], ["k"], name="fold_me"),
             helper.make_node("Reshape", ["k", "shape"], ["k4"], name="reshape_k"),
             helper.make_node("Add", ["r", "k4"], ["a"], name="add0"),
             helper.make_node("Identity", ["a"], ["y"], name="id0")]
    inits.append(numpy_helper.from_array(np.array([1, 2, 1, 1], np.int64), "shape"))
    g = helper.make_graph(nodes, "g", [x], [y], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def optimize(*extra):
    src = save(conv_bn_identity_model(), "in.onnx")
    out, rep = TMP + "/out.onnx", TMP + "/rep.json"
    run("optimize", src, out, "--report", rep, *extra)
    return onnx.load(out), json.load(open(rep))["pipeline"]


def test_report_traces_every_output_node():
    m, pipeline = optimize()
    prov = pipeline["provenance"]
    names = [n.name for n in m.graph.node]
    assert all(names), names  # every output node is named now
    assert sorted(prov) == sorted(names), (prov, names)
    conv = [n for n in m.graph.node if n.op_type == "Conv"][0]
    assert sorted(prov[conv.name]) == ["bn0", "conv0"], prov
    relu = [n for n in m.graph.node if n.op_type == "Relu"][0]
    assert relu.name.startswith("Relu_ofg"), relu.name
    assert prov[relu.name] == ["#2"], prov
    add = [n for n in m.graph.node if n.op_type == "Add"][0]
    assert sorted(prov[add.name]) == ["add0", "id0"], prov  # the Identity went into the Add
    folded = pipeline["folded"]
    assert any(sorted(v) == ["fold_me", "reshape_k"] for v in folded.values()), folded


def test_keep_names_keeps_the_value_an_output_identity_reads():
    m, _ = optimize()
    values = {o for n in m.graph.node for o in n.output}
    assert "a" not in values, values  # without the flag the Add writes y directly
    m, pipeline = optimize("--keep-names")
    values = {o for n in m.graph.node for o in n.output}
    assert {"a", "y"} <= values, values
    assert "provenance" in pipeline


def test_no_report_no_new_names():
    src = save(conv_bn_identity_model(), "in2.onnx")
    out = TMP + "/out2.onnx"
    run("optimize", src, out)
    assert [n.name for n in onnx.load(out).graph.node if n.op_type == "Relu"] == [""]


if __name__ == "__main__":
    raise SystemExit(main(globals()))
