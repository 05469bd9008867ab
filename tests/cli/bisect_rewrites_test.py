"""bench/bisect_rewrites.py against checks made to fail after the k-th rewrite of a shared model
(resnet18_dirty: 20 Conv+BatchNormalization rewrites among 21): one check reads the optimize
report, the other the optimized model itself (its BatchNormalization count, by `inspect`).
The script must name rewrite k: its budget, rule and node. Skips (exit 77) without the data.
    bisect_rewrites_test.py ONNXFORGE_CLI"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
SCRIPT = os.path.join(ROOT, "bench", "bisect_rewrites.py")
CLI = os.path.abspath(sys.argv[1])
DATA = os.environ.get("ONNXFORGE_DATA", os.path.join(ROOT, "..", "shared"))
MODEL = os.path.join(DATA, "models", "resnet18_dirty", "model.onnx")
PY = shlex.quote(sys.executable)


def bisect(check):
    p = subprocess.run([sys.executable, SCRIPT, "--cli", CLI, "--check", check, MODEL], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def all_rewrites(tmp):
    out, rep = os.path.join(tmp, "o.onnx"), os.path.join(tmp, "r.json")
    subprocess.run([CLI, "optimize", MODEL, out, "--max-rewrites", "100000", "--report", rep], check=True,
                   capture_output=True)
    with open(rep) as f:
        return json.load(f)["pipeline"]["rewrites"]


def main():
    if not os.path.isfile(MODEL):
        print("SKIP: no " + MODEL)
        return 77
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        rewrites = all_rewrites(tmp)
        bn = [i for i, w in enumerate(rewrites, 1) if w["rule"] == "conv_batchnorm"]
        assert len(bn) >= 10, rewrites
        # 1. Report-based: the check fails once more than k - 1 rewrites were made.
        k = bn[6]
        check = PY + " -c " + shlex.quote(
            "import json,sys; sys.exit(json.load(open(sys.argv[1]))['pipeline']['rewrites_made'] > %d)" % (k - 1)) + " {report}"
        rc, text = bisect(check)
        want = rewrites[k - 1]
        ok = rc == 0 and ("first failing budget: %d of" % k) in text and ("node %s " % want["node"]) in text and \
            "rule conv_batchnorm" in text
        print(("PASS" if ok else "FAIL") + " report-based check, k=%d:\n%s" % (k, text))
        failures += not ok
        # 2. Output-based: the check fails once the optimized model has fewer BatchNormalization
        # nodes than the original less (j - 1): the j-th fused BN breaks it.
        j = 9
        before = json.loads(subprocess.run([CLI, "inspect", MODEL, "--json"], capture_output=True, text=True,
                                           check=True).stdout)["ops"].get("BatchNormalization", 0)
        inspect = shlex.quote(CLI) + " inspect {optimized} --json | " + PY + " -c " + shlex.quote(
            "import json,sys; n=json.load(sys.stdin)['ops'].get('BatchNormalization',0); sys.exit(n < %d)" % (before - (j - 1)))
        rc, text = bisect(inspect)
        want = rewrites[bn[j - 1] - 1]
        ok = rc == 0 and ("first failing budget: %d of" % bn[j - 1]) in text and ("node %s " % want["node"]) in text
        print(("PASS" if ok else "FAIL") + " output-based check, j=%d:\n%s" % (j, text))
        failures += not ok
        # 3. A check that always passes: nothing to bisect (exit 1).
        rc, text = bisect("true")
        ok = rc == 1 and "nothing to bisect" in text
        print(("PASS" if ok else "FAIL") + " passing check: " + text)
        failures += not ok
    print("%d passed, %d failed" % (3 - failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
