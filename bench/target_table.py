#!/usr/bin/python3
"""Per target profile and model: how many nodes are illegal for the target in the model as given,
after `onnxforge optimize` and after `optimize --target NAME` (legalisation), whether the output
verifies against the original by execution, and whether ONNX Runtime runs it and matches the
reference outputs of test_data_set_0 (ORT through DATA/realworld/ort_run.js when ORT_NODE or
BUILD/ort-node provides onnxruntime-node; column "-" otherwise).

Models: DATA/models/*/model.onnx and DATA/realworld/models/*/model.onnx (llama_tiny_dirty among
the former). Each run is `optimize IN OUT --target T --allow-illegal --verify --report R`.

    /usr/bin/python3 bench/target_table.py ONNXFORGE_CLI [DATA_DIR] [--targets a,b] [--models a,b]
                                           [--assert] [--json]

--assert (the ctest `targets_models`): exit 1 when any run fails, any output does not verify,
ONNX Runtime cannot run an output or differs from the reference, or legalisation leaves more
illegal nodes than the optimized model had; exit 77 (skip) without the shared models.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from opset_models import model_dirs, ort_check, ort_module  # noqa: E402  (the same ORT check as opset conversion)

TARGETS = ["tensorrt", "openvino", "rknn", "qnn", "coreml-ort", "opset:13", "opset:18"]


def illegal_in(cli, path, target):
    p = subprocess.run([cli, "check", path, "--target", target, "--json"], capture_output=True, text=True)
    try:
        return json.loads(p.stdout)["illegal_nodes"]
    except (ValueError, KeyError):
        return None


def one(cli, model_dir, target, work, ort, ort_run):
    src = os.path.join(model_dir, "model.onnx")
    tag = os.path.basename(model_dir) + "_" + target.replace(":", "")
    out, rep = os.path.join(work, tag + ".onnx"), os.path.join(work, tag + ".json")
    p = subprocess.run([cli, "optimize", src, out, "--target", target, "--allow-illegal", "--verify", "--report", rep],
                       capture_output=True, text=True)
    row = {"model": os.path.basename(model_dir), "target": target, "exit": p.returncode,
           "given": illegal_in(cli, src, target)}
    if p.returncode != 0 or not os.path.exists(rep):
        row["error"] = (p.stderr.strip().splitlines() or ["?"])[-1][:160]
        return row
    r = json.load(open(rep))
    t = r["target"]
    row.update(before=t["illegal_before"], after=t["illegal_after"], opset="%d->%d" % (t["opset_before"], t["opset_after"]),
               rewrites=len(t["rewrites"]), verified=bool(r["verify"] and r["verify"]["passed"]),
               left=sorted({f["op"] + ":" + f["rule"] for f in t["findings"] if f["op"]}))
    row["ort"] = ort_check(ort, ort_run, out, model_dir, os.path.join(work, tag + "_ort")) if ort else "-"
    return row


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("cli")
    ap.add_argument("data", nargs="?", default=os.environ.get("ONNXFORGE_DATA") or os.path.join(HERE, "..", "..", "shared"))
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--models", default="")
    ap.add_argument("--assert", dest="check", action="store_true")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    cli = os.path.abspath(a.cli)
    dirs = model_dirs(a.data, set(filter(None, a.models.split(","))))
    if not dirs:
        print("SKIP: no shared models under %s" % a.data)
        return 77
    ort = ort_module(cli)
    ort_run = os.path.join(a.data, "realworld", "ort_run.js")
    if not ort:
        print("note: ONNX Runtime not available (set ORT_NODE): ORT column '-'")
    rows, bad = [], []
    with tempfile.TemporaryDirectory(prefix="ofg_targets_") as work:
        for target in a.targets.split(","):
            for d in dirs:
                os.makedirs(os.path.join(work, os.path.basename(d) + "_" + target.replace(":", "") + "_ort"), exist_ok=True)
                row = one(cli, d, target, work, ort, ort_run)
                rows.append(row)
                problem = row.get("error")
                if not problem and not row["verified"]:
                    problem = "output does not verify"
                if not problem and row["after"] > row["before"]:
                    problem = "legalisation left more illegal nodes"
                if not problem and str(row["ort"]).startswith("FAIL"):
                    problem = "ONNX Runtime: " + row["ort"]
                if problem:
                    bad.append("%s %s: %s" % (row["target"], row["model"], problem))
    if a.json:
        print(json.dumps(rows, indent=1))
    else:
        print("%-11s %-24s %6s %9s %6s %6s %8s %4s %-9s %s" % ("target", "model", "given", "optimized", "after", "opset",
                                                                "rewrites", "ver", "ort", "left (op:rule)"))
        for r in rows:
            if "error" in r:
                print("%-11s %-24s ERROR exit %d: %s" % (r["target"], r["model"], r["exit"], r["error"]))
                continue
            left = ", ".join(r["left"][:5]) + (" ..." if len(r["left"]) > 5 else "")
            print("%-11s %-24s %6s %9d %6d %6s %8d %4s %-9s %s" % (r["target"], r["model"], r["given"], r["before"], r["after"],
                                                                    r["opset"], r["rewrites"], "ok" if r["verified"] else "NO",
                                                                    r["ort"], left))
    for b in bad:
        print("PROBLEM: " + b)
    return 1 if a.check and bad else 0


if __name__ == "__main__":
    sys.exit(main())
