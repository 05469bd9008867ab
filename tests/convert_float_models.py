#!/usr/bin/python3
"""Precision conversion of every shared model (DATA/models/*, DATA/realworld/models/*) to float16
and bfloat16, proven by execution:
  1. `onnxforge optimize` makes the float32 optimized model (the size reference);
  2. `onnxforge convert OPT OUT --to-T --test-data DIR/test_data_set_0` converts and verifies it
     against the float32 model (mixed precision search); the report says what stayed float32;
  3. float16: OUT is at most 0.55x the optimized model's size unless the report keeps nodes float32;
  4. our interpreter runs OUT on the test inputs (`onnxforge run --output-dir`), compared with the
     references (PyTorch / ONNX Runtime float32 outputs) at the documented tolerance
     (float16 1e-2, bfloat16 1.5e-1, atol and rtol alike);
  5. with onnxruntime-node (ORT_NODE, or BUILD/ort-node/node_modules/onnxruntime-node), ONNX
     Runtime runs the float16 model on the same inputs, compared the same way.
Conversions known not to verify are listed in KNOWN_FAILURES with the reason; any other failure
fails the test. Prints one row per model and target (the measurement table of docs/convert.md).
Exit 77 (skip) when the data is absent.
    /usr/bin/python3 tests/convert_float_models.py CLI DATA [--json FILE] [--models a,b]
--models keeps only the named model folders (the sanitizer build runs a few small ones).
"""
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

TOL = {"float16": 1e-2, "bfloat16": 1.5e-1}
# (model, target): why it does not verify at the default tolerance. None since the attribution
# leaves saturated mask arithmetic in the target type and searches 10 rounds: llama_tiny_dirty
# (float16 and bfloat16) and efficientnet_b0_dirty float16 verify in round 10 with most of their
# compute kept float32 (their logits need more precision than float16 holds at this tolerance),
# oww_embedding float16 in round 6.
KNOWN_FAILURES = {}
# float16 models ONNX Runtime refuses to load, and why (our interpreter runs and verifies them): none
# since the conversion knows the element type of every value a converted node reads.
KNOWN_ORT_FAILURES = {}


