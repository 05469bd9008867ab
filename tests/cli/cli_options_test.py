#!/usr/bin/env python3
"""Regression tests of the command line's one option parser, help pages, JSON and the optimize
summary and report. Usage: cli_options_test.py ONNXFORGE_CLI   (needs Debian's python3-onnx)."""
import json
import os
import sys

from clitest import TMP, main, run  # noqa: E402


def demo_model():
    path = os.path.join(TMP, "demo_in.onnx")
    if not os.path.exists(path):
        run("optimize", "--demo", path, "--passes", "eliminate_dead_nodes")
    return path


def test_equals_form_and_separate_value_are_the_same():
    src, report = demo_model(), os.path.join(TMP, "r.json")
    run("optimize", src, os.path.join(TMP, "o.onnx"), "--report=" + report, "--skip=fuse_gelu")
    assert json.load(open(report))["output"].endswith("o.onnx")


def test_numbers_are_validated():
    p = run("run", TMP, "--rtol", "abc", ok=(2,))
    assert "--rtol takes a number, got 'abc'" in p.stderr, p.stderr
    p = run("verify", demo_model(), demo_model(), "--samples", "two", ok=(2,))
    assert "--samples takes a whole number" in p.stderr, p.stderr
    run("verify", demo_model(), demo_model(), "--atol", "inf", ok=(2,))


def test_meaningless_combinations_are_refused():
    src = demo_model()
    p = run("optimize", src, os.path.join(TMP, "o.onnx"), "--samples", "3", ok=(2,))
    assert "need --verify" in p.stderr, p.stderr
    p = run("convert", src, os.path.join(TMP, "c.onnx"), "--threshold", "10", ok=(2,))
    assert "--threshold goes with --external-data" in p.stderr
    p = run("optimize", src, os.path.join(TMP, "o.onnx"), "--bogus", ok=(2,))
    assert "unknown option '--bogus'" in p.stderr
    p = run("optimize", src, os.path.join(TMP, "o.onnx"), "--verify", "--verify", ok=(2,))
    assert "given twice" in p.stderr


def test_threads_option():
    src, opt = demo_model(), os.path.join(TMP, "t.onnx")
    run("optimize", src, opt, "--verify", "--threads", "2")
    one = json.loads(run("verify", src, opt, "--samples", "2", "--json", "--threads", "1").stdout)["report"]
    two = json.loads(run("verify", src, opt, "--samples", "2", "--json", "--threads=2").stdout)["report"]
    assert one == two and one["passed"] and one["outputs"][0]["max_abs"] > 0, (one, two)
    p = run("verify", src, src, "--threads", "5000", ok=(2,))
    assert "--threads takes a thread count" in p.stderr and "run.threads" not in p.stderr, p.stderr
    p = run("run", TMP, "--threads", "x", ok=(2,))
    assert "--threads takes a whole number" in p.stderr, p.stderr
    assert "--threads N" in run("help", "run").stdout


def test_help_pages_are_on_stdout():
    for command in ("inspect", "convert", "optimize", "passes", "run", "verify"):
        p = run("help", command)
        assert p.stdout.startswith("usage: onnxforge " + command), (command, p.stdout[:80])
        assert p.stderr == "", (command, p.stderr)
        assert run(command, "--help").stdout == p.stdout
    top = run("help").stdout
    assert "--verify" in top and "--version" in top
    assert run("--version").stdout.startswith("onnxforge ")


def test_passes_json():
    passes = json.loads(run("passes", "--json").stdout)
    names = {p["name"] for p in passes}
    assert "fuse_conv_batchnorm" in names and all(p["class"] in (0, 1, 2) for p in passes)


def test_optimize_summary_and_report():
    src, out, report = demo_model(), os.path.join(TMP, "s.onnx"), os.path.join(TMP, "s.json")
    p = run("optimize", src, out, "--verify", "--report", report)
    text = p.stdout
    for needle in ("before", "after", "file on disk (MiB)", "initializer data (MiB)", "load", "passes", "save",
                   "verify: outputs match"):
        assert needle in text, (needle, text)
    r = json.load(open(report))
    assert r["input"] == src and r["output"] == out and r["version"] and r["output_written"]
    assert r["after"]["file_bytes"] == os.path.getsize(out)
    assert r["before"]["ops"]["BatchNormalization"] >= 1 and "BatchNormalization" not in r["after"]["ops"]
    assert r["verify"]["passed"] is True and r["pipeline"]["passes"]
    assert set(r["milliseconds"]) == {"load", "passes", "verify", "save", "total"}
    # Every op type of the model is in the table, changed or not.
    for op in r["before"]["ops"]:
        assert op in text, op


if __name__ == "__main__":
    sys.exit(main(globals()))
