#!/usr/bin/env python3
"""gpubench beside a PyTorch peer on the same shapes: joins a gpubench run file with a peer's JSON
lines (torch_gemm.py, torch_conv.py, torch_attention.py) by benchmark name and prints a markdown
table of both figures and their ratio.

  side_by_side.py RUN.json PEER.jsonl [--metric tflops] [--floor 0.98] [--rename FROM=TO]

One row per peer line: gpubench's figure (the median of its repetitions' medians of METRIC, as
compare takes it), the peer's, and gpubench / peer. A side that did not measure says why (skipped
with its reason, failed, not in the run). --rename FROM=TO rewrites a part of the peer's names
first: `--rename impl:torch_flash=impl:gpubench` sets gpubench's own attention kernel beside
torch's FlashAttention-2 backend. Exit 0 when every row has both figures and a ratio of at least
--floor, 1 otherwise, 2 on bad usage or an unreadable file.
"""
import argparse
import json
import statistics
import sys


def gpubench_figures(path, metric):
    """name -> (median of the ok repetitions' medians, or None) and name -> why not, from a run file."""
    with open(path) as f:
        doc = json.load(f)
    medians, status = {}, {}
    for entry in doc.get("benchmarks", []):
        name, g = entry.get("name", ""), entry.get("gpubench", {})
        if g.get("status", "ok") != "ok":
            status[name] = g.get("status") + (": " + g["error"] if g.get("error") else "")
            continue
        m = g.get("metrics", {}).get(metric)
        if m is not None and m.get("median") is not None:
            medians.setdefault(name, []).append(m["median"])
    return {name: statistics.median(values) for name, values in medians.items()}, status


def peer_lines(path, renames):
    lines = []
    with open(path) as f:
        for number, text in enumerate(f, 1):
            if not text.strip():
                continue
            try:
                line = json.loads(text)
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{number}: not JSON ({error})")
            for old, new in renames:
                line["name"] = line.get("name", "").replace(old, new)
            lines.append(line)
    return lines


def number(value):
    return f"{value:.4g}" if value is not None else "-"


def table(figures, status, lines, metric, floor):
    rows, short = [], 0
    for line in lines:
        name = line.get("name", "")
        ours, theirs = figures.get(name), line.get(metric)
        ratio = ours / theirs if ours is not None and theirs else None
        why = ""
        if ours is None:
            why = "gpubench " + status.get(name, "did not run it")
        if theirs is None:
            why += ("; " if why else "") + "peer " + ("skipped: " + line["skipped"] if "skipped" in line else "has no " + metric)
        if ratio is None or ratio < floor:
            short += 1
        rows.append(f"| {name} | {number(ours)} | {number(theirs)} | {number(ratio)} | {why} |")
    head = [f"| benchmark | gpubench {metric} | peer {metric} | gpubench / peer | note |", "|---|---|---|---|---|"]
    summary = f"{len(lines) - short} of {len(lines)} at {floor} x the peer or better"
    return head + rows, summary, short


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("peer")
    parser.add_argument("--metric", default="tflops")
    parser.add_argument("--floor", type=float, default=0.98)
    parser.add_argument("--rename", action="append", default=[], help="FROM=TO, in the peer's names")
    args = parser.parse_args()
    try:
        renames = [tuple(r.split("=", 1)) for r in args.rename]
        if any(len(r) != 2 or not r[0] for r in renames):
            raise ValueError("--rename takes FROM=TO")
        figures, status = gpubench_figures(args.run, args.metric)
        lines = peer_lines(args.peer, renames)
    except (OSError, ValueError) as error:
        print(f"side_by_side.py: {error}", file=sys.stderr)
        return 2
    rows, summary, short = table(figures, status, lines, args.metric, args.floor)
    print("\n".join(rows))
    print(f"\n{summary}")
    return 1 if short or not lines else 0


if __name__ == "__main__":
    sys.exit(main())
