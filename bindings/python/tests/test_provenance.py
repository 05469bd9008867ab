"""Model.optimize(provenance=True, keep_names=True) (issue 24, part 2): the report's JSON carries
"provenance" (output node name -> original node names) and "folded"."""
from __future__ import annotations

import json

import onnxforge


def test_provenance_traces_every_node_of_the_demo() -> None:
    m = onnxforge.demo()
    before = m.node_count()
    r = json.loads(m.optimize(provenance=True).json)
    prov = r["provenance"]
    assert len(prov) == m.node_count() < before
    assert all(prov.values()), prov
    # Both Conv + BatchNormalization pairs became one Conv each, listing both nodes.
    convs = [k for k in prov if k.startswith("Conv")]
    assert len(convs) == 2, prov
    for k in convs:
        assert k in prov[k] and any(o.startswith("BatchNormalization") for o in prov[k]), prov[k]
    # The cancelled Transpose pair after the Clip is listed by the Clip.
    clip = [k for k in prov if k.startswith("Clip")][0]
    assert sum(o.startswith("Transpose") for o in prov[clip]) == 2, prov[clip]
    assert "folded" in r


def test_no_provenance_unless_asked() -> None:
    assert "provenance" not in json.loads(onnxforge.demo().optimize().json)


def test_keep_names_keeps_the_identity_before_logits() -> None:
    # The demo ends in Sub -> Identity -> "logits": without keep_names the Sub writes "logits".
    r = json.loads(onnxforge.demo().optimize(keep_names=True, provenance=True).json)
    assert any(k.startswith("Identity") for k in r["provenance"]), r["provenance"]
    plain = json.loads(onnxforge.demo().optimize(provenance=True).json)
    assert not any(k.startswith("Identity") for k in plain["provenance"]), plain["provenance"]
