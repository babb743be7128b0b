#!/usr/bin/env python3
"""`promtool check metrics` (Debian package prometheus) on what gpubench writes for Prometheus:
a committed run rendered by `gpubench show`, `gpubench check --format prometheus` of it against
the shipped H200 baseline (whose labels must name no file), and, with --run, the .prom a run
leaves when it cannot start (CUDA_VISIBLE_DEVICES hides every GPU: exit 3, gpubench_up 0).
promtool must print nothing; it is looked up on PATH and skipped (exit 77) where it is absent.

  promtool_check.py GPUBENCH RUN.json [--run]
"""
import os
import shutil
import subprocess
import sys
import tempfile

promtool = shutil.which("promtool")
if not promtool:
    print("SKIP: promtool is not installed (Debian: apt-get install prometheus)")
    sys.exit(77)
gpubench, run = sys.argv[1:3]
problems = []


def check(label, text):
    done = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True, timeout=60)
    said = (done.stdout + done.stderr).strip()
    if done.returncode != 0 or said:
        problems.append(f"{label}: promtool exit {done.returncode}:\n{said}")
    else:
        print(f"{label}: promtool printed nothing")


shown = subprocess.run([gpubench, "show", run, "--format", "prometheus"], capture_output=True, text=True, timeout=60)
if shown.returncode != 0:
    problems.append(f"show exit {shown.returncode}: {shown.stderr}")
check(run, shown.stdout)

checked = subprocess.run([gpubench, "check", "--baseline", "configs/baselines/h200.json", run, "--format", "prometheus"],
                         capture_output=True, text=True, timeout=120)
if checked.returncode not in (0, 1):
    problems.append(f"check exit {checked.returncode}: {checked.stderr}")
for path in (run, "h200.json", "configs/"):
    if path in checked.stdout:
        problems.append(f"check's gauges carry the file path {path!r} as a label:\n{checked.stdout}")
check("check --format prometheus", checked.stdout)

if "--run" in sys.argv[3:]:
    with tempfile.TemporaryDirectory(prefix="gpubench-promtool-") as tmp:
        prom = os.path.join(tmp, "node.prom")
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
        done = subprocess.run([gpubench, "--suite", "memory", "--out", prom], env=env, capture_output=True,
                              text=True, timeout=120)
        if done.returncode != 3:
            problems.append(f"a run without a GPU: exit {done.returncode}, expected 3: {done.stderr}")
        if not os.path.exists(prom):
            problems.append("a run without a GPU wrote no .prom")
        else:
            text = open(prom, encoding="utf-8").read()
            if "gpubench_up{" not in text or "} 0\n" not in text.split("gpubench_up{", 1)[1].split("\n", 1)[0] + "\n":
                problems.append("the no-GPU .prom does not say gpubench_up 0:\n" + text)
            check("no-GPU .prom", text)

if problems:
    sys.exit("\n".join(problems))
