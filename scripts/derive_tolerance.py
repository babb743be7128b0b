#!/usr/bin/env python3
"""Derive a compare tolerance file from repeated same-build runs of one machine.

    scripts/derive_tolerance.py RUN.json RUN.json RUN.json ... [--default-pct 3] [--margin 1.5]

Every pair of healthy runs of one build on one machine must compare clean (DESIGN.md,
"Comparator"), so each benchmark's threshold must cover how far its primary figure moves from
one process to the next. For each benchmark ok in every run and each metric compare compares,
the spread is max/min - 1 of the runs' figures (each the median of its repetitions' medians, as
compare takes it). The benchmark's threshold is margin x its largest spread, rounded up to a whole percent, never under --default-pct. Each
metric of a family gets the median of its benchmarks' thresholds where that exceeds the default
(so a stable GPU-side figure keeps a tight threshold beside a noisy host-side one); a benchmark
above its family's threshold gets a pattern of its own (its exact name), so a few noisy sizes do
not widen a whole family and a change in the others is still caught. Writes the tolerance JSON to stdout.
"""
import argparse
import json
import math
import statistics
import sys
from collections import defaultdict


def figures(path):
    with open(path) as f:
        doc = json.load(f)
    medians = defaultdict(list)
    for entry in doc.get("benchmarks", []):
        if entry.get("run_type", "iteration") != "iteration":
            continue
        g = entry.get("gpubench", {})
        primary = g.get("primary_metric")
        if g.get("status") != "ok" or not primary:
            continue
        for metric, m in g.get("metrics", {}).items():
            # compare leaves out time_us behind another primary metric: so does this
            if metric == "time_us" and primary != "time_us":
                continue
            if m and m.get("median") is not None:
                medians[(entry["name"], g.get("family", ""), metric)].append(m["median"])
    return {key: statistics.median(values) for key, values in medians.items()}


def derive(runs, default_pct, margin):
    common = set(runs[0])
    for run in runs[1:]:
        common &= set(run)
    per_metric = {}
    for name, family, metric in sorted(common):
        values = [run[(name, family, metric)] for run in runs]
        if min(values) <= 0:
            continue
        spread_pct = (max(values) / min(values) - 1) * 100
        per_metric[(name, family, metric)] = max(default_pct, math.ceil(margin * spread_pct))
    by_family_metric = defaultdict(list)
    for (name, family, metric), pct in per_metric.items():
        by_family_metric[(family, metric)].append(pct)
    families = defaultdict(dict)
    for (family, metric), values in sorted(by_family_metric.items()):
        typical = math.ceil(statistics.median(values))
        if typical > default_pct:
            families[family][metric] = typical
    # A pattern overrides its family for every metric of the benchmark, so it covers them all.
    worst = defaultdict(int)
    for (name, family, metric), pct in per_metric.items():
        worst[name] = max(worst[name], pct)
    patterns = {}
    for (name, family, metric), pct in sorted(per_metric.items()):
        if pct > families.get(family, {}).get(metric, default_pct):
            patterns[name] = worst[name]
    return len({key[0] for key in common}), {f: {"metrics": m} for f, m in families.items()}, patterns


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--default-pct", type=float, default=3)
    parser.add_argument("--margin", type=float, default=1.5)
    args = parser.parse_args()
    if len(args.runs) < 2:
        sys.exit("derive_tolerance: give at least two runs (five or more to be useful)")
    runs = [figures(path) for path in args.runs]
    count, families, patterns = derive(runs, args.default_pct, args.margin)
    out = {
        "description": (
            f"Derived by scripts/derive_tolerance.py from {len(runs)} same-build runs "
            f"({count} benchmarks ok in all): each threshold is {args.margin} x the largest "
            f"run-to-run spread of the benchmark's primary figure, at least {args.default_pct} %; "
            "each family metric takes the median of its benchmarks, patterns the benchmarks above it."),
        "default_pct": args.default_pct,
        "families": families,
        "patterns": patterns,
    }
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
