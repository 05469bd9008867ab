#!/usr/bin/env python3
"""Runs bench_io with repetitions and prints the median-based ratios against the I/O floors.

usage: bench/io_ratios.py BUILD_DIR [MODEL]
"""
import json
import subprocess
import sys

build = sys.argv[1]
cmd = [build + "/bench/bench_io", "--benchmark_repetitions=10", "--benchmark_format=json",
       "--benchmark_report_aggregates_only=true"] + sys.argv[2:]
out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
median = {b["run_name"]: b["real_time"] for b in out["benchmarks"] if b.get("aggregate_name") == "median"}
for name, t in median.items():
    print(f"{name:20s} {t:9.2f} ms (median of 10)")
print(f"load / read          {median['Load'] / median['ReadFile']:.2f}x  (target <= 1.5x)")
print(f"load+touch / read    {median['LoadTouchWeights'] / median['ReadFile']:.2f}x  (every weight page read once)")
print(f"load+save / read+write {median['LoadSave'] / median['ReadWrite']:.2f}x  (target <= 2x)")
