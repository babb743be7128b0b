#!/usr/bin/env python3
"""Which figures separate the two builds of an A B B A side-by-side.

    separate.py GPUBENCH SUITE old-1=A.json[.gz] old-2=B new-1=C new-2=D

Runs `GPUBENCH compare` (shipped tolerance) on the four cross pairs (old-i against new-j) and the
two same-build pairs, prints each pair's regressed / improved counts, then every figure flagged
the same way in all four cross pairs, its four changes, and the same-build pairs that flag it too.
"""
import collections
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
from derive_tolerance import readable  # noqa: E402

CROSS = [("old-1", "new-1"), ("old-2", "new-2"), ("old-2", "new-1"), ("old-1", "new-2")]
SAME = [("old-1", "old-2"), ("new-1", "new-2")]


def flags(gpubench, base, new):
    done = subprocess.run([gpubench, "compare", base, new, "--format", "json"], capture_output=True, text=True)
    rows = json.loads(done.stdout)["rows"]
    return {(r["benchmark"], r["metric"]): (r["verdict"], r["change_pct"])
            for r in rows if r["verdict"] in ("regressed", "improved")}


def main():
    gpubench, suite = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as folder:
        files = {k: readable(v, folder) for k, v in (a.split("=", 1) for a in sys.argv[3:])}
        found = {}
        for a, b in CROSS + SAME:
            found[(a, b)] = flags(gpubench, files[a], files[b])
            n = collections.Counter(v for v, _ in found[(a, b)].values())
            print(f"{suite} {a} vs {b}: {n['regressed']} regressed / {n['improved']} improved")
    common = set.intersection(*(set(found[p]) for p in CROSS))
    both = sorted(k for k in common if len({found[p][k][0] for p in CROSS}) == 1)
    n = collections.Counter(found[CROSS[0]][k][0] for k in both)
    print(f"{suite}: the same way in all four cross pairs: {n['regressed']} regressed, {n['improved']} improved")
    for k in both:
        also = [f"{a}/{b}" for a, b in SAME if k in found[(a, b)]]
        changes = " ".join(f"{found[p][k][1]:+.1f}%" for p in CROSS)
        print("  ", found[CROSS[0]][k][0], k[0], k[1], changes, ("also same-build " + ",".join(also)) if also else "")


if __name__ == "__main__":
    main()
