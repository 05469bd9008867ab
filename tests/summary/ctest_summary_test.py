#!/usr/bin/env python3
"""tests/ctest_summary.py on a JUnit file as ctest writes it: a skip is counted as skipped (with
the reason its output gives: a script's SKIP line, a GTEST_SKIP message), never as passed; pytest
cases skipped inside a passing test are listed; failures and timeouts count as failed."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "ctest_summary.py")

JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="t" tests="6" failures="2" disabled="0" skipped="2" hostname="" time="0" timestamp="x">
  <testcase name="passes" classname="passes" time="0.1" status="run"><system-out>ok
</system-out></testcase>
  <testcase name="script_skip" classname="script_skip" time="0.1" status="notrun">
    <skipped message="SKIP_RETURN_CODE=77"/><system-out>SKIP: no models in data/models
</system-out></testcase>
  <testcase name="Suite.Gtest" classname="Suite.Gtest" time="0.1" status="notrun">
    <skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/><system-out>[ RUN      ] Suite.Gtest
tests/x_test.cpp:12: Skipped
no data folder (set ONNXFORGE_DATA)
[  SKIPPED ] Suite.Gtest (0 ms)
</system-out></testcase>
  <testcase name="python_binding" classname="python_binding" time="1" status="run"><system-out>..s.
SKIPPED [2] tests/test_x.py:40: shared model bert not found
3 passed, 2 skipped in 1.0s
</system-out></testcase>
  <testcase name="fails" classname="fails" time="0.1" status="fail"><failure message=""/><system-out>bad
</system-out></testcase>
  <testcase name="times_out" classname="times_out" time="9" status="fail"><failure message="Timeout"/></testcase>
</testsuite>
"""


def main():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "j.xml")
        with open(path, "w") as f:
            f.write(JUNIT)
        out = subprocess.run([sys.executable, SCRIPT, "Demo", path], stdout=subprocess.PIPE,
                             universal_newlines=True, check=True).stdout
    print(out)
    want = [
        "Demo: 2 skipped:",
        "  SKIPPED script_skip: no models in data/models",
        "  SKIPPED Suite.Gtest: no data folder (set ONNXFORGE_DATA)",
        "  python_binding: 2 skipped: tests/test_x.py:40: shared model bert not found",
    ]
    lines = out.splitlines()
    missing = [w for w in want if w not in lines]
    ok = not missing and lines[-1] == "Demo: 2 passed, 2 failed, 2 skipped"
    print("1 passed, 0 failed" if ok else "missing or wrong: %s; last line %r\n0 passed, 1 failed" % (missing, lines[-1]))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
