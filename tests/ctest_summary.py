#!/usr/bin/env python3
"""Summarises ctest JUnit files (ctest --output-junit) so that a skip is never read as a pass.

  ctest_summary.py TITLE FILE.xml [FILE.xml...]

Prints every skipped test with the reason its output gives, every pytest case a passing ctest
skipped inside it (pytest -rs lines), then one line "TITLE: P passed, F failed, S skipped"
(ctest tests: a test that ran and passed, failed or timed out, or did not run). Exit 0.
Standard library only, so any python3 runs it.
"""
import re
import sys
import xml.etree.ElementTree as ET

# Lines that state why a test skipped: scripts print "SKIP: ...", gtest prints "...: Skipped"
# followed by the GTEST_SKIP() message, pytest -rs prints "SKIPPED [N] file:line: reason".
PYTEST_SKIP = re.compile(r"^SKIPPED \[(\d+)\] (.*)$")


def skip_reason(output, message):
    lines = [l.strip() for l in output.splitlines()]
    for i, line in enumerate(lines):
        if line.startswith("SKIP"):
            return line.split(":", 1)[1].strip() if ":" in line else line
        if line.endswith(": Skipped") and i + 1 < len(lines) and lines[i + 1]:
            return lines[i + 1]
        if " skipped" in line.lower() and not line.startswith("["):
            return line
    return message or "no reason printed"


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    title = argv[1]
    passed = failed = skipped = 0
    skips, inner = [], []
    for path in argv[2:]:
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError) as e:
            print("%s: cannot read %s: %s" % (title, path, e))
            failed += 1
            continue
        for case in root.iter("testcase"):
            # gtest_discover_tests names value-parameterized tests "NAME  # GetParam() = <bytes>"
            name = case.get("name", "?").split("  # GetParam()")[0]
            out = case.findtext("system-out") or ""
            status = case.get("status", "")
            skipped_el = case.find("skipped")
            if status == "notrun" or skipped_el is not None:
                skipped += 1
                message = skipped_el.get("message", "") if skipped_el is not None else ""
                skips.append((name, skip_reason(out, message)))
            elif status == "run" and case.find("failure") is None and case.find("error") is None:
                passed += 1
                for line in out.splitlines():
                    m = PYTEST_SKIP.match(line.strip())
                    if m:
                        inner.append((name, int(m.group(1)), m.group(2)))
            else:
                failed += 1
    if skips:
        print("%s: %d skipped:" % (title, len(skips)))
        for name, reason in skips:
            print("  SKIPPED %s: %s" % (name, reason))
    if inner:
        print("%s: cases skipped inside passing tests (counted in those tests, not above):" % title)
        for name, count, reason in inner:
            print("  %s: %d skipped: %s" % (name, count, reason))
    print("%s: %d passed, %d failed, %d skipped" % (title, passed, failed, skipped))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
