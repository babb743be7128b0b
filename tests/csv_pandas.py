#!/usr/bin/env python3
"""Renders a saved run as CSV with `gpubench show` and reads it with pandas, as an analyst
would, with no cleaning: every figure column must come back numeric and every row tidy.

  csv_pandas.py GPUBENCH RUN.json
"""
import io
import subprocess
import sys

try:
    import pandas
except ImportError:
    print("SKIP: pandas is not installed for this Python (Debian: python3-pandas)")
    sys.exit(77)

NUMERIC = ["gpu_index", "repetition", "median", "mean", "min", "max", "stddev", "cv_pct", "samples",
           "pct_of_peak"]

gpubench, run = sys.argv[1:3]
text = subprocess.run([gpubench, "show", run, "--format", "csv"], check=True, capture_output=True,
                      text=True, timeout=60).stdout
frame = pandas.read_csv(io.StringIO(text))
problems = [f"{c}: {frame[c].dtype}" for c in NUMERIC if not pandas.api.types.is_numeric_dtype(frame[c])]
ok = frame[frame["status"] == "ok"]
if ok.empty or ok["median"].isna().any() or ok["metric"].isna().any() or ok["unit"].isna().any():
    problems.append("an ok row without its metric, unit or median")
if problems:
    sys.exit("not numeric or not tidy: " + "; ".join(problems))
print(f"{run}: {len(frame)} rows, {frame['metric'].nunique()} metrics, numeric figures")
