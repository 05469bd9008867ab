#!/usr/bin/python3
"""Inference time of onnxforge against ONNX Runtime, side by side in one run, on every model of the
shared data that has a test_data_set_0 (DATA/models and DATA/realworld/models) and on the models
bench/models/make_models.py builds into BUILD/bench-models for what the shared data lacks (LSTM,
GRU, encoder-decoder with KV cache, dynamically and statically quantized CNNs, DenseNet-121,
ConvNeXt-atto, the architectures of issue 25: U-Net, HiFi-GAN generator, YOLO-style detector,
Conformer block, diffusion UNet block, and issue 23's decoders: llama_1024, a LLaMA-style decoder of
hidden 1024 x 8 layers on a 32-token prefill, plus the small qwen2_style and mha_interleaved; with
measure-only variations listed in MEASURE_ONLY there). The decoders bring their own expected
outputs (a numpy forward of the same network), so "match" compares onnxforge with numpy there.

onnxforge: bench/bench_run (a C++ program over the public C ABI: load once, ofg_run timed per call,
median of N after warm-up), with run.threads 1 and the machine's cores.
ONNX Runtime: onnxruntime-node 1.30 driven by DATA/realworld/ort_run.js on the same input bytes,
CPU provider, graph optimizations "all" and "disabled", intra-op threads 1 and the machine's cores;
the median of N timed runs after one warm-up run. It is installed with npm into BUILD/ort-node on
first use (`npm install onnxruntime-node@1.30.0 --ignore-scripts`: the CPU library ships in the
package; its install script only fetches GPU libraries) and is never a dependency of the library or
of the tests.

Every model's outputs are checked as well: ONNX Runtime's outputs (optimizations disabled) are
written beside the inputs as output_K.pb where the model has none, and `onnxforge run DIR` compares
onnxforge's outputs with them (column "match": the largest absolute difference, or "FAIL").

Prints one row per model: milliseconds and the ratios onnxforge / ORT (lower is better), on one thread
(onnxforge / ORT all, / ORT none) and on the machine's threads (onnxforge* / ORT all*).
    /usr/bin/python3 bench/ort_bench.py BUILD_DIR [DATA_DIR] [--runs N] [--rounds R] [--models a,b] [--json]
                                        [--seg-size N]   (image size of the segmentation model, default 256)
                                        [--optimize] [--target-opset N]

ONNX Runtime optimizes each model when it opens it (column "ORT all"), while bench_run runs the model
as given: a model exported with unfolded BatchNormalization (the *_dirty models) is then measured
against ORT's folded one. --optimize times onnxforge on what `onnxforge optimize` makes of the model
(what an application would ship), ORT still on the model as given; the outputs are checked on the
model as given either way. --target-opset N optimizes with the opset raised to N (implies --optimize), so
the newer ops' fusions (Attention, RotaryEmbedding, RMSNormalization at 23) are what bench_run times.

Each model is measured in R rounds (default 3), each round timing every column once, one after
the other: a shared machine that slows down for a while slows both engines of a round. Times are
the median over the rounds, and each ratio the median of the rounds' ratios.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from tensor_files import ORT_DTYPES, input_files, read_tensor

ORT_VERSION = "1.30.0"


def pin_for(threads):
    """What subprocess.run needs to run a one-thread timing on one fixed core (the first this process
    may use; OFG_BENCH_CPU names another). Both engines' one-thread runs use the same core: the two
    cores of the virtual machines we measure on differ in speed by up to 1.6x (2026-11-29: the same
    MaxPool 0.12 ms on one, 0.20 ms on the other), which an unpinned run picks at random."""
    if threads != 1 or not hasattr(os, "sched_setaffinity"):
        return {}
    cpu = int(os.environ.get("OFG_BENCH_CPU", min(os.sched_getaffinity(0))))
    return {"preexec_fn": lambda: os.sched_setaffinity(0, {cpu})}


def parse_args(argv):
    p = argparse.ArgumentParser(usage=__doc__, add_help=True)
    p.add_argument("pos", nargs="+")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seg-size", type=int, default=256)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--models", type=lambda v: v.split(","))
    p.add_argument("--json", action="store_true")
    p.add_argument("--optimize", action="store_true")
    p.add_argument("--target-opset", type=int, help="with --optimize: optimize raised to this opset (its fusions)")
    a = p.parse_args(argv)
    global OPTIMIZE, TARGET_OPSET
    OPTIMIZE = a.optimize or a.target_opset is not None
    TARGET_OPSET = a.target_opset
    return os.path.abspath(a.pos[0]), data_dir(a.pos), a.runs, a.models, a.json, a.seg_size, max(1, a.rounds)


OPTIMIZE = False
TARGET_OPSET = None


def onnxforge_model(build, model, work):
    """The model bench_run times: as given, or with --optimize what `onnxforge optimize` makes of it."""
    if not OPTIMIZE:
        return model
    out = os.path.join(work, "optimized.onnx")
    cmd = [os.path.join(build, "onnxforge"), "optimize", model, out]
    if TARGET_OPSET is not None:
        cmd += ["--target-opset", str(TARGET_OPSET)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    return out if p.returncode == 0 and os.path.exists(out) else model


def data_dir(pos):
    """The data folder: the second positional argument, else ONNXFORGE_DATA, else ../shared."""
    here = os.path.dirname(os.path.abspath(__file__))
    data = pos[1] if len(pos) > 1 else os.environ.get("ONNXFORGE_DATA", os.path.join(here, "..", "..", "shared"))
    return os.path.abspath(data)


def ensure_ort(build):
    folder = os.path.join(build, "ort-node")
    module = os.path.join(folder, "node_modules", "onnxruntime-node")
    if not os.path.isdir(module):
        os.makedirs(folder, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", folder, "onnxruntime-node@" + ORT_VERSION, "--ignore-scripts",
                        "--no-audit", "--no-fund"], check=True, stdout=subprocess.DEVNULL)
    return module


def built_models(build, seg):
    """BUILD/bench-models, made by bench/models/make_models.py the first time (or for a new --seg-size)."""
    folder = os.path.join(build, "bench-models")
    if not all(os.path.isdir(os.path.join(folder, n)) for n in ("qdyn_seg_%d" % seg, "densenet121", "convnext_atto")):
        here = os.path.dirname(os.path.abspath(__file__))
        subprocess.run([sys.executable, os.path.join(here, "models", "make_models.py"), folder, "--seg-size", str(seg)],
                       check=True, stdout=subprocess.DEVNULL)
    return folder


def model_dirs(roots, only):
    out = []
    for root in roots:
        if not os.path.isdir(root):
            continue
        for name in sorted(os.listdir(root)):
            d = os.path.join(root, name)
            if os.path.isfile(os.path.join(d, "model.onnx")) and os.path.isdir(os.path.join(d, "test_data_set_0")):
                if only is None or name in only:
                    out.append(d)
    return out


def ort_inputs(model_dir, work):
    """Raw input files for ort_run.js from test_data_set_0 (input_K.pb is graph input K)."""
    import onnx
    m = onnx.load(os.path.join(model_dir, "model.onnx"), load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    names = [i.name for i in m.graph.input]
    inputs, pbs = [], []
    for k, pb in enumerate(input_files(os.path.join(model_dir, "test_data_set_0"))):
        t, a = read_tensor(pb)
        raw = os.path.join(work, "in_%d.bin" % k)
        a.tofile(raw)
        name = names[k] if k < len(names) else t.name
        if name not in inits or t.name:
            inputs.append({"name": name, "dtype": ORT_DTYPES[t.data_type], "dims": list(a.shape), "file": raw})
        pbs.append(pb)
    return inputs, pbs


def time_ort(module, ort_run, model, inputs, threads, level, runs, work):
    job = {"model": model, "threads": threads, "level": level, "inputs": inputs, "outdir": os.path.join(work, "ort"),
           "repeat": runs + 1}
    path = os.path.join(work, "job.json")
    with open(path, "w") as f:
        json.dump(job, f)
    env = dict(os.environ, ORT_NODE=module)
    p = subprocess.run(["node", ort_run, path], capture_output=True, text=True, env=env, **pin_for(threads))
    if p.returncode != 0:
        return None
    return statistics.median(json.loads(p.stdout.strip().splitlines()[-1])["run_ms"][1:])


def record_ort_outputs(module, ort_run, model_dir, inputs, work):
    """Writes ONNX Runtime's outputs as test_data_set_0/output_K.pb where the model has none."""
    import numpy as np
    import onnx
    from onnx import numpy_helper
    target = os.path.join(model_dir, "test_data_set_0")
    if os.path.exists(os.path.join(target, "output_0.pb")):
        return
    job = {"model": os.path.join(model_dir, "model.onnx"), "threads": 1, "level": "disabled", "inputs": inputs,
           "outdir": os.path.join(work, "ref"), "repeat": 1}
    path = os.path.join(work, "ref_job.json")
    with open(path, "w") as f:
        json.dump(job, f)
    if subprocess.run(["node", ort_run, path], capture_output=True, env=dict(os.environ, ORT_NODE=module)).returncode:
        return
    with open(os.path.join(work, "ref", "outputs.json")) as f:
        outs = json.load(f)["outputs"]
    for k, o in enumerate(outs):
        a = np.fromfile(o["file"], dtype=o["dtype"]).reshape(o["dims"])
        with open(os.path.join(target, "output_%d.pb" % k), "wb") as f:
            f.write(numpy_helper.from_array(a, o["name"]).SerializeToString())


