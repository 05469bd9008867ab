#!/usr/bin/env python3
"""Ctrl-C, SIGTERM or SIGHUP during a save leave no temporary file (issue 20, defect 2).

`onnxforge convert` and `optimize` of a 256 MiB model are sent a signal after 20 delays from
5 ms to 1 s, and afterwards the folder holds the input and either no OUT or the complete OUT
(equal to an uninterrupted run's), nothing else. Twice: with the library's anonymous temporary
file (O_TMPFILE), and with its named fallback forced (ONNXFORGE_NO_O_TMPFILE=1), which the
CLI's signal handler removes through ofg_remove_temporary_files.

Usage: cli_interrupt_test.py ONNXFORGE_CLI    (needs Debian's python3-onnx and python3-numpy)
"""
import filecmp
import os
import signal
import subprocess
import sys
import time

from clitest import CLI, TMP, main, require_onnx

np, onnx, TensorProto, helper, numpy_helper = require_onnx()

DELAYS = [0.005 * (200 ** (i / 19)) for i in range(20)]  # 5 ms .. 1 s, geometric
SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]
SRC = os.path.join(TMP, "big.onnx")
tried = {"runs": 0, "interrupted": 0, "left": 0}


def big_model():
    """y = x @ w with w float[8192, 8192] (256 MiB), inline."""
    w = numpy_helper.from_array(np.arange(8192 * 8192, dtype=np.float32).reshape(8192, 8192) % 251, "w")
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8192])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8192])], [w])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), SRC)


def interrupt_runs(command, env_extra):
    if not os.path.exists(SRC):
        big_model()
    out = os.path.join(TMP, "out.onnx")
    ref = os.path.join(TMP, "ref.onnx")
    env = dict(os.environ, **env_extra)
    subprocess.run([CLI, command, SRC, ref], check=True, capture_output=True, env=env)
    expected = {"big.onnx", "ref.onnx"}
    problems = []
    for sig in SIGNALS:
        for delay in DELAYS:
            if os.path.exists(out):
                os.remove(out)
            p = subprocess.Popen([CLI, command, SRC, out], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            time.sleep(delay)
            p.send_signal(sig)
            rc = p.wait()
            tried["runs"] += 1
            tried["interrupted"] += rc == -sig
            if rc not in (0, -sig):
                problems.append("%s %s after %.3f s: exit %d" % (command, sig.name, delay, rc))
            left = set(os.listdir(TMP)) - expected - {"out.onnx"}
            tried["left"] += len(left)
            if left:
                problems.append("%s %s after %.3f s left %s" % (command, sig.name, delay, sorted(left)))
                for f in left:
                    os.remove(os.path.join(TMP, f))
            if os.path.exists(out) and not filecmp.cmp(out, ref, shallow=False):
                problems.append("%s %s after %.3f s: out.onnx is incomplete" % (command, sig.name, delay))
    for f in (out, ref):
        if os.path.exists(f):
            os.remove(f)
    assert not problems, "\n".join(problems)


def test_convert_anonymous_temp_file():
    interrupt_runs("convert", {})


def test_optimize_anonymous_temp_file():
    interrupt_runs("optimize", {})


def test_convert_named_temp_file_removed_by_the_handler():
    interrupt_runs("convert", {"ONNXFORGE_NO_O_TMPFILE": "1"})


def test_optimize_named_temp_file_removed_by_the_handler():
    interrupt_runs("optimize", {"ONNXFORGE_NO_O_TMPFILE": "1"})


if __name__ == "__main__":
    rc = main(globals())
    print("interrupt runs: %d (%d ended by the signal), %d delays from %.0f ms to %.0f ms, temporary files left: %d"
          % (tried["runs"], tried["interrupted"], len(DELAYS), DELAYS[0] * 1000, DELAYS[-1] * 1000, tried["left"]))
    sys.exit(rc)
