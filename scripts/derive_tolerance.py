#!/usr/bin/env python3
"""Derive a compare tolerance file from repeated same-build runs on one machine.

    scripts/derive_tolerance.py RUN.json... [--floor-pct 3] [--margin 1.25] > configs/tolerance.json

Every pair of healthy runs of one build must compare clean, and a real change must still be
caught (DESIGN.md, "Comparator"). A single percentage cannot do both for a figure whose healthy
value moves from one process to the next (a host-side launch cost that sits at 0.17 or at
0.35 us): the percentage that keeps those pairs quiet would pass a doubled cost. So each
figure gets a noise-scaled threshold:

  * the runs are grouped into sets of one build and one command line (the output paths left
    out), so that a change between builds or presets is not counted as noise; a run that did not
    finish is damaged, not noise, and is left out;
  * a figure's spread is the largest max - min of its headline values (the median of its
    repetitions' medians, as compare takes it) within any set, over every GPU (pair) of the run;
  * its entry is the benchmark's name with GPU placeholders (gpu:*, src:*, dst:*, peer:*), so it
    serves every GPU of a node: {"pct": FLOOR, "min_change": {metric: MARGIN x spread}} (the
    min_change in the metric's unit, written where it exceeds FLOOR % of the figure);
  * compare calls a change beyond its threshold only when it exceeds both FLOOR % and
    min_change: a healthy pair moves at most the spread, under min_change; a doubled cost
    moves by the whole figure, which is caught wherever that is more than MARGIN x spread;
  * figures these runs did not measure get the file's default_pct (FLOOR).

Any set of files may be given, plain or gzipped (RUN.json.gz); sets of one run add nothing. The
file records which, in "derived_from". Writes the tolerance JSON to stdout; a summary goes to stderr.
"""
import argparse
import gzip
import json
import math
import os
import re
import shutil
import statistics
import sys
from collections import defaultdict

GPU_AXES = ("gpu", "src", "dst", "peer")
OUTPUT_OPTIONS = ("--out", "--telemetry-trace")


def placeholder_name(name):
    """gpubench's generalise_gpu_name: every GPU axis value gpuN becomes *."""
    parts = []
    for part in name.split("/"):
        axis, _, value = part.partition(":")
        if axis in GPU_AXES and re.fullmatch(r"gpu[0-9]{1,4}", value):
            part = axis + ":*"
        parts.append(part)
    return "/".join(parts)


def config_name(path):
    """A preset by its folder and file name (acceptance/h200.json): the same preset read from
    the source tree or from a copy beside a binary is one preset."""
    return "/".join(path.split("/")[-2:])


def preset_of(command_line):
    """The command line without the executable and the paths results were written to."""
    words, out, skip = command_line.split(), [], None
    for word in words[1:]:
        if skip == "--config":
            out.append(config_name(word))
        elif skip is None and word in OUTPUT_OPTIONS + ("--config",):
            if word == "--config":
                out.append(word)
            skip = word
            continue
        elif skip is None and word.startswith("--config="):
            out.append("--config=" + config_name(word[len("--config="):]))
        elif skip is None and not word.startswith(tuple(o + "=" for o in OUTPUT_OPTIONS)):
            out.append(word)
        skip = None
    return " ".join(out)


def is_points(metric, unit):
    return unit == "%" or metric.endswith("_pct")


def load_run(path):
    """A result file as committed: plain JSON or gzipped (RUN.json.gz)."""
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def readable(path, scratch):
    """gpubench reads plain JSON: a gzipped run is unpacked into scratch under its own path."""
    if not path.endswith(".gz"):
        return path
    target = os.path.join(scratch, path.lstrip(os.sep)[:-len(".gz")])
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with gzip.open(path, "rb") as packed, open(target, "wb") as plain:
        shutil.copyfileobj(packed, plain)
    return target


def finished(doc):
    """A run that did not finish (context.gpubench.complete false) is damage, not noise."""
    return doc.get("context", {}).get("gpubench", {}).get("complete") is not False


def read_run(path):
    doc = load_run(path)
    context = doc.get("context", {})
    gb = context.get("gpubench", {})
    gpus = gb.get("gpus") or [{}]
    run = {
        "file": path,
        "date": context.get("date", ""),
        "git_commit": gb.get("git_commit", ""),
        "command": preset_of(gb.get("command_line", "")),
        "gpu": gpus[0].get("name", ""),
        "complete": finished(doc),
        "figures": {},
        "units": {},
    }
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
            if metric == "time_us" and primary != "time_us" and primary in g["metrics"]:
                continue
            if m and isinstance(m.get("median"), (int, float)):
                medians[(entry["name"], metric)].append(m["median"])
                run["units"][metric] = m.get("unit", "")
    run["figures"] = {key: statistics.median(values) for key, values in medians.items()}
    return run


