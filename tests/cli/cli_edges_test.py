#!/usr/bin/env python3
"""Regression tests of issue 20's defects 4, 7 and 8: what happens at the command's edges.

- Defect 4: every place written to (OUT, OUT.data, --report FILE, --output-dir D) is checked
  before any work; when the command fails, no output it was asked for is left new or changed
  (a failed verification does not save OUT unless --keep-on-verify-failure); --output-dir is made.
- Defect 7: a given input that contradicts the declared input is a usage error naming the input,
  the declared and the given type, not an error of the model ("shapes cannot be broadcast").
- Defect 8: one line per error, one prefix, the path once, the status as a bracketed category at
  the end; unknown passes, commands and options get a "did you mean"; `verify A B` says up front
  which input of the two models differs and how.

Usage: cli_edges_test.py ONNXFORGE_CLI    (needs Debian's python3-onnx and python3-numpy)
"""
import json
import os
import re
import sys

from clitest import TMP, main, require_onnx, read, run, save

np, onnx, TensorProto, helper, numpy_helper = require_onnx()


def add_model(shape=(1, 3, 4, 4), dtype=TensorProto.FLOAT):
    """y = x + b, x declared with a fixed shape (the defect-7 model: an Add)."""
    b = numpy_helper.from_array(np.ones(shape, np.float32 if dtype == TensorProto.FLOAT else np.int64), "b")
    g = helper.make_graph([helper.make_node("Add", ["x", "b"], ["y"], name="/Add_2")], "add",
                          [helper.make_tensor_value_info("x", dtype, list(shape))],
                          [helper.make_tensor_value_info("y", dtype, list(shape))], [b])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def conv_bn_model():
    """Conv then BatchNormalization: folding the BN changes float rounding (verify with atol 0 fails)."""
    rng = np.random.default_rng(7)
    inits = [numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "w"),
             numpy_helper.from_array(rng.uniform(0.5, 2.0, 8).astype(np.float32), "scale"),
             numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "bias"),
             numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "mean"),
             numpy_helper.from_array(rng.uniform(0.1, 3.0, 8).astype(np.float32), "var")]
    g = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["y"])],
        "conv_bn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 16, 16])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def tensor_file(name, array, file):
    path = os.path.join(TMP, file)
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array, name).SerializeToString())
    return path


def state(path):
    """What a file is now (None when absent): bytes and modification time."""
    if not os.path.exists(path):
        return None
    return read(path), os.stat(path).st_mtime_ns


def one_line(p):
    """The error is one line with one 'onnxforge' prefix; returns it."""
    assert p.stderr.count("\n") == 1 and len(re.findall(r"onnxforge( [a-z]+)?: ", p.stderr)) == 1, repr(p.stderr)
    return p.stderr.strip()


# ------------------------------------------------------------------ defect 4: outputs

def test_report_into_a_missing_folder_fails_before_any_work():
    src, out = save(add_model(), "d4_src.onnx"), os.path.join(TMP, "d4_out.onnx")
    report = os.path.join(TMP, "nodir", "r.json")
    p = run("optimize", src, out, "--report", report, ok=(2,))
    assert one_line(p) == "onnxforge optimize: cannot write '%s': folder '%s' does not exist" % (
        report, os.path.join(TMP, "nodir")), p.stderr
    assert p.stdout == "", "work was done before the failure:\n" + p.stdout
    assert not os.path.exists(out), "OUT was written although the command failed"
    # An OUT that was there stays as it was.
    with open(out, "wb") as f:
        f.write(b"keep me")
    before = state(out)
    run("optimize", src, out, "--report", report, ok=(2,))
    assert state(out) == before


