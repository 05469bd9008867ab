"""onnxforge.targets() and Model.check_target (issue 24, part 1): the built-in profiles with their
sources, a check that finds nothing on a model a target takes and names node and rule where it does
not, and an unknown name raising InvalidArgumentError that lists the known ones."""
from __future__ import annotations

import json

import pytest

import onnxforge
from shared_util import shared_model


def test_targets_name_their_sources() -> None:
    ts = {t.name: t for t in onnxforge.targets()}
    assert sorted(ts) == ["coreml-ort", "openvino", "qnn", "rknn", "tensorrt"]
    trt = ts["tensorrt"]
    assert (trt.opset_min, trt.opset_max) == (9, 20)
    assert trt.url.startswith("https://github.com/onnx/onnx-tensorrt/")
    assert "10.1-GA" in trt.version
    assert ts["rknn"].opset_max == 19
    assert all(t.ops > 40 and t.source for t in ts.values())


def test_demo_model_is_legal_for_its_own_opset() -> None:
    with onnxforge.demo() as m:
        r = m.check_target("opset:13")
        assert r and r.findings == [] and r.illegal_nodes == 0
        assert r.nodes > 0 and r.model_opset == 13
        assert json.loads(r.json)["legal"] is True
        r17 = m.check_target("opset:17")
        assert not r17
        assert [f.rule for f in r17.findings] == ["model_opset"] and r17.illegal_nodes == 0


def test_llama_findings_name_node_and_rule() -> None:
    with onnxforge.load(shared_model("llama_tiny_dirty")) as m:
        r = m.check_target("coreml-ort")
        assert not r and r.illegal_nodes > 0
        gathers = [f for f in r.findings if f.op == "Gather"]
        assert gathers and all(f.rule == "op" and f.node for f in gathers)
        assert "Gather is not supported by coreml-ort" in gathers[0].message
        assert m.check_target("openvino").illegal_nodes == 0


def test_unknown_target_lists_the_known_ones() -> None:
    with onnxforge.demo() as m:
        with pytest.raises(onnxforge.InvalidArgumentError, match="known targets: coreml-ort, openvino, qnn, rknn, tensorrt"):
            m.check_target("tensorrt-10")
        with pytest.raises(TypeError):
            m.check_target(17)  # type: ignore[arg-type]
