#!/usr/bin/env python3
"""Regression tests of the command line's promises about the user's files and about verification.

- A lone path is never an output: `optimize model.onnx` refuses and leaves the file as it was;
  the demo model runs only with --demo (inspect, optimize).
- An in-place optimize verifies against the model as it was before the run (the same
  differences as an optimize to another file), and when verification fails the original file
  is left unchanged.
- Verification builds inputs the model accepts: integers compared with constants take them,
  dims come from the graph or from --dim / --input-shape; when none fits, exit 3 with its own
  message, never "invalid model". Real data (--test-data, --input, test_data_set_N beside the
  model) comes first.
- JSON output is valid JSON even when a difference is infinite.

Usage: cli_trust_test.py ONNXFORGE_CLI    (needs Debian's python3-onnx and python3-numpy)
"""
import json
import os
import shutil
import sys

from clitest import TMP, main, require_onnx, read, run, save

np, onnx, TensorProto, helper, numpy_helper = require_onnx()


def conv_bn_model():
    """Conv followed by BatchNormalization: folding the BN changes float rounding a little."""
    rng = np.random.default_rng(7)
    w = numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "w")
    scale = numpy_helper.from_array(rng.uniform(0.5, 2.0, 8).astype(np.float32), "scale")
    bias = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "bias")
    mean = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "mean")
    var = numpy_helper.from_array(rng.uniform(0.1, 3.0, 8).astype(np.float32), "var")
    g = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["y"])],
        "conv_bn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 8, 16, 16])], [w, scale, bias, mean, var])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def max_abs(stdout):
    for line in stdout.splitlines():
        if "max abs" in line:
            return float(line.split("max abs")[1].split()[0])
    raise AssertionError("no 'max abs' in:\n" + stdout)


def test_lone_path_is_not_an_output():
    path = save(conv_bn_model(), "lone.onnx")
    before = read(path)
    p = run("optimize", path, ok=(2,))
    assert "give IN and OUT" in p.stderr, p.stderr
    assert read(path) == before, "optimize with one path changed the file"


def test_demo_only_when_asked():
    p = run("inspect", ok=(2,))
    assert "--demo" in p.stderr
    run("inspect", "--demo")
    out = os.path.join(TMP, "demo.onnx")
    run("optimize", "--demo", out)
    assert os.path.getsize(out) > 0
    run("optimize", "--demo", out, out, ok=(2,))  # --demo takes OUT only


def test_in_place_verify_compares_with_the_model_before_the_run():
    src = save(conv_bn_model(), "inplace_src.onnx")
    other = run("optimize", src, os.path.join(TMP, "inplace_other.onnx"), "--verify")
    expected = max_abs(other.stdout)
    assert expected > 0, "the fold is expected to change rounding: " + other.stdout
    work = os.path.join(TMP, "inplace.onnx")
    shutil.copy(src, work)
    same = run("optimize", work, work, "--verify")
    assert max_abs(same.stdout) == expected, (same.stdout, expected)
    assert read(work) != read(src), "the in-place run did not replace the file"


def test_in_place_run_that_fails_verification_keeps_the_original():
    work = os.path.join(TMP, "inplace_fail.onnx")
    shutil.copy(save(conv_bn_model(), "inplace_fail_src.onnx"), work)
    before = read(work)
    p = run("optimize", work, work, "--verify", "--atol", "0", "--rtol", "0", ok=(1,))
    assert "left unchanged" in p.stderr, p.stderr
    assert read(work) == before