def test_out_into_a_missing_folder_or_onto_a_folder_fails_before_any_work():
    src = save(add_model(), "d4b_src.onnx")
    out = os.path.join(TMP, "nodir", "sub", "out.onnx")
    p = run("optimize", src, out, ok=(2,))
    assert "cannot write '%s': folder '%s' does not exist" % (out, os.path.dirname(out)) in one_line(p), p.stderr
    assert p.stdout == "", "the before/after table was printed before the failure:\n" + p.stdout
    p = run("optimize", src, TMP, ok=(2,))
    assert one_line(p) == "onnxforge optimize: cannot write '%s': it is a folder" % TMP, p.stderr
    # convert checks OUT before it reads IN (IN does not even exist here).
    p = run("convert", os.path.join(TMP, "no_such_in.onnx"), out, ok=(2,))
    assert "cannot write '%s'" % out in one_line(p) and "no_such_in" not in p.stderr, p.stderr
    # OUT.data beside OUT is checked too.
    os.makedirs(os.path.join(TMP, "d4b_out.onnx.data"), exist_ok=True)
    p = run("convert", src, os.path.join(TMP, "d4b_out.onnx"), "--external-data", ok=(2,))
    assert "d4b_out.onnx.data': it is a folder" in one_line(p), p.stderr
    assert not os.path.exists(os.path.join(TMP, "d4b_out.onnx"))


def test_a_report_that_cannot_be_written_takes_the_new_out_away():
    # /proc passes the folder checks for root but takes no new file: the report fails after the
    # save, and the OUT the run made is removed again (for other users the check refuses first).
    src, out = save(add_model(), "d4c_src.onnx"), os.path.join(TMP, "d4c_out.onnx")
    p = run("optimize", src, out, "--report", "/proc/ofg_report.json", ok=(2,))
    assert "cannot write '/proc/ofg_report.json'" in p.stderr, p.stderr
    assert not os.path.exists(out), "a new OUT was left by a failed run"


def test_failed_verification_leaves_no_out_unless_asked():
    src = save(conv_bn_model(), "d4d_src.onnx")
    out, report = os.path.join(TMP, "d4d_out.onnx"), os.path.join(TMP, "d4d_report.json")
    strict = ("--verify", "--atol", "0", "--rtol", "0")
    p = run("optimize", src, out, *strict, "--report", report, ok=(1,))
    assert "verification did not pass; %s was not written" % out in p.stderr, p.stderr
    assert not os.path.exists(out)
    # The report records why (it is written on exit 1).
    r = json.load(open(report))
    assert r["exit_code"] == 1 and r["output_written"] is False and r["verify"]["passed"] is False, r
    # An existing OUT is not changed either.
    with open(out, "wb") as f:
        f.write(b"previous result")
    before = state(out)
    run("optimize", src, out, *strict, ok=(1,))
    assert state(out) == before
    # Asked for: saved, exit still 1.
    run("optimize", src, out, *strict, "--keep-on-verify-failure", ok=(1,))
    assert state(out) != before and onnx.load(out).graph.node
    p = run("optimize", src, out, "--keep-on-verify-failure", ok=(2,))
    assert "--keep-on-verify-failure goes with --verify" in p.stderr


def test_run_output_dir_is_made_and_taken_away_when_the_run_fails():
    src = save(add_model(), "d4e.onnx")
    good = tensor_file("x", np.ones((1, 3, 4, 4), np.float32), "d4e_x.pb")
    outs = os.path.join(TMP, "outs", "deeper")
    run("run", src, "--input", "x=" + good, "--output-dir", outs)
    y = onnx.TensorProto()
    y.ParseFromString(read(os.path.join(outs, "output_0.pb")))
    assert y.name == "y" and np.all(numpy_helper.to_array(y) == 2.0)
    # A run that fails leaves no folder it made.
    bad = tensor_file("x", np.ones((1, 3, 5), np.float32), "d4e_bad.pb")
    fresh = os.path.join(TMP, "outs_fresh", "a")
    run("run", src, "--input", "x=" + bad, "--output-dir", fresh, ok=(2,))
    assert not os.path.exists(os.path.join(TMP, "outs_fresh")), "a failed run left the folder it made"


# ------------------------------------------------------------------ defect 7: inputs at the door

