"""Report.not_applied and Report.explain (issue 24, part 3 "why not"): why rules left nodes of the
demo model alone, each with pass, rule, node, op and reason; optimize(explain=False) skips it."""
from __future__ import annotations

import onnxforge


def test_not_applied_names_pass_node_and_reason() -> None:
    with onnxforge.demo() as m:
        r = m.optimize()
    na = r.not_applied
    assert {"pass": "fuse_pad_into_conv", "rule": "pad11_into_conv", "node": "Conv_0", "op": "Conv",
            "reason": "the data input is not a Pad read only by this Conv"} in na, na
    assert all(set(d) >= {"pass", "rule", "node", "op", "reason"} for d in na), na
    # A node a later pass removed is marked.
    gone = [d for d in na if d["node"] == "Transpose_9"]
    assert gone and all(d["in_output"] is False for d in gone), na
    assert [d["rule"] for d in r.explain("Conv_0")] == ["pad11_into_conv"]
    assert r.explain("no_such_node") == []


def test_explain_false_collects_nothing() -> None:
    with onnxforge.demo() as m:
        r = m.optimize(explain=False)
    assert r.not_applied == []
    assert r.nodes_after < r.nodes_before  # the passes still ran
