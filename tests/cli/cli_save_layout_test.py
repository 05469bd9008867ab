#!/usr/bin/env python3
"""What `convert` and `optimize` leave on disk (issue 20, defects 1 and 3), on small models.

- A model with external data is saved with external data (OUT.data) without --external-data,
  and the command says where the weights went; in place too, with the same weights after.
- An in-place run keeps the file's mode (640 stays 640); a symlinked OUT stays a link and the
  file it points to is replaced.
- Nothing else is left in the folder.

Usage: cli_save_layout_test.py ONNXFORGE_CLI    (needs Debian's python3-onnx and python3-numpy)
"""
import os
import stat
import sys

from clitest import TMP, main, require_onnx, run

np, onnx, TensorProto, helper, numpy_helper = require_onnx()


def folder(name):
    d = os.path.join(TMP, name)
    os.mkdir(d)
    return d


def matmul_model(path, external):
    """y = x @ w, w float[64, 32] (8 KiB), with w in PATH.data when `external`."""
    w = np.arange(64 * 32, dtype=np.float32).reshape(64, 32) / 7
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32])],
                          [numpy_helper.from_array(w, "w")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    if external:
        onnx.save(m, path, save_as_external_data=True, location=os.path.basename(path) + ".data", size_threshold=0)
    else:
        onnx.save(m, path)
    return w


def weights(path):
    m = onnx.load(path)
    return {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}, m


def is_external(path):
    """The saved layout (onnx.load with external data reset data_location once it read them)."""
    m = onnx.load(path, load_external_data=False)
    return any(t.data_location == TensorProto.EXTERNAL for t in m.graph.initializer)


def test_external_layout_kept_by_convert_and_optimize():
    d = folder("layout")
    src = os.path.join(d, "in.onnx")
    w = matmul_model(src, external=True)
    for cmd in ("convert", "optimize"):
        out = os.path.join(d, cmd + ".onnx")
        p = run(cmd, src, out)
        assert "weights written to %s.data" % out in p.stdout, p.stdout
        got, m = weights(out)
        assert is_external(out), cmd
        assert np.array_equal(got["w"], w), cmd
    assert sorted(os.listdir(d)) == ["convert.onnx", "convert.onnx.data", "in.onnx", "in.onnx.data",
                                     "optimize.onnx", "optimize.onnx.data"], os.listdir(d)


def test_inline_model_stays_inline_and_says_nothing():
    d = folder("inline")
    src = os.path.join(d, "in.onnx")
    matmul_model(src, external=False)
    out = os.path.join(d, "out.onnx")
    p = run("convert", src, out)
    assert "weights written" not in p.stdout, p.stdout
    assert sorted(os.listdir(d)) == ["in.onnx", "out.onnx"]
    p = run("convert", src, out, "--external-data")
    assert "weights written to %s.data" % out in p.stdout and "save.external_data=1" in p.stdout, p.stdout
    assert is_external(out)


def test_in_place_keeps_mode_and_weights():
    d = folder("inplace")
    for external in (False, True):
        for cmd in ("convert", "optimize"):
            path = os.path.join(d, "m.onnx")
            w = matmul_model(path, external)
            os.chmod(path, 0o640)
            if external:
                os.chmod(path + ".data", 0o600)
            run(cmd, path, path)
            assert stat.S_IMODE(os.stat(path).st_mode) == 0o640, (cmd, external, oct(os.stat(path).st_mode))
            if external:
                assert stat.S_IMODE(os.stat(path + ".data").st_mode) == 0o600, (cmd, oct(os.stat(path + ".data").st_mode))
            got, m = weights(path)
            assert is_external(path) == external, (cmd, external)
            assert np.array_equal(got["w"], w), (cmd, external)
            assert sorted(os.listdir(d)) == (["m.onnx", "m.onnx.data"] if external else ["m.onnx"]), os.listdir(d)
            for f in os.listdir(d):
                os.remove(os.path.join(d, f))


def test_symlinked_output_replaces_its_target():
    d = folder("links")
    os.mkdir(os.path.join(d, "store"))
    real = os.path.join(d, "store", "real.onnx")
    w = matmul_model(real, external=False)
    os.chmod(real, 0o640)
    link = os.path.join(d, "link.onnx")
    os.symlink("store/real.onnx", link)
    run("optimize", link, link)
    assert os.path.islink(link)
    assert stat.S_IMODE(os.stat(real).st_mode) == 0o640
    got, _ = weights(real)
    assert np.array_equal(got["w"], w)
    assert sorted(os.listdir(d)) == ["link.onnx", "store"] and os.listdir(os.path.join(d, "store")) == ["real.onnx"]


if __name__ == "__main__":
    sys.exit(main(globals()))
