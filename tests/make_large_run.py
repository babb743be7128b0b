#!/usr/bin/env python3
"""Write a large run document by replicating a committed run under unique benchmark names.

Used to measure `gpubench compare` on result files of hundreds of MB (issue 28). With --changed
the copy is the "new" side: every 50th replica has its samples scaled by 0.9 and every 70th by
1.1, so the comparison has real regressions and improvements to find, deterministically.

  tests/make_large_run.py SOURCE.json[.gz] OUT.json --mb 400 [--changed]
"""
import argparse
import copy
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from derive_tolerance import load_run  # noqa: E402


def scaled(benchmark, factor):
    b = copy.deepcopy(benchmark)
    for metric in b.get("gpubench", {}).get("metrics", {}).values():
        if isinstance(metric.get("values"), list):
            metric["values"] = [v * factor if isinstance(v, (int, float)) else v for v in metric["values"]]
        for key in ("median", "mean", "min", "max"):
            if isinstance(metric.get(key), (int, float)):
                metric[key] *= factor
    return b


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("source")
    parser.add_argument("out")
    parser.add_argument("--mb", type=float, default=400)
    parser.add_argument("--changed", action="store_true")
    args = parser.parse_args()

    doc = load_run(args.source)
    benchmarks = doc["benchmarks"]
    source_bytes = len(json.dumps(benchmarks))  # written compact, whatever the source's layout
    replicas = max(1, round(args.mb * 1e6 / source_bytes))

    with open(args.out, "w") as out:
        head = {k: v for k, v in doc.items() if k != "benchmarks"}
        out.write(json.dumps(head)[:-1] + ', "benchmarks": [\n')
        first = True
        for replica in range(replicas):
            factor = 1.0
            if args.changed and replica % 50 == 1:
                factor = 0.9
            elif args.changed and replica % 70 == 2:
                factor = 1.1
            for benchmark in benchmarks:
                b = scaled(benchmark, factor) if factor != 1.0 else dict(benchmark)
                for key in ("name", "run_name"):
                    if key in b:
                        b[key] = f"{b[key]}/copy:{replica}"
                out.write(("" if first else ",\n") + json.dumps(b))
                first = False
        out.write("\n]}\n")


if __name__ == "__main__":
    main()