def check_onnxforge(build, model_dir):
    """Largest absolute difference of onnxforge's outputs from the recorded ones, or None on failure."""
    p = subprocess.run([os.path.join(build, "onnxforge"), "run", model_dir, "--json", "--rtol", "1e-2", "--atol",
                        "1e-3"], capture_output=True, text=True)
    try:
        report = json.loads(p.stdout)
    except ValueError:
        return None
    diffs = [o.get("max_abs") for o in report.get("outputs", [])]
    diffs = [d for d in diffs if isinstance(d, (int, float))]
    return (max(diffs) if diffs else 0.0, p.returncode == 0)


def time_onnxforge(build, model, pbs, runs, threads):
    p = subprocess.run([os.path.join(build, "bench", "bench_run"), model, *pbs, "--runs", str(runs), "--threads",
                        str(threads), "--json"], capture_output=True, text=True, **pin_for(threads))
    if p.returncode != 0:
        return None
    return json.loads(p.stdout)["median_ms"]


def main():
    build, data, runs, only, as_json, seg, rounds = parse_args(sys.argv[1:])
    module = ensure_ort(build)
    ort_run = os.path.join(data, "realworld", "ort_run.js")
    cores = os.cpu_count() or 1
    rows = []
    roots = [os.path.join(data, "models"), os.path.join(data, "realworld", "models"), built_models(build, seg)]
    for d in model_dirs(roots, only):
        name = os.path.basename(d)
        work = tempfile.mkdtemp(prefix="ofg_ort_")
        try:
            inputs, pbs = ort_inputs(d, work)
            model = os.path.join(d, "model.onnx")
            record_ort_outputs(module, ort_run, d, inputs, work)
            row = {"model": name, "match": check_onnxforge(build, d), "rounds": []}
            mine = onnxforge_model(build, model, work)
            for _ in range(rounds):
                r = {"onnxforge_ms": time_onnxforge(build, mine, pbs, runs, 1),
                     "onnxforge_t%d_ms" % cores: time_onnxforge(build, mine, pbs, runs, cores)}
                for threads in (1, cores):
                    for level in ("all", "disabled"):
                        r["ort_%s_t%d_ms" % (level, threads)] = time_ort(module, ort_run, model, inputs, threads,
                                                                       level, runs, work)
                row["rounds"].append(r)
            for key in row["rounds"][0]:
                vals = [r[key] for r in row["rounds"] if r[key]]
                row[key] = statistics.median(vals) if vals else None
            rows.append(row)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    if as_json:
        print(json.dumps(rows, indent=1))
        return

    def round_ratio(r, mine, theirs):
        """The median over the rounds of mine / theirs, each round's pair measured together."""
        vals = [x[mine] / x[theirs] for x in r["rounds"] if x[mine] and x[theirs]]
        return statistics.median(vals) if vals else None

    def ratio(v):
        return "%7.2f" % v if v else "      -"

    print("CPU: %s, %d cores; ORT %s, CPU provider; medians of %d runs (ms), median of %d rounds" % (
        cpu_name(), cores, ORT_VERSION, runs, rounds))
    if OPTIMIZE:
        print("onnxforge columns: the model after `onnxforge optimize` (--optimize); ORT: the model as given")
    print("%-26s %10s %10s %10s %10s %10s | %8s %8s %8s | %s" % (
        "model", "onnxforge", "ORT all", "ORT none", "onnxforge*", "ORT all*", "/all", "/none", "*/all*",
        "match (max abs)"))
    for r in rows:
        o, a, n = r["onnxforge_ms"], r["ort_all_t1_ms"], r["ort_disabled_t1_ms"]
        om, am = r["onnxforge_t%d_ms" % cores], r["ort_all_t%d_ms" % cores]
        fmt = lambda v: "%10.3f" % v if v else "%10s" % "failed"  # noqa: E731
        match = "-" if r["match"] is None else ("%.2g" % r["match"][0]) + ("" if r["match"][1] else " FAIL")
        t = "onnxforge_t%d_ms" % cores
        print("%-26s %s %s %s %s %s | %s %s %s | %s" % (
            r["model"], fmt(o), fmt(a), fmt(n), fmt(om), fmt(am), ratio(round_ratio(r, "onnxforge_ms", "ort_all_t1_ms")),
            ratio(round_ratio(r, "onnxforge_ms", "ort_disabled_t1_ms")),
            ratio(round_ratio(r, t, "ort_all_t%d_ms" % cores)), match))
    for label, mine, theirs in (("1 thread", "onnxforge_ms", "ort_all_t1_ms"),
                                ("%d threads" % cores, "onnxforge_t%d_ms" % cores, "ort_all_t%d_ms" % cores)):
        ok = [v for v in (round_ratio(r, mine, theirs) for r in rows) if v]
        if ok:
            print("median onnxforge / ORT all (%s): %.2f" % (label, statistics.median(ok)))
    print("onnxforge*, ORT all*: both with %d intra-op threads (run.threads, intra_op_num_threads)." % cores)


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


if __name__ == "__main__":
    main()