def varint(b, i):
    v, s = 0, 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def read_tensor(path):
    """(dims, data_type, list of floats) of a TensorProto file: the fields the test data use."""
    b = open(path, "rb").read()
    i, dims, dt, raw, floats = 0, [], 1, None, []
    while i < len(b):
        key, i = varint(b, i)
        f, w = key >> 3, key & 7
        if w == 0:
            v, i = varint(b, i)
            if f == 1:
                dims.append(v)
            elif f == 2:
                dt = v
        elif w == 2:
            n, i = varint(b, i)
            payload = b[i:i + n]
            i += n
            if f == 1:
                j = 0
                while j < len(payload):
                    v, j = varint(payload, j)
                    dims.append(v)
            elif f == 9:
                raw = payload
            elif f == 4:
                floats = list(struct.unpack("<%df" % (len(payload) // 4), payload))
        elif w == 5:
            floats.append(struct.unpack("<f", b[i:i + 4])[0])
            i += 4
        elif w == 1:
            i += 8
    if raw is not None:
        if dt == 1:
            floats = list(struct.unpack("<%df" % (len(raw) // 4), raw))
        elif dt == 10:
            floats = [struct.unpack("<e", raw[k:k + 2])[0] for k in range(0, len(raw), 2)]
        elif dt == 7:
            floats = list(struct.unpack("<%dq" % (len(raw) // 8), raw))
        else:
            floats = None
    return dims, dt, floats, raw


def max_err(actual, expected, tol):
    """Largest |a - e| and whether every element is within tol + tol*|e| (NaN/Inf must agree)."""
    worst, ok = 0.0, True
    for a, e in zip(actual, expected):
        if e != e or abs(e) == float("inf"):
            ok &= a == e or (a != a and e != e)
            continue
        if a != a or abs(a) == float("inf"):
            return float("inf"), False
        d = abs(a - e)
        worst = max(worst, d)
        ok &= d <= tol + tol * abs(e)
    return worst, ok and len(actual) == len(expected)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def ort_module(cli):
    m = os.environ.get("ORT_NODE") or os.path.join(os.path.dirname(os.path.abspath(cli)), "ort-node", "node_modules",
                                                   "onnxruntime-node")
    return m if os.path.isdir(m) and subprocess.run(["which", "node"], capture_output=True).returncode == 0 else None


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__)
        return 2
    cli, data = os.path.abspath(args[0]), args[1]
    json_out = args[args.index("--json") + 1] if "--json" in args else None
    only = set(args[args.index("--models") + 1].split(",")) if "--models" in args else None
    dirs = []
    for root in (os.path.join(data, "models"), os.path.join(data, "realworld", "models")):
        if os.path.isdir(root):
            for n in sorted(os.listdir(root)):
                d = os.path.join(root, n)
                if only is not None and n not in only:
                    continue
                if os.path.isfile(os.path.join(d, "model.onnx")) and os.path.isdir(os.path.join(d, "test_data_set_0")):
                    dirs.append(d)
    if not dirs:
        print("SKIP: no shared models under", data)
        return 77
    ort = ort_module(cli)
    ort_run = os.path.join(data, "realworld", "ort_run.js")
    if not ort or not os.path.isfile(ort_run):
        print("note: onnxruntime-node not found (ORT_NODE or BUILD/ort-node): ONNX Runtime column skipped")
        ort = None
    failures, rows = [], []
    work = tempfile.mkdtemp(prefix="ofg-convert-float-")
    print("%-24s %-8s %5s %7s %7s %5s %5s %10s %10s %8s" %
          ("model", "target", "nodes", "MiB", "x opt", "kept", "round", "err ofg", "err ORT", "ms"))
    for d in dirs:
        name = os.path.basename(d)
        tds = os.path.join(d, "test_data_set_0")
        opt = os.path.join(work, name + ".opt.onnx")
        p = run([cli, "optimize", os.path.join(d, "model.onnx"), opt])
        if p.returncode != 0:
            failures.append("%s: optimize failed: %s" % (name, p.stderr.strip()))
            continue
        info = json.loads(run([cli, "inspect", opt, "--json"]).stdout)
        inputs = [i["name"] for i in info["inputs"]]
        outputs = [o["name"] for o in info["outputs"]]
        for target in ("float16", "bfloat16"):
            out = os.path.join(work, "%s.%s.onnx" % (name, target))
            rep = out + ".json"
            t0 = time.time()
            p = run([cli, "convert", opt, out, "--to-" + target, "--test-data", tds, "--report", rep])
            ms = (time.time() - t0) * 1000
            known = KNOWN_FAILURES.get((name, target))
            if p.returncode != 0:
                if known:
                    print("%-24s %-8s known failure: %s" % (name, target, known))
                    rows.append({"model": name, "target": target, "failed": known})
                else:
                    failures.append("%s %s: convert failed (%d): %s" % (name, target, p.returncode, p.stderr.strip()))
                continue
            if known:
                print("%-24s %-8s note: listed as a known failure but converted" % (name, target))
            r = json.load(open(rep))
            kept = len(r["kept_float32"])
            ratio = os.path.getsize(out) / os.path.getsize(opt)
            if target == "float16" and ratio > 0.55 and kept == 0:
                failures.append("%s float16: %.3fx the optimized size with no node kept float32" % (name, ratio))
            # Our interpreter on the test inputs against the references.
            od = os.path.join(work, "%s.%s.out" % (name, target))
            cmd = [cli, "run", out, "--output-dir", od]
            for k, n in enumerate(inputs):
                f = os.path.join(tds, "input_%d.pb" % k)
                if os.path.exists(f):
                    cmd += ["--input", "%s=%s" % (n, f)]
            p = run(cmd)
            err_ofg = 0.0
            if p.returncode != 0:
                failures.append("%s %s: onnxforge run failed: %s" % (name, target, p.stderr.strip()))
                continue
            for k in range(len(outputs)):
                ref = os.path.join(tds, "output_%d.pb" % k)
                got = os.path.join(od, "output_%d.pb" % k)
                if not os.path.exists(ref) or not os.path.exists(got):
                    continue
                e = read_tensor(ref)[2]
                a = read_tensor(got)[2]
                if e is None or a is None:
                    continue
                err, ok = max_err(a, e, TOL[target])
                err_ofg = max(err_ofg, err)
                if not ok:
                    failures.append("%s %s: output %d: max |a-e| %.3g beyond tolerance %g vs the reference" %
                                    (name, target, k, err, TOL[target]))
            err_ort = None
            if ort and target == "float16":
                feeds = []
                for k, n in enumerate(inputs):
                    f = os.path.join(tds, "input_%d.pb" % k)
                    if not os.path.exists(f):
                        continue
                    dims, dt, _, raw = read_tensor(f)
                    binf = os.path.join(work, "%s.in%d.bin" % (name, k))
                    open(binf, "wb").write(raw or b"")
                    feeds.append({"name": n, "dtype": {1: "float32", 7: "int64", 10: "float16", 9: "bool"}.get(dt, "float32"),
                                  "dims": dims, "file": binf})
                job = os.path.join(work, name + ".job.json")
                json.dump({"model": out, "threads": 1, "level": "disabled", "inputs": feeds,
                           "outdir": os.path.join(work, name + ".ort")}, open(job, "w"))
                p = run(["node", ort_run, job], env=dict(os.environ, ORT_NODE=ort))
                if p.returncode != 0 and name in KNOWN_ORT_FAILURES:
                    print("%-24s %-8s known ONNX Runtime failure: %s" % (name, target, KNOWN_ORT_FAILURES[name]))
                elif p.returncode != 0:
                    failures.append("%s float16: ONNX Runtime cannot run it: %s" % (name, (p.stderr or p.stdout).strip()[:300]))
                else:
                    err_ort = 0.0
                    res = json.load(open(os.path.join(work, name + ".ort", "outputs.json")))
                    for k, o in enumerate(res["outputs"]):
                        ref = os.path.join(tds, "output_%d.pb" % k)
                        if not os.path.exists(ref) or o["dtype"] != "float32":
                            continue
                        b = open(o["file"], "rb").read()
                        a = list(struct.unpack("<%df" % (len(b) // 4), b))
                        err, ok = max_err(a, read_tensor(ref)[2], TOL[target])
                        err_ort = max(err_ort, err)
                        if not ok:
                            failures.append("%s float16: ONNX Runtime output %d: max |a-e| %.3g beyond tolerance" %
                                            (name, k, err))
            row = {"model": name, "target": target, "nodes": info["nodes"], "mib": os.path.getsize(out) / 2**20,
                   "ratio": ratio, "kept": kept, "rounds": r["rounds"], "err_ofg": err_ofg, "err_ort": err_ort, "ms": ms}
            rows.append(row)
            print("%-24s %-8s %5d %7.2f %7.3f %5d %5d %10.3g %10s %8.0f" %
                  (name, target, row["nodes"], row["mib"], ratio, kept, r["rounds"], err_ofg,
                   "-" if err_ort is None else "%.3g" % err_ort, ms))
    if json_out:
        json.dump(rows, open(json_out, "w"), indent=1)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
