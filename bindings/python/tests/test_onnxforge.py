"""Tests of the Python package (run by ctest as python_binding; skipped without pytest/numpy)."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import weakref
from pathlib import Path

import numpy as np
import pytest

import onnxforge

ROOT = Path(__file__).resolve().parents[3]


def data_dir() -> Path:
    return Path(os.environ.get("ONNXFORGE_DATA") or ROOT.parent / "shared")


def shared_model(name: str) -> Path:
    d = data_dir() / "models" / name
    if not (d / "model.onnx").exists():
        pytest.skip(f"shared model {name} not found under {data_dir()} (set ONNXFORGE_DATA)")
    return d


def test_version_and_passes() -> None:
    assert onnxforge.version().count(".") == 2
    ps = onnxforge.passes()
    assert len(ps) > 5
    names = {p.name for p in ps}
    assert "fuse_conv_batchnorm" in names
    assert all(p.accuracy_class in (0, 1, 2) and p.description for p in ps)
    assert any(p.default for p in ps)


def test_demo_queries() -> None:
    with onnxforge.demo() as m:
        (inp,) = m.inputs
        assert inp.name == "image" and inp.dtype == "float32" and inp.kind == "tensor"
        assert inp.shape == ("batch", 3, 16, 16)
        assert m.outputs[0].shape == ("batch", 10)
        assert m.opsets == {"": 13}
        assert m.producer[0] == "onnxforge-demo"
        hist = m.op_histogram()
        assert sum(hist.values()) == m.node_count() and hist["BatchNormalization"] == 2
        count, nbytes = m.initializer_stats()
        assert count > 0 and nbytes > 1000
        info = m.info()
        json.dumps(info)
        assert info["nodes"] == m.node_count()
    assert m.closed
    with pytest.raises(onnxforge.InvalidArgumentError):
        m.node_count()


def test_optimize_max_rewrites_lists_the_rewrites() -> None:
    # The demo folds two BatchNormalization nodes into their Conv (among other rewrites): a
    # budget of 1 makes exactly one rewrite and the report names it.
    full = json.loads(onnxforge.demo().optimize(max_rewrites=1000).json)
    assert full["rewrites_made"] == len(full["rewrites"]) >= 2
    m = onnxforge.demo()
    before = m.node_count()
    r = json.loads(m.optimize(max_rewrites=1).json)
    assert r["rewrites_made"] == 1 and r["rewrites"] == full["rewrites"][:1]
    assert json.loads(onnxforge.demo().optimize(max_rewrites=0).json)["rewrites_made"] == 0
    z = onnxforge.demo()
    z.optimize(max_rewrites=0)
    assert z.node_count() == before


def test_optimize_with_verification_report() -> None:
    m = onnxforge.demo()
    before = m.node_count()
    r = m.optimize(verify=True, samples=2)
    assert r.nodes_before == before and r.nodes_after == m.node_count() < before
    assert r.passes and all(isinstance(p.name, str) for p in r.passes)
    assert any(p.name == "fuse_conv_batchnorm" and p.changes == 2 for p in r.passes)
    assert r.verify is not None and r.verify.passed and r.ok and r.verify.samples == 2
    assert r.verify.outputs[0].name == "logits" and r.verify.outputs[0].elements > 0
    assert r.verify.inputs[0].name == "image" and r.verify.inputs[0].source.startswith("seed")
    assert json.loads(r.json)["nodes_after"] == r.nodes_after
    assert "PASSED" in r.summary()


def test_optimize_subset_skip_and_shapes() -> None:
    m = onnxforge.demo()
    r = m.optimize(passes=["eliminate_identity_ops"], input_shapes={"image": [1, 3, 16, 16]})
    # A subset of passes is followed by the exact sweep of the weights it left unused.
    assert {p.name for p in r.passes} == {"eliminate_identity_ops", "eliminate_unused_initializers"}
    assert m.outputs[0].shape[0] == 1  # the fixed input shape reaches the declared output
    assert m.inputs[0].shape == (1, 3, 16, 16)
    m2 = onnxforge.demo()
    r2 = m2.optimize(skip=["fuse_conv_batchnorm"])
    assert "fuse_conv_batchnorm" not in {p.name for p in r2.passes}
    assert m2.op_histogram().get("BatchNormalization") == 2


def test_load_from_bytes_survives_freeing_the_bytes(tmp_path: Path) -> None:
    reference = onnxforge.demo().to_bytes()
    data = bytes(bytearray(reference))  # a fresh object only this test holds
    m = onnxforge.load(data)
    del data
    gc.collect()
    # Allocate and fill memory the freed bytes may be reused for.
    junk = [bytes([i % 251]) * len(reference) for i in range(16)]
    path = tmp_path / "from_bytes.onnx"
    m.save(path)
    del junk
    assert path.read_bytes() == reference
    again = onnxforge.load(path)
    assert again.to_bytes() == reference
    assert again.node_count() == m.node_count()
    out = again.run({"image": np.ones((1, 3, 16, 16), np.float32)})
    assert out["logits"].shape == (1, 10) and np.isfinite(out["logits"]).all()


def test_load_bytearray_and_memoryview() -> None:
    b = onnxforge.demo().to_bytes()
    assert onnxforge.load(bytearray(b)).to_bytes() == b
    assert onnxforge.load(memoryview(b)).to_bytes() == b


def test_load_errors(tmp_path: Path) -> None:
    with pytest.raises(onnxforge.InputOutputError) as e:
        onnxforge.load(tmp_path / "missing.onnx")
    assert e.value.status == 2 and "missing.onnx" in str(e.value)
    assert isinstance(e.value, onnxforge.Error)
    with pytest.raises(onnxforge.ParseError) as e2:
        onnxforge.load(b"\xff\xff\xff\xff not a model")
    assert e2.value.status == 3 and e2.value.message
    with pytest.raises(TypeError):
        onnxforge.load(42)


def test_option_values_are_checked() -> None:
    m = onnxforge.demo()
    with pytest.raises(onnxforge.InvalidArgumentError, match="verify.samples"):
        onnxforge.verify(m, m, samples=0)
    with pytest.raises(onnxforge.InvalidArgumentError, match="unknown pass"):
        m.optimize(passes=["no_such_pass"])
    with pytest.raises(onnxforge.InvalidArgumentError):
        m.optimize(dims={"batch": -1}, verify=True)
    with pytest.raises(ValueError):  # InvalidArgumentError is also a ValueError
        onnxforge.verify(m, m, atol=float("nan"))


def test_threads_give_the_same_results() -> None:
    a = onnxforge.demo()
    b = a.clone()
    b.optimize(threads=2)
    image = np.random.default_rng(1).standard_normal((4, 3, 16, 16)).astype(np.float32)  # as declared: batch,3,16,16
    one = a.run({"image": image}, threads=1)["logits"]
    for n in (2, 3, 0):
        assert a.run({"image": image}, threads=n)["logits"].tobytes() == one.tobytes()
    r1 = onnxforge.verify(a, b, samples=2, threads=1)
    r2 = onnxforge.verify(a, b, samples=2, threads=2)
    assert r1.passed and r2.passed
    assert [(o.name, o.max_abs, o.elements) for o in r1.outputs] == [(o.name, o.max_abs, o.elements) for o in r2.outputs]
    with pytest.raises(onnxforge.InvalidArgumentError, match="run.threads"):
        a.run({"image": image}, threads=-1)


def test_clone_is_independent() -> None:
    m = onnxforge.demo()
    c = m.clone()
    assert c.to_bytes() == m.to_bytes()
    c.optimize()
    assert c.node_count() < m.node_count()
    ref = weakref.ref(m)
    r = onnxforge.verify(m, c)
    assert r.passed
    del m
    gc.collect()
    assert ref() is None
    assert c.node_count() > 0


def test_verify_arguments() -> None:
    a = onnxforge.demo()
    b = a.clone()
    b.optimize()
    image = np.random.default_rng(0).standard_normal((3, 3, 16, 16)).astype(np.float32)
    r = onnxforge.verify(a, b, inputs={"image": image})
    assert r.passed and r.inputs[0].shape == (3, 3, 16, 16) and "seed" not in r.inputs[0].source
    r = onnxforge.verify(a, b, dims={"batch": 5}, samples=3, seed=7, atol=1e-5, rtol=1e-4)
    assert r and r.inputs[0].shape == (5, 3, 16, 16) and r.samples == 3
    assert r.data["atol"] == pytest.approx(1e-5)
    # loads paths/bytes itself
    r = onnxforge.verify(a.to_bytes(), b.to_bytes())
    assert r.passed


def test_progress_log_and_cancel() -> None:
    calls = []
    logs = []
    m = onnxforge.demo()
    r = m.optimize(progress=lambda d, t: calls.append((d, t)), log=lambda lvl, msg: logs.append((lvl, msg)),
                   verify=True)
    assert len(calls) >= len(r.passes) and calls[len(r.passes) - 1][0] == len(r.passes)
    assert any(lvl == onnxforge.LOG_INFO and "verify" in msg for lvl, msg in logs)
    with pytest.raises(onnxforge.CancelledError):
        onnxforge.demo().optimize(progress=lambda d, t: d < 2)

    class Boom(Exception):
        pass

    def explode(done: int, total: int) -> None:
        raise Boom()

    with pytest.raises(Boom):
        onnxforge.verify(onnxforge.demo(), onnxforge.demo(), progress=explode)


def test_run_dtypes_bool_float16() -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    g = helper.make_graph(
        [helper.make_node("Add", ["h", "h"], ["h2"]), helper.make_node("Not", ["b"], ["nb"]),
         helper.make_node("Cast", ["i"], ["f"], to=TensorProto.DOUBLE)],
        "dtypes",
        [helper.make_tensor_value_info("h", TensorProto.FLOAT16, [2, 3]),
         helper.make_tensor_value_info("b", TensorProto.BOOL, [4]),
         helper.make_tensor_value_info("i", TensorProto.INT32, [2])],
        [helper.make_tensor_value_info("h2", TensorProto.FLOAT16, [2, 3]),
         helper.make_tensor_value_info("nb", TensorProto.BOOL, [4]),
         helper.make_tensor_value_info("f", TensorProto.DOUBLE, [2])])
    proto = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m = onnxforge.load(proto)  # an onnx.ModelProto
    h = np.arange(6, dtype=np.float16).reshape(2, 3) / np.float16(4)
    b = np.array([True, False, True, False])
    out = m.run({"h": h, "b": b, "i": np.array([3, -4], np.int32)})
    assert list(out) == ["h2", "nb", "f"]
    assert out["h2"].dtype == np.float16 and np.array_equal(out["h2"], h + h)
    assert out["nb"].dtype == np.bool_ and np.array_equal(out["nb"], ~b)
    assert out["f"].dtype == np.float64 and list(out["f"]) == [3.0, -4.0]
    back = m.to_onnx()
    assert isinstance(back, onnx.ModelProto) and back.graph.name == "dtypes"
    with pytest.raises(onnxforge.InvalidArgumentError):
        m.run({"nope": h})


def test_tensor_pb_roundtrip() -> None:
    a = np.arange(12, dtype=np.int64).reshape(3, 4)
    b = onnxforge.load_tensor_pb(onnxforge.save_tensor_pb(a, "x"))
    assert b.dtype == np.int64 and np.array_equal(a, b)


def test_save_external_data(tmp_path: Path) -> None:
    m = onnxforge.demo()
    path = tmp_path / "ext.onnx"
    m.save(path, external_data=True, external_threshold=64)
    assert (tmp_path / "ext.onnx.data").exists()
    again = onnxforge.load(path)
    assert again.initializer_stats() == m.initializer_stats()


def test_exceptions_cover_every_status() -> None:
    classes = [onnxforge.InvalidArgumentError, onnxforge.InputOutputError, onnxforge.ParseError,
               onnxforge.InvalidModelError, onnxforge.UnsupportedError, onnxforge.NoMemoryError,
               onnxforge.LimitError, onnxforge.VerifyFailedError, onnxforge.CancelledError,
               onnxforge.InternalError, onnxforge.NoValidInputsError]
    assert [c.status for c in classes] == list(range(1, 12))
    for c in classes:
        assert issubclass(c, onnxforge.Error)
        assert onnxforge.status_string(c.status) != "unknown status"


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "onnxforge", *args], capture_output=True, text=True, timeout=300)


def test_command_line(tmp_path: Path) -> None:
    src = tmp_path / "demo.onnx"
    onnxforge.demo().save(src)
    out = tmp_path / "opt.onnx"
    p = run_cli("optimize", str(src), str(out), "--verify", "--samples", "2")
    assert p.returncode == 0, p.stderr
    assert "PASSED" in p.stdout and out.exists()
    p = run_cli("optimize", str(src), str(out), "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["output_file_bytes"] == out.stat().st_size
    p = run_cli("verify", str(src), str(out), "--json", "--dim", "batch=2")
    assert p.returncode == 0 and json.loads(p.stdout)["passed"] is True
    p = run_cli("inspect", str(out), "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["inputs"][0]["name"] == "image"
    p = run_cli("passes")
    assert p.returncode == 0 and "fuse_conv_batchnorm" in p.stdout
    p = run_cli("--help")
    assert p.returncode == 0 and "optimize" in p.stdout
    # usage errors: exit 2 with a message
    p = run_cli("optimize", str(src), str(out), "--samples", "3")
    assert p.returncode == 2 and "--verify" in p.stderr
    p = run_cli("verify", str(src), str(out), "--rtol", "abc")
    assert p.returncode == 2 and "abc" in p.stderr
    p = run_cli("inspect", str(tmp_path / "missing.onnx"))
    assert p.returncode == 2 and "InputOutputError" in p.stderr


def test_shared_model_optimize_verify_run_save(tmp_path: Path) -> None:
    d = shared_model("mobilenetv2_dirty")
    m = onnxforge.load(d / "model.onnx")
    assert m.inputs[0].shape == ("batch", 3, 224, 224)
    bn = m.op_histogram().get("BatchNormalization", 0)
    r = m.optimize(verify=True, test_data=d / "test_data_set_0")
    assert bn > 0 and "BatchNormalization" not in m.op_histogram()
    assert r.verify is not None and r.verify.passed, r.verify.summary()
    assert "test_data_set_0" in r.verify.note or "test_data_set_0" in r.verify.inputs[0].source
    for k in sorted(d.glob("test_data_set_*")):
        x = onnxforge.load_tensor_pb(k / "input_0.pb")
        ref = onnxforge.load_tensor_pb(k / "output_0.pb")
        got = m.run({m.inputs[0].name: x})[m.outputs[0].name]
        assert got.shape == ref.shape
        tol = 1e-3 * np.abs(ref) + 1e-4 * max(1.0, float(np.abs(ref).max()))
        assert (np.abs(got - ref) <= tol).all()
    out = tmp_path / "mobilenetv2.onnx"
    m.save(out)
    again = onnxforge.load(out)
    assert again.node_count() == m.node_count() < 222
    assert onnxforge.verify(d / "model.onnx", again, test_data=d).passed