def branch_on_constant_model():
    """sr selects a branch: Equal(sr, 16000) -> If; the else branch needs 9 elements in x."""
    then_g = helper.make_graph([helper.make_node("Identity", ["x"], ["t"])], "then", [],
                               [helper.make_tensor_value_info("t", TensorProto.FLOAT, None)])
    shape = numpy_helper.from_array(np.array([3, 3], np.int64), "shape33")
    else_g = helper.make_graph(
        [helper.make_node("Constant", [], ["s"], value=shape),
         helper.make_node("Reshape", ["x", "s"], ["e0"]),
         helper.make_node("Flatten", ["e0"], ["e"], axis=0)], "else", [],
        [helper.make_tensor_value_info("e", TensorProto.FLOAT, None)])
    g = helper.make_graph(
        [helper.make_node("Constant", [], ["k"], value=numpy_helper.from_array(np.array(16000, np.int64), "k")),
         helper.make_node("Equal", ["sr", "k"], ["is16k"]),
         helper.make_node("If", ["is16k"], ["y"], then_branch=then_g, else_branch=else_g)],
        "branch", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4]),
                   helper.make_tensor_value_info("sr", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def test_integer_input_takes_the_constant_it_is_compared_with():
    path = save(branch_on_constant_model(), "branch.onnx")
    p = run("verify", path, path)
    assert "sr=16000" in p.stdout, p.stdout


def reshape_model(target):
    g = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["y"])], "reshape",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.array(target, np.int64), "shape")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def test_dims_the_graph_suggests():
    # Reshape to [8, 4]: 32 is no size the graph names, but a power of two the planner tries.
    path = save(reshape_model([8, 4]), "reshape32.onnx")
    p = run("verify", path, path)
    assert "N=32" in p.stdout, p.stdout


def test_no_valid_inputs_has_its_own_exit_code_and_status():
    path = save(reshape_model([7, 3]), "reshape21.onnx")
    p = run("verify", path, path, ok=(3,))
    assert "cannot build inputs that the model accepts" in p.stderr, p.stderr
    assert "invalid model" not in p.stderr.split("(")[-1], p.stderr
    p = run("verify", path, path, "--dim", "N=21")
    assert "N=21" in p.stdout
    # --input-shape of optimize applies to the verification as well.
    p = run("optimize", path, os.path.join(TMP, "r21.onnx"), "--input-shape", "x=21", "--verify")
    assert "[21]" in p.stdout, p.stdout


def test_real_data_first():
    d = os.path.join(TMP, "with_data")
    os.makedirs(os.path.join(d, "test_data_set_0"))
    model = os.path.join(d, "model.onnx")
    onnx.save(reshape_model([7, 3]), model)
    x = numpy_helper.from_array(np.arange(21, dtype=np.float32), "x")
    with open(os.path.join(d, "test_data_set_0", "input_0.pb"), "wb") as f:
        f.write(x.SerializeToString())
    # Beside the model by default ...
    p = run("optimize", model, os.path.join(TMP, "wd.onnx"), "--verify")
    assert "test_data_set_0" in p.stdout and "[21]" in p.stdout, p.stdout
    # ... not with --random-inputs (no size fits: exit 3) ...
    run("optimize", model, os.path.join(TMP, "wd.onnx"), "--verify", "--random-inputs", ok=(3,))
    # ... named folders and single files.
    p = run("verify", model, model, "--test-data", d)
    assert "test_data_set_0" in p.stdout
    p = run("verify", model, model, "--input", "x=" + os.path.join(d, "test_data_set_0", "input_0.pb"))
    assert "input_0.pb" in p.stdout


def test_json_is_valid_with_infinite_differences():
    # Same names, different numbers: expected zeros against non-zero values gives max_rel = inf.
    def model(value):
        g = helper.make_graph([helper.make_node("Mul", ["x", "k"], ["y"])], "m",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
                              [numpy_helper.from_array(np.array([value], np.float32), "k")])
        return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    a, b = save(model(0.0), "zero.onnx"), save(model(1.0), "one.onnx")
    p = run("verify", a, b, "--json", ok=(1,))
    top = json.loads(p.stdout)
    assert top["reference"] == a and top["candidate"] == b and top["version"], top
    r = top["report"]
    out = r["outputs"][0]
    assert r["passed"] is False and out["max_rel"] is None and out["max_rel_nonfinite"] == "inf", r
    assert out["first_mismatch"] is not None and r["inputs"][0]["shape"] == [4], r
    assert "NaN matches NaN" in r["rule"]


if __name__ == "__main__":
    sys.exit(main(globals()))
