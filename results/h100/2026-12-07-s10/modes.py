#!/usr/bin/env python3
"""The figures of issue 32's H100 side-by-side that moved between builds, run by run.

    modes.py FOLDER...

One row per figure (small pinned copy latencies, the SM-driven 16 MiB pinned copies, fp16 8192^3
GEMMs), one column per run found in FOLDER (plain or gzipped JSON), named by folder and file.
"""
import glob
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
from derive_tolerance import load_run  # noqa: E402


def figures(doc):
    out = {}
    for b in doc["benchmarks"]:
        g = b["gpubench"]
        if g["status"] != "ok":
            continue
        p, m = g["params"], g["metrics"]
        if g["family"] == "transfer/memcpy_latency" and p["host"] == "pinned" and p["bytes"] <= 1024:
            out[f'latency {p["dir"]} pinned {p["bytes"]} B, us'] = m["latency_us"]["median"]
        elif g["family"] == "transfer/host_device" and p.get("engine") == "sm":
            for metric in ("d2h_gbps", "h2d_gbps", "bandwidth_gbps"):
                if metric in m:
                    out[f'sm {p["dir"]} 16 MiB {metric}'] = m[metric]["median"]
        elif g["family"] == "gemm/matmul":
            out[f'gemm fp16 8192^3 {p["layout"]} {p["algo"]}, TFLOP/s'] = m[g["primary_metric"]]["median"]
    return out


def main():
    runs = {}
    for folder in sys.argv[1:]:
        for path in sorted(glob.glob(os.path.join(folder, "*.json*"))):
            name = os.path.basename(folder.rstrip("/")) + "/" + os.path.basename(path).split(".json")[0]
            runs[name] = figures(load_run(path))
    rows = sorted({k for r in runs.values() for k in r})
    for row in rows:
        cells = [f"{n.split('/')[-1]} {r[row]:.2f}" for n, r in runs.items() if row in r]
        print(f"{row}: " + ", ".join(cells))


if __name__ == "__main__":
    main()
