"""Model.convert_float and simplify(..., to_float16=True) (issue 22, precision conversion)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import onnxforge
from demo_util import demo_bytes, demo_input


@pytest.mark.parametrize("dtype,tol", [("float16", 1e-2), ("bfloat16", 1.5e-1)])
def test_convert_float_verifies_keeps_io_float32_and_matches_the_float32_model(dtype: str, tol: float) -> None:
    original = demo_bytes()
    with onnxforge.load(original) as ref, onnxforge.load(original) as m:
        report = m.convert_float(dtype)
        r = json.loads(report.json)
        assert r["target"] == dtype and r["verified"] is True
        assert r["casts_added"] >= 2  # one at the input, one at the output
        f = demo_input(ref)
        a, e = m.run(f), ref.run(f)
        for k in e:
            assert a[k].dtype == np.float32
            np.testing.assert_allclose(a[k], e[k], rtol=tol, atol=tol)


def test_convert_float_blocked_ops_are_listed_with_their_reason() -> None:
    with onnxforge.load(demo_bytes()) as m:
        report = m.convert_float("float16", block_ops=["Conv"])
        kept = json.loads(report.json)["kept_float32"]
        assert kept and all(k["op"] == "Conv" and k["reason"] == "blocked by user (block_ops)" for k in kept)


def test_convert_float_rejects_a_bad_dtype() -> None:
    with onnxforge.load(demo_bytes()) as m:
        with pytest.raises(ValueError):
            m.convert_float("float8")


def test_simplify_to_float16_halves_the_weights() -> None:
    original = demo_bytes()
    out = onnxforge.simplify(original, to_float16=True)
    plain = onnxforge.simplify(original)
    # The demo's file is mostly graph structure: its weights halve, the file shrinks less.
    with onnxforge.load(plain) as p:
        plain_bytes = p.initializer_stats()[1]
    assert len(out) < len(plain)
    with onnxforge.load(out) as m:
        assert m.initializer_stats()[1] <= 0.55 * plain_bytes
        assert m.inputs[0].elem_type == 1  # float32 kept at the boundary