def test_input_of_the_wrong_shape_is_a_usage_error_naming_it():
    src = save(add_model(), "d7.onnx")
    bad = tensor_file("x", np.ones((1, 3, 5), np.float32), "d7_bad.pb")
    expected = "input 'x': given float32[1,3,5] but the model declares float32[1,3,4,4]"
    p = run("run", src, "--input", "x=" + bad, ok=(2,))
    assert one_line(p) == "onnxforge run: %s [invalid argument]" % expected, p.stderr
    assert "broadcast" not in p.stderr and "invalid model" not in p.stderr
    p = run("verify", src, src, "--input", "x=" + bad, ok=(2,))
    assert one_line(p) == "onnxforge verify: %s: %s [invalid argument]" % (bad, expected), p.stderr
    p = run("optimize", src, os.path.join(TMP, "d7_out.onnx"), "--verify", "--input", "x=" + bad, ok=(2,))
    assert expected in p.stderr and not os.path.exists(os.path.join(TMP, "d7_out.onnx")), p.stderr
    wrong_type = tensor_file("x", np.ones((1, 3, 4, 4), np.int64), "d7_int.pb")
    p = run("run", src, "--input", "x=" + wrong_type, ok=(2,))
    assert "given int64[1,3,4,4] but the model declares float32[1,3,4,4]" in one_line(p), p.stderr
    p = run("optimize", src, os.path.join(TMP, "d7_out.onnx"), "--verify", "--input", "xx=" + bad, ok=(2,))
    assert one_line(p) == ("onnxforge optimize: --input xx: the model has no input 'xx' (did you mean 'x'?; "
                           "its inputs: x)"), p.stderr
    assert p.stdout == "", "the unknown name was found only after the passes ran:\n" + p.stdout
    p = run("run", src, "--input", "xx=" + bad, ok=(2,))
    assert one_line(p) == ("onnxforge run: --input xx: the model has no input 'xx' (did you mean 'x'?; "
                           "its inputs: x)"), p.stderr


def test_inputs_drawn_beside_a_given_one_take_its_sizes():
    g = helper.make_graph([helper.make_node("Add", ["x", "y"], ["z"])], "xy",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3]),
                           helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])],
                          [helper.make_tensor_value_info("z", TensorProto.FLOAT, ["N", 3])])
    src = save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "d7_xy.onnx")
    x5 = tensor_file("x", np.ones((5, 3), np.float32), "d7_x5.pb")
    p = run("verify", src, src, "--input", "x=" + x5)
    assert "[5,3]              seed 0" in p.stdout, p.stdout  # y drawn with N = 5
    p = run("verify", src, src, "--input", "x=" + x5, "--dim", "N=2", ok=(2,))
    assert one_line(p) == ("onnxforge verify: --dim N is 2, but input 'x' is given float32[5,3] (%s) where the model "
                           "declares float32[N,3] [invalid argument]" % x5), p.stderr


def test_sequence_input_elements_are_checked_too():
    seq_t = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, ["N"]))
    g = helper.make_graph([helper.make_node("SequenceLength", ["s"], ["n"])], "seq",
                          [helper.make_value_info("s", seq_t)], [helper.make_tensor_value_info("n", TensorProto.INT64, [])])
    src = save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "d7_seq.onnx")

    def seq_file(arrays, file):
        path = os.path.join(TMP, file)
        with open(path, "wb") as f:
            f.write(numpy_helper.from_list(arrays, "s").SerializeToString())
        return path
    # Elements of several lengths fit a symbolic dim; a rank-2 element does not.
    p = run("run", src, "--input", "s=" + seq_file([np.ones(3, np.float32), np.ones(2, np.float32)], "seq_ok.pb"))
    assert "n: int64 []" in p.stdout, p.stdout
    bad = seq_file([np.ones(3, np.float32), np.ones((2, 2), np.float32)], "seq_bad.pb")
    p = run("run", src, "--input", "s=" + bad, ok=(2,))
    assert one_line(p) == ("onnxforge run: input 's': given a sequence whose element 1 is float32[2,2] but the model "
                           "declares sequence of float32[N] [invalid argument]"), p.stderr


# ------------------------------------------------------------------ defect 8: messages

def test_path_once_and_the_status_as_a_category():
    empty = os.path.join(TMP, "empty.onnx")
    open(empty, "wb").close()
    p = run("inspect", empty, ok=(2,))
    assert one_line(p) == "onnxforge inspect: %s: the model is empty (0 bytes) [malformed ONNX protobuf]" % empty, p.stderr
    p = run("verify", empty, empty, ok=(2,))
    assert p.stderr.count(empty) == 1 and p.stderr.startswith("onnxforge verify: "), p.stderr


