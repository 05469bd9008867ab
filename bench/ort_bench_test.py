"""Checks of bench/ort_bench.py's --optimize: what bench_run is given.
    /usr/bin/python3 -m pytest -q bench/ort_bench_test.py   (ONNXFORGE_BUILD: the build folder, default build/)
Skips without the onnx module or without a built onnxforge CLI."""
import os
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
onnx = pytest.importorskip("onnx")
import numpy as np  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import ort_bench  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("ONNXFORGE_BUILD", os.path.join(HERE, "..", "build"))


def conv_bn_model(path):
    """x -> Conv -> BatchNormalization: the unfolded shape of the *_dirty models."""
    r = np.random.default_rng(1)
    inits = [numpy_helper.from_array(a.astype(np.float32), n) for n, a in (
        ("w", r.standard_normal((4, 3, 3, 3))), ("s", r.uniform(0.5, 1.5, 4)), ("b", r.standard_normal(4)),
        ("m", r.standard_normal(4)), ("v", r.uniform(0.5, 1.5, 4)))]
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c", "s", "b", "m", "v"], ["y"])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


def test_optimize_gives_bench_run_the_optimized_model(monkeypatch):
    if not os.path.exists(os.path.join(BUILD, "onnxforge")):
        pytest.skip("no onnxforge CLI in %s (set ONNXFORGE_BUILD)" % BUILD)
    with tempfile.TemporaryDirectory() as work:
        model = os.path.join(work, "model.onnx")
        conv_bn_model(model)
        monkeypatch.setattr(ort_bench, "OPTIMIZE", False)
        assert ort_bench.onnxforge_model(BUILD, model, work) == model  # as given
        monkeypatch.setattr(ort_bench, "OPTIMIZE", True)
        mine = ort_bench.onnxforge_model(BUILD, model, work)
        assert mine != model
        ops = [n.op_type for n in onnx.load(mine).graph.node]
        assert ops == ["Conv"], ops  # the BatchNormalization folded into the Conv


def test_optimize_flag_is_parsed():
    ort_bench.parse_args(["build", "--optimize"])
    assert ort_bench.OPTIMIZE is True
    ort_bench.parse_args(["build"])
    assert ort_bench.OPTIMIZE is False
