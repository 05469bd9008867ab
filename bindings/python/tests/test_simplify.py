"""onnxforge.simplify and the Python-side argument checks (issue 20, point F)."""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

import numpy as np
import pytest

import onnxforge
from demo_util import demo_bytes, demo_input

ROOT = Path(__file__).resolve().parents[3]


def same_outputs(a: bytes, b: bytes) -> None:
    with onnxforge.load(a) as ma, onnxforge.load(b) as mb:
        feeds = demo_input(ma)
        ra, rb = ma.run(feeds), mb.run(feeds)
        assert list(ra) == list(rb)
        for k in ra:
            np.testing.assert_allclose(rb[k], ra[k], rtol=1e-4, atol=1e-5)


def test_simplify_bytes_gives_bytes_with_fewer_nodes_and_the_same_values() -> None:
    original = demo_bytes()
    out = onnxforge.simplify(original)
    assert isinstance(out, bytes)
    with onnxforge.load(original) as a, onnxforge.load(out) as b:
        assert b.node_count() < a.node_count()
    same_outputs(original, out)
    assert isinstance(onnxforge.simplify(bytearray(original)), bytes)
    assert isinstance(onnxforge.simplify(memoryview(original)), bytes)


def test_simplify_path_saves_to_output_and_returns_it(tmp_path: Path) -> None:
    src = tmp_path / "m.onnx"
    src.write_bytes(demo_bytes())
    before = src.read_bytes()
    out = tmp_path / "m.opt.onnx"
    assert onnxforge.simplify(src, output=out) == out
    assert src.read_bytes() == before  # the input is not touched
    same_outputs(before, out.read_bytes())
    assert onnxforge.simplify(str(src), output=str(src)) == str(src)  # in place, when named
    same_outputs(before, src.read_bytes())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx", "m.opt.onnx"]


def test_simplify_model_proto_gives_a_new_model_proto() -> None:
    onnx = pytest.importorskip("onnx", reason="the onnx package is not installed for this python")
    proto = onnx.load_from_string(demo_bytes())
    nodes = len(proto.graph.node)
    out = onnxforge.simplify(proto)
    assert type(out) is type(proto)
    assert len(out.graph.node) < nodes
    assert len(proto.graph.node) == nodes  # the one given is unchanged
    onnx.checker.check_model(out)
    same_outputs(proto.SerializeToString(), out.SerializeToString())


def test_simplify_passes_options_through() -> None:
    original = demo_bytes()
    only = onnxforge.simplify(original, passes=["eliminate_identity_ops"], verify=False)
    with onnxforge.load(original) as a, onnxforge.load(only) as b:
        assert b.op_histogram().get("Identity", 0) == 0
        assert a.op_histogram().get("Identity", 0) > 0
        assert b.op_histogram().get("BatchNormalization") == a.op_histogram().get("BatchNormalization")
    with pytest.raises(onnxforge.InvalidArgumentError, match="fuse_gelo"):
        onnxforge.simplify(original, skip=["fuse_gelo"])


@pytest.mark.parametrize("call, kind, message", [
    (lambda: onnxforge.simplify(3), TypeError, "model must be a path, bytes or an onnx.ModelProto"),
    (lambda: onnxforge.simplify([1, 2]), TypeError, "got list"),
    (lambda: onnxforge.simplify("m.onnx"), TypeError, "needs output=PATH"),
    (lambda: onnxforge.simplify(b"x", output="o.onnx"), TypeError, "output= is only for a model given as a path"),
    (lambda: onnxforge.simplify(b"x", passes="fuse_gelu"), TypeError, "not a single string"),
    (lambda: onnxforge.simplify(b"x", passes=[3]), TypeError, "pass names"),
    (lambda: onnxforge.simplify(b"x", verify="yes"), TypeError, "verify must be True or False"),
    (lambda: onnxforge.simplify(b"x", threads=-1), ValueError, "threads must be >= 0"),
    (lambda: onnxforge.simplify(b"x", threads=1.5), TypeError, "threads must be an int"),
    (lambda: onnxforge.simplify(b"x", samples=0), ValueError, "samples must be >= 1"),
    (lambda: onnxforge.simplify(b"x", input_shapes=[1, 2]), TypeError, "input_shapes must map"),
    (lambda: onnxforge.simplify(b"x", nonsense=1), TypeError, "nonsense"),
])
def test_simplify_wrong_arguments(call, kind, message) -> None:
    with pytest.raises(kind, match=re.escape(message)):
        call()


def test_simplify_bad_bytes_is_a_library_error() -> None:
    with pytest.raises(onnxforge.ParseError):
        onnxforge.simplify(b"\xff\xff\xff")


def test_simplify_path_failures_write_nothing(tmp_path: Path) -> None:
    with pytest.raises(OSError) as info:  # InputOutputError is an OSError with its errno
        onnxforge.simplify(tmp_path / "missing.onnx", output=tmp_path / "o.onnx")
    assert info.value.errno == errno.ENOENT
    assert list(tmp_path.iterdir()) == []


def test_input_output_error_is_an_os_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope" / "x.onnx"
    with pytest.raises(OSError) as info:
        onnxforge.load(missing)
    e = info.value
    assert isinstance(e, onnxforge.InputOutputError) and isinstance(e, onnxforge.Error)
    assert e.status == 2 and e.errno == errno.ENOENT and e.filename == str(missing)
    assert str(missing) in str(e)
    with onnxforge.demo() as m, pytest.raises(OSError):
        m.save(tmp_path / "no-such-folder" / "out.onnx")


def test_run_takes_nested_lists_for_tensor_inputs_and_refuses_other_types() -> None:
    with onnxforge.demo() as m:
        feeds = demo_input(m)
        name = next(iter(feeds))
        want = m.run(feeds)
        got = m.run({name: feeds[name].tolist()})  # a list is the array's elements, not a sequence
        for k in want:
            np.testing.assert_array_equal(got[k], want[k])
        with pytest.raises(TypeError, match="must map input names"):
            m.run([feeds[name]])
        with pytest.raises(TypeError, match="must be an array-like"):
            m.run({name: "not an array"})
        with pytest.raises(TypeError, match="not a rectangular array"):
            m.run({name: [[1.0, 2.0], [3.0]]})
        with pytest.raises(onnxforge.InvalidArgumentError, match=re.escape(f"input '{name}'")):
            m.run({name: np.zeros((1, 2), np.float32)})  # checked at the door against the declared shape
        with pytest.raises(TypeError, match="external_data must be"):
            m.save("x.onnx", external_data="yes")


def test_one_version_everywhere() -> None:
    header = (ROOT / "include_c" / "onnxforge.h").read_text()
    parts = [re.search(r"^#define OFG_VERSION_%s (\d+)$" % p, header, re.M).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
    assert onnxforge.__version__ == onnxforge.version() == ".".join(parts)
