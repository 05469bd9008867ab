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
    # The demo's nodes are unnamed: origins are "#k" (walk order), output nodes got names.
    assert len(prov) == m.node_count() < before
    originals = {"#%d" % k for k in range(before)}
    assert all(v and set(v) <= originals for v in prov.values()), prov
    # Two Conv+BatchNormalization pairs became two Convs, each from two original nodes.
    convs = [k for k in prov if k.startswith("Conv_ofg")]
    assert len(convs) == 2 and all(len(prov[k]) >= 2 for k in convs), prov
    assert "folded" in r


def test_no_provenance_unless_asked() -> None:
    assert "provenance" not in json.loads(onnxforge.demo().optimize().json)


def test_keep_names_keeps_logits_producer_name() -> None:
    # The demo ends in Identity -> "logits": without keep_names the Sub before it writes "logits".
    m = onnxforge.demo()
    r = json.loads(m.optimize(keep_names=True, provenance=True).json)
    assert any(k.startswith("Identity_ofg") for k in r["provenance"]), r["provenance"]
    plain = json.loads(onnxforge.demo().optimize(provenance=True).json)
    assert not any(k.startswith("Identity_ofg") for k in plain["provenance"]), plain["provenance"]
