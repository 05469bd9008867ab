"""Model.legalize_for_target (issue 24, part 1): a LayerNormalization model at opset 17 legalised
for opset:13 is lowered, verified and legal; a node no rewrite fixes is named in findings (not an
error); an unknown target raises InvalidArgumentError; a shared model keeps illegal_after <=
illegal_before."""
from __future__ import annotations

import json

import pytest

import onnxforge
from shared_util import shared_model


def _layer_norm_model_bytes() -> bytes:
    onnx = pytest.importorskip("onnx")
    np = pytest.importorskip("numpy")
    from onnx import TensorProto, helper, numpy_helper
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 8])
    g = numpy_helper.from_array(np.linspace(0.5, 2.0, 8).astype(np.float32), "g")
    b = numpy_helper.from_array(np.linspace(-1.0, 1.0, 8).astype(np.float32), "b")
    node = helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"], name="ln0", axis=-1, epsilon=1e-5)
    gr = helper.make_graph([node], "g", [x], [y], [g, b])
    return onnx.helper.make_model(gr, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def test_layer_norm_lowered_for_opset13(tmp_path) -> None:
    p = tmp_path / "ln.onnx"
    p.write_bytes(_layer_norm_model_bytes())
    with onnxforge.load(p) as m:
        r = m.legalize_for_target("opset:13")
        assert r and r.findings == []
        assert (r.opset_before, r.opset_after, r.illegal_before, r.illegal_after) == (17, 13, 1, 0)
        assert r.verified.startswith("verified by execution")
        assert any(w["op"] == "LayerNormalization" for w in r.rewrites)
        assert json.loads(r.json)["legal"] is True
        assert m.check_target("opset:13").illegal_nodes == 0


def test_llama_for_coreml_names_what_is_left() -> None:
    with onnxforge.load(shared_model("llama_tiny_dirty")) as m:
        m.optimize()
        before = m.check_target("coreml-ort").illegal_nodes
        r = m.legalize_for_target("coreml-ort")
        assert not r and r.illegal_after <= r.illegal_before == before
        assert any(f.op == "Gather" and f.rule == "op" for f in r.findings)


def test_unknown_target() -> None:
    with onnxforge.demo() as m:
        with pytest.raises(onnxforge.InvalidArgumentError, match="known targets"):
            m.legalize_for_target("tensorrt-10")
        with pytest.raises(TypeError):
            m.legalize_for_target(13)  # type: ignore[arg-type]