def test_unknown_names_get_the_nearest_one():
    src, out = save(add_model(), "d8.onnx"), os.path.join(TMP, "d8_out.onnx")
    p = run("optimize", src, out, "--passes", "nosuchpass", ok=(2,))
    line = one_line(p)
    assert line == "onnxforge optimize: --passes: unknown pass 'nosuchpass' (onnxforge passes lists them)", line
    assert "ofg_options_set" not in line and "optimize.passes" not in line
    p = run("optimize", src, out, "--skip", "eliminate_dead_nodes,fuse_gelo", ok=(2,))
    assert one_line(p) == ("onnxforge optimize: --skip: unknown pass 'fuse_gelo' (did you mean 'fuse_gelu'?; "
                           "onnxforge passes lists them)"), p.stderr
    assert not os.path.exists(out)
    p = run("optimise", src, out, ok=(2,))
    assert one_line(p) == ("onnxforge: unknown command 'optimise' (did you mean 'optimize'?; onnxforge help lists "
                           "the commands)"), p.stderr
    p = run("optimize", src, out, "--verfy", ok=(2,))
    assert one_line(p) == ("onnxforge optimize: unknown option '--verfy' (did you mean '--verify'?; onnxforge help "
                           "optimize lists them)"), p.stderr
    p = run("verify", src, src, "--samples", "0", ok=(2,))
    assert "--samples takes a positive count, got '0'" in one_line(p) and "verify.samples" not in p.stderr, p.stderr


def test_verify_says_its_error_once():
    # Reshape to [7, 3] takes 21 elements: no seeded size fits, exit 3.
    g = helper.make_graph([helper.make_node("Reshape", ["x", "s"], ["y"])], "r",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N"])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(np.array([7, 3], np.int64), "s")])
    path = save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "d8_r21.onnx")
    p = run("verify", path, path, ok=(3,))
    line = one_line(p)
    assert line.startswith("onnxforge verify: cannot build inputs that the model accepts"), line
    assert "verify: verify:" not in line and line.endswith("[cannot build inputs that the model accepts]"), line


def test_verify_says_up_front_which_input_differs():
    a = save(add_model((1, 3, 4, 4)), "d8_a.onnx")
    b = save(add_model((1, 3, 8, 8)), "d8_b.onnx")
    c = save(add_model((1, 3, 4, 4), TensorProto.INT64), "d8_c.onnx")
    p = run("verify", a, b, ok=(2,))
    assert one_line(p) == ("onnxforge verify: the models' inputs differ: input 'x' is float32[1,3,4,4] in %s but "
                           "float32[1,3,8,8] in %s (another size of dim 2)" % (a, b)), p.stderr
    p = run("verify", a, c, ok=(2,))
    assert "input 'x' is float32[1,3,4,4] in %s but int64[1,3,4,4] in %s (another element type)" % (a, c) \
        in one_line(p), p.stderr
    # Renamed: each has an input the other lacks.
    renamed = add_model()
    renamed.graph.input[0].name = "image"
    renamed.graph.node[0].input[0] = "image"
    r = save(renamed, "d8_renamed.onnx")
    p = run("verify", a, r, ok=(2,))
    assert one_line(p) == "onnxforge verify: the models' inputs differ: %s has 'x', %s has 'image' instead" % (a, r), \
        p.stderr
    # A size B fixes where A has a symbol is the size verify uses.
    sym = helper.make_model(helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "s", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])]), opset_imports=[helper.make_opsetid("", 13)])
    fixed = helper.make_model(helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "f", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [5, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [5, 3])]), opset_imports=[helper.make_opsetid("", 13)])
    p = run("verify", save(sym, "d8_sym.onnx"), save(fixed, "d8_fixed.onnx"))
    assert "N=5" in p.stdout and "[5,3]" in p.stdout, p.stdout


if __name__ == "__main__":
    sys.exit(main(globals()))
