#!/usr/bin/env python3
"""What an optimized model declares stays true: no value_info for values that are gone, fixed
input shapes reach the declared outputs, and a subset of passes still removes the weights it made
unused. Usage: cli_saved_model_test.py ONNXFORGE_CLI   (needs Debian's python3-onnx)."""
import os
import sys

from clitest import TMP, main, require_onnx, run, save

np, onnx, TensorProto, helper, numpy_helper = require_onnx()


def model():
    """x -> Identity -> Conv -> BatchNormalization -> Relu, with value_info for every value."""
    rng = np.random.default_rng(3)
    inits = [numpy_helper.from_array(rng.standard_normal(s).astype(np.float32), n) for n, s in
             (("w", (4, 3, 3, 3)), ("scale", (4,)), ("bias", (4,)), ("mean", (4,)))]
    inits.append(numpy_helper.from_array(rng.uniform(0.5, 2, 4).astype(np.float32), "var"))
    nodes = [helper.make_node("Identity", ["x"], ["xi"]),
             helper.make_node("Conv", ["xi", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["b"]),
             helper.make_node("Relu", ["b"], ["y"])]
    vi = [helper.make_tensor_value_info(n, TensorProto.FLOAT, ["N", 3 if n == "xi" else 4, "H", "W"])
          for n in ("xi", "c", "b")]
    g = helper.make_graph(nodes, "m", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, "H", "W"])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4, "H", "W"])], inits,
                          value_info=vi)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def defined_names(m):
    return {o for n in m.graph.node for o in n.output} | {i.name for i in m.graph.input}


def test_no_value_info_for_removed_values():
    src, out = save(model(), "vi.onnx"), os.path.join(TMP, "vi_out.onnx")
    run("optimize", src, out)
    m = onnx.load(out)
    onnx.checker.check_model(m)
    stale = [v.name for v in m.graph.value_info if v.name not in defined_names(m)]
    assert not stale, stale
    assert len(m.graph.node) < 4


def test_fixed_input_shapes_reach_the_declared_outputs():
    src, out = save(model(), "shape.onnx"), os.path.join(TMP, "shape_out.onnx")
    run("optimize", src, out, "--input-shape", "x=1,3,8,8", "--verify")
    m = onnx.load(out)
    dims = [d.dim_value for d in m.graph.output[0].type.tensor_type.shape.dim]
    assert dims == [1, 4, 8, 8], m.graph.output[0]
    for v in m.graph.value_info:
        assert all(d.dim_value > 0 for d in v.type.tensor_type.shape.dim), v


def test_a_subset_of_passes_removes_the_weights_it_made_unused():
    src, out = save(model(), "subset.onnx"), os.path.join(TMP, "subset_out.onnx")
    p = run("optimize", src, out, "--passes", "fuse_conv_batchnorm")
    assert "eliminate_unused_initializers" in p.stdout
    m = onnx.load(out)
    used = {i for n in m.graph.node for i in n.input}
    assert all(i.name in used for i in m.graph.initializer), [i.name for i in m.graph.initializer]
    assert os.path.getsize(out) <= os.path.getsize(src)
    # ... unless that pass is skipped, which the user asked for.
    run("optimize", src, out, "--passes", "fuse_conv_batchnorm", "--skip", "eliminate_unused_initializers")
    assert len(onnx.load(out).graph.initializer) > len(m.graph.initializer)


def test_run_with_named_input_files_writes_the_outputs():
    """`run MODEL --input NAME=FILE.pb --output-dir D`: each output as a TensorProto in D, the
    values the model computes; an unknown input name is a usage error."""
    src = save(model(), "run.onnx")
    x = np.random.default_rng(5).standard_normal((1, 3, 4, 4)).astype(np.float32)
    xp = os.path.join(TMP, "run_x.pb")
    with open(xp, "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
    out_dir = os.path.join(TMP, "run_out")
    os.makedirs(out_dir, exist_ok=True)
    p = run("run", src, "--input", "x=" + xp, "--output-dir", out_dir)
    assert "y: float32 [1,4,4,4]" in p.stdout, p.stdout
    y = onnx.TensorProto()
    with open(os.path.join(out_dir, "output_0.pb"), "rb") as f:
        y.ParseFromString(f.read())
    assert y.name == "y" and numpy_helper.to_array(y).shape == (1, 4, 4, 4)
    assert np.all(numpy_helper.to_array(y) >= 0)  # the graph ends in Relu
    p = run("run", src, "--input", "nosuch=" + xp, ok=(2,))
    assert "the model has no input 'nosuch' (its inputs: x)" in p.stderr, p.stderr


if __name__ == "__main__":
    sys.exit(main(globals()))
