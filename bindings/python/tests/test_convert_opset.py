"""Model.convert_opset and simplify(target_opset=...): conversion up and down, verified by
execution, and the model left unchanged when a node has no adapter (issue 22, part 2)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import onnxforge
from shared_util import shared_model


def test_convert_opset_down_and_up_keeps_values() -> None:
    path = shared_model("bert_tiny_dirty")
    with onnxforge.load(path) as m, onnxforge.load(path) as original:
        assert m.opsets[""] == 13
        rep = m.convert_opset(11)
        assert m.opsets[""] == 11
        rewrites = json.loads(rep.json)["rewrites"]
        # Squeeze/Unsqueeze axes inputs became attributes again.
        assert any(r["op"] == "Unsqueeze" and "attribute" in r["what"] for r in rewrites)
        assert "verified by execution" in rep.passes[0].note
        m.convert_opset(17)
        assert m.opsets[""] == 17
        feeds = {"input_ids": np.array([[1, 5, 7, 2]], dtype=np.int64),
                 "attention_mask": np.ones((1, 4), dtype=np.int64)}
        a, b = original.run(feeds), m.run(feeds)
        for k in a:
            np.testing.assert_allclose(b[k], a[k], rtol=1e-4, atol=1e-5)


def test_not_convertible_leaves_the_model_unchanged() -> None:
    path = shared_model("gpt_tiny_dirty")  # opset 17
    with onnxforge.load(path) as m:
        before = m.node_count()
        with pytest.raises(onnxforge.InvalidArgumentError):
            m.convert_opset(6)
        with pytest.raises(TypeError):
            m.convert_opset("13")  # type: ignore[arg-type]
        assert m.opsets[""] == 17
        assert m.node_count() == before


def test_simplify_target_opset_up_fuses_layer_norm(tmp_path: Path) -> None:
    path = shared_model("bert_tiny_dirty")
    out = tmp_path / "bert17.onnx"
    onnxforge.simplify(path, out, target_opset=17)
    with onnxforge.load(out) as m:
        assert m.opsets[""] == 17
        # Raised to 17 first, the pipeline's layer norm fusion applied.
        assert any(k.endswith("LayerNormalization") for k in m.op_histogram())
    out11 = tmp_path / "bert11.onnx"
    onnxforge.simplify(path, out11, target_opset=11)
    with onnxforge.load(out11) as m:
        assert m.opsets[""] == 11
