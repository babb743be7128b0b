#!/usr/bin/env python3
"""The adversarial corpus: damaged and doctored run, baseline and tolerance files, each case a
folder with a case.json that names the command, its expected exit code and what it must say.

  run_corpus.py GPUBENCH SOURCE_DIR --case DIR   one case
  run_corpus.py GPUBENCH SOURCE_DIR --sweep      every verdict command and show on every corpus file

case.json:
  {"description": "...", "command": ["check", "--baseline", "{case}/baseline.json", "{case}/run.json"],
   "exit": 1, "stderr": "regex", "stdout": "regex", "env": {"NAME": "value"}, "timeout_s": 20}
Placeholders in command and env: {case} the case's folder, {source} the source tree, {configs}
its configs/, {tmp} a fresh empty folder. stdout/stderr are Python regular expressions searched
(re.search, DOTALL) in what the command printed; "not_stdout"/"not_stderr" must not match.
"stdout_file": a path (placeholders expanded) the command's stdout is written to instead of
being captured, e.g. "/dev/full" for a full disk; its "stdout" then matches nothing.
The sweep runs compare, check, baseline, report and show on every .json file of the corpus and
fails on a command that does not end within its time, dies of a signal or exits outside 0-3.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

SWEEP_TIMEOUT_S = 20


def expand(text, values):
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text


def run(argv, env=None, timeout=SWEEP_TIMEOUT_S, stdout_file=None):
    full_env = dict(os.environ)
    full_env.update(env or {})
    stdout = open(stdout_file, "wb") if stdout_file else subprocess.PIPE
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=stdout, stderr=subprocess.PIPE,
                              env=full_env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", ""
    finally:
        if stdout_file:
            stdout.close()
    return (done.returncode, (done.stdout or b"").decode("utf-8", "replace"),
            done.stderr.decode("utf-8", "replace"))


def run_case(gpubench, source, case_dir):
    with open(os.path.join(case_dir, "case.json"), encoding="utf-8") as f:
        case = json.load(f)
    problems = []
    with tempfile.TemporaryDirectory(prefix="gpubench-corpus-") as tmp:
        values = {"case": case_dir, "source": source, "configs": os.path.join(source, "configs"),
                  "tmp": tmp}
        argv = [gpubench] + [expand(a, values) for a in case["command"]]
        env = {k: expand(v, values) for k, v in case.get("env", {}).items()}
        stdout_file = expand(case["stdout_file"], values) if "stdout_file" in case else None
        rc, out, err = run(argv, env, case.get("timeout_s", SWEEP_TIMEOUT_S), stdout_file)
        if rc is None:
            problems.append(f"did not end within {case.get('timeout_s', SWEEP_TIMEOUT_S)} s")
        else:
            if rc != case["exit"]:
                problems.append(f"exit {rc}, expected {case['exit']}")
            for stream, text in (("stdout", out), ("stderr", err)):
                if stream in case and not re.search(case[stream], text, re.S):
                    problems.append(f"{stream} does not match /{case[stream]}/")
                if "not_" + stream in case and re.search(case["not_" + stream], text, re.S):
                    problems.append(f"{stream} matches /{case['not_' + stream]}/, which it must not")
    name = os.path.basename(case_dir)
    if problems:
        print(f"FAIL {name}: {case.get('description', '')}")
        print(f"  command: {' '.join(argv)}")
        for p in problems:
            print(f"  {p}")
        if rc is not None:
            print("  stdout:\n" + "".join("    " + l + "\n" for l in out.splitlines()[-15:]))
            print("  stderr:\n" + "".join("    " + l + "\n" for l in err.splitlines()[-15:]))
        return False
    print(f"ok   {name}: exit {rc}")
    return True


def sweep(gpubench, source):
    corpus = os.path.dirname(os.path.abspath(__file__))
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(corpus) for f in fs
                   if f.endswith(".json") and f != "case.json")
    baseline = os.path.join(source, "configs", "baselines", "h200.json")
    bad = 0
    with tempfile.TemporaryDirectory(prefix="gpubench-sweep-") as tmp:
        for path in files:
            for argv in (["compare", path, path], ["check", "--baseline", baseline, path],
                         ["baseline", path, "--tolerance", "5", "--out", os.path.join(tmp, "b.json")],
                         ["report", path, "-o", os.path.join(tmp, "r.html")],
                         ["show", path, "--format", "prometheus"]):
                rc, _, err = run([gpubench] + argv)
                if rc is None or rc < 0 or rc > 3:
                    bad += 1
                    what = "no end" if rc is None else f"exit {rc}"
                    print(f"FAIL {what}: gpubench {' '.join(argv)}\n  {err.strip()[-300:]}")
    print(f"sweep: {len(files)} files x 4 commands, {bad} failed")
    return bad == 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("gpubench")
    parser.add_argument("source")
    parser.add_argument("--case")
    parser.add_argument("--sweep", action="store_true")
    args = parser.parse_args()
    if args.sweep:
        return 0 if sweep(args.gpubench, args.source) else 1
    return 0 if run_case(args.gpubench, args.source, os.path.abspath(args.case)) else 1


if __name__ == "__main__":
    sys.exit(main())
