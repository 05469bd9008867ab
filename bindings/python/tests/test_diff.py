"""onnxforge.diff (issue 24, part 4): identical models, provenance given as a dict, a Report or a
report file, the fallback without it, and bad provenance raising InvalidArgumentError."""
from __future__ import annotations

import json

import pytest

import onnxforge
from shared_util import shared_model


def test_identical_models() -> None:
    with onnxforge.demo() as a, onnxforge.demo() as b:
        d = onnxforge.diff(a, b)
        assert d["identical"] is True and d["provenance"] is False
        assert d["summary"]["same"] == d["summary"]["a_nodes"] == d["summary"]["b_nodes"] > 0
        assert d["nodes"]["changed"] == [] and d["op_counts"] == []


def test_optimized_model_with_and_without_provenance(tmp_path) -> None:
    src = shared_model("resnet18_dirty")
    with onnxforge.load(src) as b:
        report = b.optimize()
        d = onnxforge.diff(src, b)  # a path and a Model
        s = d["summary"]
        assert d["identical"] is False
        assert s["b_matched"] == s["b_nodes"] > 0 and s["added"] == 0, s
        assert s["fused"] == 20, s  # each BatchNormalization into its Conv
        assert {"op": "BatchNormalization", "a": 20, "b": 0} in d["op_counts"]
        fused = d["nodes"]["fused"][0]
        assert [n["op"] for n in fused["a"]] == ["Conv", "BatchNormalization"] and fused["b"]["op"] == "Conv", fused
        if '"provenance"' in report.json:  # once optimize's report carries it
            dp = onnxforge.diff(src, b, provenance=report)
            assert dp["provenance"] is True and dp["summary"]["b_matched"] == dp["summary"]["b_nodes"]
        # A hand-written provenance: the first fused B node from its two A nodes.
        names = [n["name"] for n in fused["a"]]
        prov = {fused["b"]["name"]: names}
        for given in (prov, {"optimize": {"provenance": prov}}):
            dp = onnxforge.diff(src, b, provenance=given)
            assert dp["provenance"] is True and dp["summary"]["matched_by"]["provenance"] == 1, dp["summary"]
            f = [g for g in dp["nodes"]["fused"] if g["how"] == "provenance"]
            assert [[n["name"] for n in g["a"]] for g in f] == [names]
        path = tmp_path / "report.json"
        path.write_text(json.dumps({"provenance": prov}))
        assert onnxforge.diff(src, b, provenance=path)["summary"]["matched_by"]["provenance"] == 1


def test_bad_provenance_raises() -> None:
    with onnxforge.demo() as a:
        with pytest.raises(onnxforge.InvalidArgumentError, match="provenance"):
            onnxforge.diff(a, a, provenance={"passes": []})
        with pytest.raises(TypeError):
            onnxforge.diff(a, a, provenance=3)
