#!/usr/bin/env python3
"""Every pair of committed same-build runs compares clean with the shipped tolerance.

  same_build_pairs.py GPUBENCH SOURCE_DIR

The runs under results/ (plain *.json and gzipped *.json.gz, in any folder) are grouped into sets
of one build, one physical GPU and one command line (the output paths left out), as
scripts/derive_tolerance.py groups them by GPU model. For every set of two runs or more,
`gpubench compare A B` of every ordered pair and `gpubench compare --fleet` of the whole set, with
compare's defaults (the shipped configs/tolerance.json), must exit 0 with nothing regressed or
flagged. DESIGN.md, "Comparator": two healthy runs of one build
compare clean.

A run that did not finish (context.gpubench.complete false) is damaged, not noise: it is left
out here (compare fails it, as the corpus tests check). One committed run predates a rule and is
unjudgeable under it on purpose: it is listed in WRITTEN_BEFORE with the one benchmark and metric
its compares may call not ok; every other line of its pairs must still be clean. Sets in a folder
of MAY_MISS compare with --allow-missing, and the old side of issue 32's side-by-sides (OLD_SIDE)
and sets whose runs straddle a change of the machine (MACHINE_CHANGED) are listed, not judged, for
the reasons given there.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from derive_tolerance import finished, load_run, preset_of, readable  # noqa: E402


# launch/event's wait_latency_us is a difference of two hop times; builds before it was written
# with "difference": true judged its two samples <= 0 (0.015 us median, H100, --concurrent) as damage.
WRITTEN_BEFORE = {
    "results/h100/2026-12-05-launch-host-node-2.json":
        "launch/event/op:cross_stream_wait/mode:node/gpu:gpu0: cannot be judged: metric wait_latency_us",
}


# Builds before the size rule (collective_model.h, host_timed) recorded the collective's
# time_host_us only where a sample held 20 collectives or more; at 64 MiB on one H100 the batch
# sizing landed on either side of 20, so one run of a pair has the metric and the other not
# (sendrecv, fp16). Every figure both runs hold must still be clean.
MAY_MISS = {
    "results/h100/2026-12-06-s4/collective-sbs/":
        "collective time_host_us present only where a sample held 20 collectives or more (older build)",
}


# Issue 32's old side: the pre-v3 base build, run in these folders beside each v3 build. It timed
# one rank's collectives and conv layers unheld and launch's host figures on a clock of its own,
# so the tolerance derived for the v3 measurement is not its yardstick (its pairs there differ by
# up to 66 collective figures). Its runs at results/<gpu>/, from which the tolerance was first
# derived, are still judged.
OLD_SIDE_BUILD = "c57d64034681"
OLD_SIDE_FOLDERS = ("results/h100/2026-12-06-s4/", "results/h100/2026-12-06-s5/", "results/h100/2026-12-06-sbs/",
                    "results/h100/2026-12-07-s8/", "results/h100/2026-12-07-s9/",
                    "results/h100/2026-12-07-s10/",
                    "results/h200/2026-12-06-s5/", "results/h200/2026-12-07-s12/")


# Sets whose runs straddle a change of the machine, not noise: listed, not judged, and left out of
# the tolerance's derivation (docs/acceptance.md). In results/h200/2026-12-07-s12/ both builds'
# transfer runs of the second call, 16 minutes after the first, read the host-to-device copies 5-25 %
# lower (write-combined h2d 64 KiB by SM 40.0 and 41.5 -> 31.8 and 32.4 GB/s; pinned h2d 1 GiB by
# copy engine 55.4 -> 50.8 and 47.2), in time order whichever build ran, while every
# device-to-host copy held (pinned d2h 1 GiB 55.3 in all four): the host served the GPU's reads
# of its memory slower, which compare is right to flag.
MACHINE_CHANGED = {
    ("results/h200/2026-12-07-s12/", "--suite transfer"): "the host's memory served host-to-device copies 5-25 % slower "
                                                          "in the second call, both builds, device-to-host unchanged",
}


def machine_changed(command, names):
    return [reason for (folder, preset), reason in MACHINE_CHANGED.items()
            if preset == command and all(n.startswith(folder) for n in names)]


def old_side(commit, names):
    return commit == OLD_SIDE_BUILD and all(n.startswith(OLD_SIDE_FOLDERS) for n in names)


def run_key(path):
    doc = load_run(path)
    if not isinstance(doc, dict) or "benchmarks" not in doc or not finished(doc):
        return None  # not a run file (a preset or a peer's output kept beside the runs), or damaged
    gb = doc.get("context", {}).get("gpubench", {})
    gpus = gb.get("gpus") or [{}]
    # One build on one physical GPU: two H200s differ by up to 6 % in clock-bound figures
    # (docs/notes.md, 2026-12-02 late), which is the GPU, not noise of the build.
    uuids = ",".join(g.get("uuid", "") for g in gpus)
    return gb.get("git_commit", ""), uuids, preset_of(gb.get("command_line", ""))


def only_known_unjudgeable(out, err, known, fleet):
    """A compare that failed only because a WRITTEN_BEFORE run's listed metric cannot be judged."""
    clean = " 0 outlier, 0 missing," in out if fleet else " 0 regressed, " in out and " 0 missing," in out
    reasons = [line for line in err.splitlines() if "cannot be judged" in line]
    not_ok = re.search(r" (\d+) not ok", out)
    return (clean and bool(reasons) and all(any(k in line for k in known) for line in reasons)
            and not_ok is not None and int(not_ok.group(1)) <= len(reasons))


