#!/usr/bin/env python3
"""compare of two 400 MB result files within 10 s and 1 GB (issue 28, docs/notes-compare.md).

Generates the pair in a temporary folder under /tmp (make_large_run.py), runs
`gpubench compare OLD NEW`, checks its verdict line, wall time and peak memory (the child's
ru_maxrss), and deletes the files. CTest label `large`; it takes minutes (the generator, mostly),
so it runs only when asked:

  GPUBENCH_LARGE_TESTS=1 ctest --test-dir build-nocuda -L large --output-on-failure
  tests/large_compare.py build-nocuda/gpubench .   # the same, by hand (CTest adds --ctest)
"""
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

WALL_LIMIT_S = 10.0
RSS_LIMIT_BYTES = 1 << 30
EXPECTED = ("compare: 2152 regressed, 0 not ok, 0 missing, 14 noisy, 2514 improved, 0 new, "
            "113256 same -> FAIL")


def main():
    gpubench, source = sys.argv[1], sys.argv[2]
    if "--ctest" in sys.argv[3:] and os.environ.get("GPUBENCH_LARGE_TESTS") != "1":
        print("large_compare: set GPUBENCH_LARGE_TESTS=1 to run it")
        return 77
    seed = os.path.join(source, "results/h200/2026-12-02-collective-run1.json.gz")
    make = os.path.join(source, "tests/make_large_run.py")
    folder = tempfile.mkdtemp(prefix="gpubench-large-", dir="/tmp")
    try:
        old, new = os.path.join(folder, "old.json"), os.path.join(folder, "new.json")
        subprocess.run([sys.executable, make, seed, old, "--mb", "400"], check=True)
        subprocess.run([sys.executable, make, seed, new, "--mb", "400", "--changed"], check=True)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.monotonic()
        done = subprocess.run([gpubench, "compare", old, new], capture_output=True, text=True)
        wall = time.monotonic() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        rss = after.ru_maxrss * 1024  # the largest child: compare, far above the generator
        print(f"large_compare: {os.path.getsize(old)} + {os.path.getsize(new)} bytes: wall {wall:.1f} s, "
              f"cpu {cpu:.1f} s, max RSS {rss / 1e9:.2f} GB, exit {done.returncode}")
        ok = True
        if done.returncode != 1 or EXPECTED not in done.stdout:
            print(f"large_compare: unexpected verdict (exit {done.returncode}): {done.stdout[-300:]}{done.stderr}")
            ok = False
        if wall > WALL_LIMIT_S:
            print(f"large_compare: {wall:.1f} s is over the {WALL_LIMIT_S} s limit")
            ok = False
        if rss > RSS_LIMIT_BYTES:
            print(f"large_compare: {rss / 1e9:.2f} GB is over the {RSS_LIMIT_BYTES / 1e9:.2f} GB limit")
            ok = False
        return 0 if ok else 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
