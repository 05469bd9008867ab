"""Checks of bench/op_bench.py that need neither a build nor ONNX Runtime:
    /usr/bin/python3 -m pytest -q bench/op_bench_test.py
The grid builds valid models covering every op family issue 25 lists, and the report computes the
per-op median and worst ratio and flags the targets (a point above 2x, an op median above 1.2x) and
the refusals, which must be listed and never dropped."""
import contextlib
import io
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
onnx = pytest.importorskip("onnx")
import op_bench  # noqa: E402
import op_cases  # noqa: E402

ISSUE_OPS = ["Conv", "ConvTranspose", "MatMul", "Gemm", "MaxPool", "AveragePool", "GlobalAveragePool", "Resize",
             "GridSample", "Einsum", "LSTM", "GRU", "RNN", "Attention", "LayerNormalization", "RMSNormalization",
             "GroupNormalization", "InstanceNormalization", "Softmax", "LogSoftmax", "ReduceMean", "ReduceSum",
             "Transpose", "Gather", "ScatterND", "Concat", "Split", "Slice", "Pad", "Cast", "QLinearConv",
             "QLinearMatMul", "MatMulInteger", "ConvInteger", "DequantizeLinear"]


def test_grid_covers_the_issue_and_labels_are_unique():
    c = op_cases.cases()
    ops = {op.split("(")[0] for op, _, _ in c}
    assert [o for o in ISSUE_OPS if o not in ops] == []
    keys = [(op, label) for op, label, _ in c]
    assert len(keys) == len(set(keys))
    assert len(c) < 120  # the whole run must stay near 10 minutes on 2 cores


@pytest.mark.parametrize("case", op_cases.cases(), ids=lambda c: c[0] + "/" + c[1])
def test_every_case_is_a_valid_model_with_its_inputs(case):
    op, _, build = case
    m, inputs = build()
    if max(o.version for o in m.opset_import) > onnx.defs.onnx_opset_version():
        pytest.skip("onnx %s predates opset %d" % (onnx.__version__, max(o.version for o in m.opset_import)))
    # The outputs are declared by type only; strict shape inference must fill in their shapes.
    inferred = onnx.shape_inference.infer_shapes(m, strict_mode=True)
    assert all(o.type.tensor_type.HasField("shape") for o in inferred.graph.output)
    onnx.checker.check_model(inferred, full_check=True)
    assert [i.name for i in m.graph.input] == [n for n, _ in inputs]
    assert op.split("(")[0] in {n.op_type for n in m.graph.node} or op.startswith("Attention(")
    assert m.graph.node and all(n for n in m.graph.output)


def rows():
    mk = lambda op, label, r1, r2: {"op": op, "label": label, "ratio_t1": r1, "ratio_t2": r2,  # noqa: E731
                                    "ofg_t1_ms": 1.0, "ort_t1_ms": 1.0, "ofg_t2_ms": 1.0, "ort_t2_ms": 1.0,
                                    "match": (0.0, True)}
    return [mk("Conv", "a", 0.8, 0.9), mk("Conv", "b", 2.5, 1.1), mk("Conv", "c", 1.3, 1.0),
            mk("Softmax", "d", 0.5, 0.6),
            {"op": "Attention", "label": "op23", "onnxforge_error": "Attention: unsupported op"}]


def test_summary_median_worst_and_refusals():
    ops = {s["op"]: s for s in op_bench.summarize(rows(), 2)}
    assert ops["Conv"]["median_t1"] == pytest.approx(1.3)
    assert ops["Conv"]["worst_t1"] == (2.5, "b")
    assert ops["Conv"]["worst_t2"] == (1.1, "b")
    assert ops["Attention"]["points"] == 1 and ops["Attention"]["refused"][0]["label"] == "op23"
    assert "median_t1" not in ops["Attention"]


def test_report_flags_targets_and_lists_refusals():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        op_bench.print_report(rows(), op_bench.summarize(rows(), 2), 2,
                              {"runs": 5, "rounds": 3, "verbose": True})
    text = out.getvalue()
    conv = [ln for ln in text.splitlines() if ln.startswith("Conv ") and "points" not in ln][-1]
    assert "!>2x(1t)" in conv and "!>1.2x(1t)" in conv and "(2t)" not in conv
    soft = [ln for ln in text.splitlines() if ln.startswith("Softmax")][-1]
    assert "!>" not in soft
    assert "onnxforge refuses (Attention: unsupported op)" in text
    assert "1 thread: median of op medians" in text and "1 grid points above 2x" in text