def gpubench(exe, args):
    done = subprocess.run([exe] + args, capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


def run_sets(source):
    sets = defaultdict(list)
    for pattern in ("*.json", "*.json.gz"):
        for path in glob.glob(os.path.join(source, "results", "**", pattern), recursive=True):
            key = run_key(path)
            if key is not None:
                sets[key].append(path)
    return {key: sorted(paths) for key, paths in sets.items() if len(paths) >= 2}


def main():
    exe, source = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as scratch:
        return judge_sets(exe, source, run_sets(source), scratch)


def judge_sets(exe, source, sets, scratch):
    failures, pairs, fleets = 0, 0, 0
    for (commit, gpu, command), packed in sorted(sets.items()):
        names = [os.path.relpath(p, source) for p in packed]
        if old_side(commit, names):
            print(f"not judged, issue 32's old side: {len(names)} runs of {commit}: {command}\n  " + ", ".join(names))
            continue
        changed = machine_changed(command, names)
        if changed:
            print(f"not judged, {changed[0]}: {len(names)} runs of {commit}: {command}\n  " + ", ".join(names))
            continue
        paths = [readable(p, scratch) for p in packed]
        fleets += 1
        print(f"{len(paths)} runs of {commit} on {gpu}: {command}\n  " + ", ".join(names))
        commands = [[a, b] for a in paths for b in paths if a != b] + [["--fleet"] + paths]
        may_miss = [reason for folder, reason in MAY_MISS.items() if all(n.startswith(folder) for n in names)]
        for args in commands:
            pairs += args[0] != "--fleet"
            rc, out, err = gpubench(exe, ["compare"] + (["--allow-missing"] if may_miss else []) + args)
            fleet = args[0] == "--fleet"
            clean = " 0 regressed," in out if not fleet else " 0 outlier, 0 missing, 0 not ok" in out
            known = [WRITTEN_BEFORE[n] for n, p in zip(names, paths) if n in WRITTEN_BEFORE and p in args]
            if known and rc == 1:
                clean = only_known_unjudgeable(out, err, known, fleet)
            elif rc != 0:
                clean = False
            if not clean:
                failures += 1
                shown = " ".join(names[paths.index(a)] if a in paths else a for a in args)
                print(f"FAIL exit {rc}: gpubench compare {shown}")
                for line in (out + err).splitlines():
                    if any(word in line for word in ("regressed", "outlier", "not_ok", "missing", "gpubench:")):
                        print("  " + line[:200])
    print(f"same-build pairs: {pairs} pairs and {fleets} fleets, "
          f"{failures} not clean")
    return 1 if failures or not pairs else 0


if __name__ == "__main__":
    sys.exit(main())
