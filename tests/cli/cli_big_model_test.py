#!/usr/bin/env python3
"""A model over 2 GiB is saved as files that onnx.load reads (issue 20, defect 1).

Protobuf cannot parse a message of 2 GiB or more; without save options onnxforge used to write
such a model inline, a file only onnxforge could read back. The models are made here with their
2 GiB of zeros as holes of sparse files (little disk); the outputs are real bytes (about 2 GiB
each, removed at the end). Skipped (77) without python3-onnx or without 6 GiB of free disk.

- An inline model of 2 GiB + 4 KiB (readable by onnxforge, not by protobuf): `convert` writes
  OUT + OUT.data (its size, not the input's layout, decides) and says so.
- A model with its 2 GiB weight in external data: `optimize` keeps that layout.

Usage: cli_big_model_test.py ONNXFORGE_CLI
"""
import os
import shutil
import sys

from clitest import TMP, main, require_onnx, run

np, onnx, TensorProto, helper, numpy_helper = require_onnx()

WEIGHT_BYTES = (2 << 30) + 4096
N = WEIGHT_BYTES // 4

if shutil.disk_usage(TMP).free < (6 << 30):
    print("SKIP: less than 6 GiB free in %s" % TMP)
    shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(77)


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def field(number, value):
    """A protobuf field: int -> varint, bytes -> length-delimited."""
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    return varint(number << 3 | 2) + varint(len(value)) + value


def inline_sparse_model(path):
    """y = Identity(w), w float[N] of zeros in raw_data, written with the zeros as a hole."""
    tensor = field(1, N) + field(2, TensorProto.FLOAT) + field(8, b"w") + varint(9 << 3 | 2) + varint(WEIGHT_BYTES)
    node = field(1, b"w") + field(2, b"y") + field(4, b"Identity")
    out_type = field(1, field(1, TensorProto.FLOAT) + field(2, field(1, field(1, N))))
    graph_head = field(1, node) + field(2, b"g") + varint(5 << 3 | 2) + varint(len(tensor) + WEIGHT_BYTES) + tensor
    graph_tail = field(12, field(1, b"y") + field(2, out_type))
    head = field(1, 8) + varint(7 << 3 | 2) + varint(len(graph_head) + WEIGHT_BYTES + len(graph_tail)) + graph_head
    tail = graph_tail + field(8, field(2, 13))
    with open(path, "wb") as f:
        f.write(head)
        f.seek(len(head) + WEIGHT_BYTES)
        f.write(tail)


def external_sparse_model(path):
    """The same graph with w in PATH.data (a sparse file of zeros)."""
    w = TensorProto()
    w.name = "w"
    w.data_type = TensorProto.FLOAT
    w.dims.append(N)
    w.data_location = TensorProto.EXTERNAL
    for k, v in (("location", os.path.basename(path) + ".data"), ("offset", "0"), ("length", str(WEIGHT_BYTES))):
        e = w.external_data.add()
        e.key, e.value = k, v
    g = helper.make_graph([helper.make_node("Identity", ["w"], ["y"])], "g", [],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [N])], [w])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)
    with open(path + ".data", "wb") as f:
        f.truncate(WEIGHT_BYTES)


def check_readable(out):
    """onnx.load (which reads the external data) parses OUT; w is whole and zero."""
    assert os.path.getsize(out) < (1 << 20), "the weights were written inline (%d bytes)" % os.path.getsize(out)
    assert os.path.getsize(out + ".data") == WEIGHT_BYTES, os.path.getsize(out + ".data")
    m = onnx.load(out)
    (w,) = m.graph.initializer
    assert list(w.dims) == [N]
    arr = numpy_helper.to_array(w)
    assert arr.shape == (N,) and arr.dtype == np.float32
    assert not arr[:1 << 20].any() and not arr[-(1 << 20):].any()
    del arr, m


def save_over_2gib(make_model, command, name, says):
    """Writes a model with make_model, runs `onnxforge COMMAND` on it and checks that the output
    went to external data with the message `says`; every file it made is removed (4 GB each)."""
    src = os.path.join(TMP, name + ".onnx")
    out = os.path.join(TMP, name + "_out.onnx")
    try:
        make_model(src)
        p = run(command, src, out)
        assert "weights written to %s.data" % out in p.stdout, p.stdout
        assert says in p.stdout, p.stdout
        check_readable(out)
    finally:
        for f in (src, src + ".data", out, out + ".data"):
            if os.path.exists(f):
                os.remove(f)


def test_inline_model_over_2gib_is_saved_with_external_data():
    save_over_2gib(inline_sparse_model, "convert", "inline", "over protobuf's 2 GiB limit")


def test_external_data_layout_is_kept_over_2gib():
    save_over_2gib(external_sparse_model, "optimize", "ext", "the input model kept its weights in external data")


if __name__ == "__main__":
    sys.exit(main(globals()))
