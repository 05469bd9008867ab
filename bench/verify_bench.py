#!/usr/bin/python3
"""The price of a proof: `onnxforge optimize IN OUT --verify` (load, optimize, run the original and
the optimized model on the model's test inputs, compare, save) against one ONNX Runtime inference
of the same model (CPU provider, graph optimizations "all", 1 intra-op thread), side by side in one
run. The issue's reference case is the dynamically quantized segmentation network at 1024x1024
(bench/models/make_models.py qdyn_seg_1024); any model folder of the backend-test layout works.

Each side is timed as a whole process (onnxforge: wall time of the command; ONNX Runtime: one
session.run after a warm-up, session creation not counted), median of N. Extra arguments after
`--` go to `onnxforge optimize` (for example `-- --threads 1`).

    /usr/bin/python3 bench/verify_bench.py BUILD_DIR [DATA_DIR] [--runs N] [--seg-size N] [--model DIR]
                                          [-- onnxforge optimize options]
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import ort_bench


def parse_args(argv):
    extra = []
    if "--" in argv:
        k = argv.index("--")
        argv, extra = argv[:k], argv[k + 1:]
    pos, runs, seg, model = [], 3, 1024, None
    i = 0
    while i < len(argv):
        if argv[i] == "--runs":
            runs, i = int(argv[i + 1]), i + 2
        elif argv[i] == "--seg-size":
            seg, i = int(argv[i + 1]), i + 2
        elif argv[i] == "--model":
            model, i = argv[i + 1], i + 2
        elif argv[i] in ("-h", "--help"):
            sys.exit(__doc__)
        else:
            pos.append(argv[i])
            i += 1
    if not pos:
        sys.exit(__doc__)
    return os.path.abspath(pos[0]), ort_bench.data_dir(pos), runs, seg, model, extra


def main():
    build, data, runs, seg, model_dir, extra = parse_args(sys.argv[1:])
    if model_dir is None:
        model_dir = os.path.join(ort_bench.built_models(build, seg), "qdyn_seg_%d" % seg)
    module = ort_bench.ensure_ort(build)
    ort_run = os.path.join(data, "realworld", "ort_run.js")
    work = tempfile.mkdtemp(prefix="ofg_verify_")
    try:
        inputs, _ = ort_bench.ort_inputs(model_dir, work)
        model = os.path.join(model_dir, "model.onnx")
        ort_ms = ort_bench.time_ort(module, ort_run, model, inputs, 1, "all", runs, work)
        out = os.path.join(work, "optimized.onnx")
        cmd = [os.path.join(build, "onnxforge"), "optimize", model, out, "--verify"] + extra
        walls = []
        for _ in range(runs):
            t0 = time.perf_counter()
            p = subprocess.run(cmd, capture_output=True, text=True)
            walls.append((time.perf_counter() - t0) * 1e3)
            if p.returncode != 0:
                sys.exit("onnxforge optimize --verify failed:\n" + p.stdout + p.stderr)
        ofg_ms = statistics.median(walls)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("CPU: %s, %d cores; medians of %d runs" % (ort_bench.cpu_name(), os.cpu_count() or 1, runs))
    print("model: %s" % os.path.basename(model_dir))
    print("onnxforge optimize --verify %s: %.1f ms (whole command)" % (" ".join(extra), ofg_ms))
    print("ONNX Runtime, one inference (all optimizations, 1 thread): %.1f ms" % ort_ms)
    print("ratio: %.2f (target: under 3)" % (ofg_ms / ort_ms))


if __name__ == "__main__":
    main()
