#!/usr/bin/env python3
"""gpubench's cuDNN attention figures beside torch's, with what tune saw while ranking.

    rank_vs_final.py RUN.json[.gz] PEER.jsonl[.gz]

Per shape: gpubench's figure (the chosen plan measured alone, time_us), the chosen plan's and the
fastest plan's medians in the interleaved ranking, torch's time, and whether the run's telemetry
saw the power cap; then the counts at 0.98x torch or better for the figure and for the ranking's
best, split at calls of 250 us."""
import gzip
import json
import statistics
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return f.read()


def main():
    run = json.loads(load(sys.argv[1]))
    peer = {j["name"]: j for j in map(json.loads, load(sys.argv[2]).splitlines()) if "time_us" in j}
    groups = {}
    print("| shape | gpubench us | chosen, ranked us | fastest ranked us | torch us | torch / gpubench | torch / fastest ranked | power cap |")
    print("|---|---|---|---|---|---|---|---|")
    for b in run["benchmarks"]:
        g = b["gpubench"]
        if b["name"] not in peer or g.get("status") != "ok":
            continue
        ranked = [c["median_us"] for c in g["choice"]["candidates"] if c["status"] == "ok"]
        chosen = g["choice"]["candidates"][g["choice"]["chosen_index"]]["median_us"]
        torch_us, final = peer[b["name"]]["time_us"], b["time_us"]
        capped = g["telemetry"].get("throttled")
        shape = b["name"].split("impl:cudnn/")[1].replace("/gpu:gpu0", "")
        print(f"| {shape} | {final:.1f} | {chosen:.1f} | {min(ranked):.1f} | {torch_us:.1f} | {torch_us / final:.3f} | "
              f"{torch_us / min(ranked):.3f} | {'yes' if capped else 'no'} |")
        groups.setdefault(final >= 250, []).append((torch_us / final, torch_us / min(ranked), final / chosen))
    for long_calls, rows in sorted(groups.items()):
        print(f"\ncalls {'of 250 us and more' if long_calls else 'under 250 us'}: {len(rows)}; at 0.98x torch or better: "
              f"{sum(r[0] >= 0.98 for r in rows)} by the figure, {sum(r[1] >= 0.98 for r in rows)} by the ranking's fastest; "
              f"figure / chosen plan's ranked median: median {statistics.median(r[2] for r in rows):.3f}")


if __name__ == "__main__":
    main()
