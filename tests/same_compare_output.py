#!/usr/bin/env python3
"""Two gpubench binaries give byte-identical compare (and show) output on the corpus.

For a change to how result files are read (issue 28): every JSON file of tests/corpus/ and
results/ is compared against two bases in both orders, in every --format, and shown; stdout,
stderr and the exit code must be the same for both binaries. Extra BASE NEW pairs (the large
generated files of docs/notes-compare.md) are compared the same way.

  tests/same_compare_output.py OLD_GPUBENCH NEW_GPUBENCH SOURCE_DIR [BASE NEW]...
"""
import glob
import os
import subprocess
import sys


def run(binary, args):
    done = subprocess.run([binary] + args, capture_output=True, timeout=600)
    return done.returncode, done.stdout, done.stderr


def main():
    old, new, source = sys.argv[1:4]
    extra = sys.argv[4:]
    files = sorted(glob.glob(os.path.join(source, "tests/corpus/*/*.json")))
    files += sorted(f for f in glob.glob(os.path.join(source, "results/**/*.json"), recursive=True)
                    if os.path.getsize(f) < 3_000_000)
    bases = [os.path.join(source, "tests/corpus/gate_seed/base.json"),
             os.path.join(source, "tests/corpus/healthy_pair/base.json")]
    cases = []
    for f in files:
        for base in bases:
            for fmt in ("table", "md", "json"):
                cases.append(["compare", base, f, "--format", fmt])
                cases.append(["compare", f, base, "--format", fmt])
        cases.append(["show", f, "--format", "json"])
    for base, other in zip(extra[::2], extra[1::2]):
        for fmt in ("table", "md", "json"):
            cases.append(["compare", base, other, "--format", fmt])
    differ = 0
    for args in cases:
        if run(old, args) != run(new, args):
            differ += 1
            print("differs:", " ".join(args))
    print(f"same_compare_output: {len(cases) - differ} of {len(cases)} commands identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
