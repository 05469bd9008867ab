#!/usr/bin/python3
"""Single-thread inference of mobilenetv2 and resnet18 through onnxforge against PyTorch, in one run.

onnxforge: bench_run (a C++ program over the public C ABI: ofg_load once, ofg_run timed per call).
PyTorch: the same torchvision architecture (num_classes=10, eval mode, no_grad,
torch.set_num_threads(1)) on the same input tensor; its weights are random, which does not change
the amount of work. Both: warm-up, then the median of N timed runs, wall and CPU time (the machine may be shared; CPU
time of a one-thread run is what an idle core would show). The ratio is onnxforge / PyTorch (lower
is better; the target is <= 1.5).

Also times `onnxforge verify A A --samples 1` as a whole process, with its peak RSS from
/usr/bin/time -v.

Run with Debian's interpreter (python3-torch and python3-torchvision live there):
    /usr/bin/python3 bench/bench_inference.py BUILD_DIR [DATA_DIR] [--runs N] [--json]
DATA_DIR defaults to $ONNXFORGE_DATA, else ../shared next to the source tree.
"""
import json
import os
import statistics
import subprocess
import sys
import time

MODELS = [
    # (folder under DATA_DIR/models, torchvision constructor name)
    ("mobilenetv2_dirty", "mobilenet_v2"),
    ("resnet18_dirty", "resnet18"),
]


def parse_args(argv):
    pos, runs, as_json = [], 10, False
    i = 0
    while i < len(argv):
        if argv[i] == "--runs":
            runs = int(argv[i + 1])
            i += 2
            continue
        if argv[i] == "--json":
            as_json = True
        else:
            pos.append(argv[i])
        i += 1
    if not pos:
        sys.exit(__doc__)
    build = pos[0]
    here = os.path.dirname(os.path.abspath(__file__))
    data = pos[1] if len(pos) > 1 else os.environ.get("ONNXFORGE_DATA", os.path.join(here, "..", "..", "shared"))
    return build, data, runs, as_json


def load_pb(path):
    import onnx
    from onnx import numpy_helper
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t.name, numpy_helper.to_array(t)


def time_torch(arch, x, runs):
    import torch
    import torchvision
    torch.set_num_threads(1)
    model = getattr(torchvision.models, arch)(num_classes=10).eval()
    inp = torch.from_numpy(x.copy())
    with torch.no_grad():
        for _ in range(3):
            model(inp)
        ms, cpu = [], []
        for _ in range(runs):
            c0, t0 = time.process_time(), time.perf_counter()
            model(inp)
            ms.append((time.perf_counter() - t0) * 1000.0)
            cpu.append((time.process_time() - c0) * 1000.0)
    return statistics.median(ms), statistics.median(cpu)


def time_onnxforge(build, model_path, input_paths, runs):
    exe = os.path.join(build, "bench", "bench_run")
    r = subprocess.run([exe, model_path] + input_paths + ["--runs", str(runs), "--warmup", "3", "--json"],
                       check=True, capture_output=True, text=True)
    d = json.loads(r.stdout)
    return d["median_ms"], d["median_cpu_ms"]


def verify_cost(build, model_path):
    tool = os.path.join(build, "onnxforge")
    cmd = ["/usr/bin/time", "-v", tool, "verify", model_path, model_path, "--samples", "1"]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall = (time.perf_counter() - t0) * 1000.0
    rss = -1
    for line in r.stderr.splitlines():
        if "Maximum resident set size" in line:
            rss = int(line.split(":")[1])
    return wall, rss, r.returncode


def main():
    build, data, runs, as_json = parse_args(sys.argv[1:])
    import torch
    results = []
    for folder, arch in MODELS:
        mdir = os.path.join(data, "models", folder)
        model_path = os.path.join(mdir, "model.onnx")
        tdir = os.path.join(mdir, "test_data_set_0")
        inputs = sorted(os.path.join(tdir, f) for f in os.listdir(tdir) if f.startswith("input_"))
        _, x = load_pb(inputs[0])
        # Alternate the two sides so that a burst of load from other jobs hits both.
        ofg, tch = [], []
        for _ in range(2):
            ofg.append(time_onnxforge(build, model_path, inputs, runs))
            tch.append(time_torch(arch, x, runs))
        o, t = min(m for m, _ in ofg), min(m for m, _ in tch)
        oc, tc = min(c for _, c in ofg), min(c for _, c in tch)
        vwall, vrss, vrc = verify_cost(build, model_path)
        results.append({"model": folder, "arch": arch, "input_shape": list(x.shape), "onnxforge_ms": o,
                        "torch_ms": t, "ratio": o / t, "onnxforge_cpu_ms": oc, "torch_cpu_ms": tc,
                        "cpu_ratio": oc / tc, "verify_ms": vwall, "verify_peak_rss_kb": vrss,
                        "verify_exit": vrc})
    if as_json:
        print(json.dumps({"torch": torch.__version__, "runs": runs, "results": results}, indent=1))
        return
    print(f"torch {torch.__version__}, one thread, median of {runs} runs (best of 2 alternating rounds); "
          "wall time, and CPU time (robust to other jobs on the machine)")
    print(f"{'model':<20}{'input':<18}{'onnxforge ms':>14}{'torch ms':>10}{'ratio':>7}"
          f"{'ofg cpu ms':>12}{'torch cpu ms':>14}{'ratio':>7}{'verify ms':>11}{'verify RSS MB':>15}")
    for r in results:
        print(f"{r['model']:<20}{str(r['input_shape']):<18}{r['onnxforge_ms']:>14.2f}{r['torch_ms']:>10.2f}"
              f"{r['ratio']:>7.2f}{r['onnxforge_cpu_ms']:>12.2f}{r['torch_cpu_ms']:>14.2f}{r['cpu_ratio']:>7.2f}"
              f"{r['verify_ms']:>11.0f}{r['verify_peak_rss_kb'] / 1024:>15.1f}"
              + ("" if r["verify_exit"] == 0 else f"  (verify exit {r['verify_exit']})"))


if __name__ == "__main__":
    main()