def round_up(value, digits=3):
    """Up to `digits` significant digits, never below the value."""
    if value <= 0:
        return 0
    scale = 10 ** (digits - 1 - math.floor(math.log10(value)))
    return math.ceil(value * scale - 1e-9) / scale


def spreads(runs):
    """Per (placeholder name, metric): the largest within-set spread and the lowest figure."""
    sets = defaultdict(list)
    for run in runs:
        sets[(run["git_commit"], run["gpu"], run["command"])].append(run)
    out = {}
    for members in sets.values():
        if len(members) < 2:
            continue
        keys = set().union(*(run["figures"] for run in members))
        for name, metric in keys:
            values = [run["figures"][(name, metric)] for run in members if (name, metric) in run["figures"]]
            if len(values) < 2:
                continue
            key = (placeholder_name(name), metric)
            spread, low = max(values) - min(values), min(abs(v) for v in values)
            old = out.get(key)
            out[key] = (max(spread, old[0]), min(low, old[1])) if old else (spread, low)
    return sets, out


def derive(runs, floor_pct, margin):
    sets, figure_spreads = spreads(runs)
    units = {}
    for run in runs:
        units.update(run["units"])
    patterns = {}
    for (name, metric), (spread, low) in sorted(figure_spreads.items()):
        entry = patterns.setdefault(name, {"pct": floor_pct})
        min_change = round_up(margin * spread)
        floor_share = floor_pct if is_points(metric, units.get(metric, "")) else floor_pct / 100 * low
        if min_change > floor_share:
            entry.setdefault("min_change", {})[metric] = min_change
    return sets, patterns


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--floor-pct", type=float, default=3,
                        help="no change under this is a regression (the file's default_pct)")
    parser.add_argument("--margin", type=float, default=1.25,
                        help="min_change is this many times a figure's largest healthy spread")
    args = parser.parse_args()
    if float(args.floor_pct).is_integer():
        args.floor_pct = int(args.floor_pct)
    runs = []
    for run in map(read_run, args.runs):
        if run["complete"]:
            runs.append(run)
        else:
            print(f"derive_tolerance: {run['file']} did not finish: damaged, not noise, left out", file=sys.stderr)
    sets, patterns = derive(runs, args.floor_pct, args.margin)
    derived_sets = [members for members in sets.values() if len(members) >= 2]
    used = [run for members in derived_sets for run in members]
    if not used:
        sys.exit("derive_tolerance: no two runs of one build and command line: nothing to derive from")
    for (commit, gpu, command), members in sorted(sets.items()):
        print(f"derive_tolerance: {len(members)} run(s) of {commit} on {gpu}: {command}"
              + ("" if len(members) >= 2 else " (one run: no spread, left out)"), file=sys.stderr)
    floor = f"{args.floor_pct:g}"
    out = {
        "description": (
            f"Thresholds for gpubench compare and compare --fleet (their default), derived by "
            f"scripts/derive_tolerance.py from {len(used)} same-build runs on "
            f"{', '.join(sorted({run['gpu'] for run in used}))} in {len(derived_sets)} sets (a set: one build and "
            "one command line; the runs are listed in derived_from). A figure's spread is the largest max - min "
            "of its headline values (median of repetition medians) within any set, over every GPU; its entry, "
            f"the benchmark's name with gpu:* so that it serves every GPU of a node, holds pct {floor} and "
            f"min_change {args.margin:g} x that spread in the metric's unit. A change is beyond its threshold "
            f"only when it exceeds both {floor} % and min_change: two healthy runs move a figure by at most its "
            "spread, so they compare clean; a doubled cost moves it by the whole figure, caught wherever the "
            f"figure is more than {args.margin:g} x its spread (a 5 % slower triad at HBM sizes exceeds "
            f"{floor} %). Figures the runs did not measure get default_pct. Regenerate from more runs with "
            "scripts/derive_tolerance.py RUN.json... > configs/tolerance.json."),
        "derived_from": {
            "runs": len(used),
            "files": [{"file": run["file"], "date": run["date"], "git_commit": run["git_commit"],
                       "gpu": run["gpu"], "command": run["command"]} for run in used],
        },
        "default_pct": args.floor_pct,
        "patterns": patterns,
    }
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
