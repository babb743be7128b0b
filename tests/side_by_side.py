#!/usr/bin/env python3
"""scripts/peers/side_by_side.py: the join by name, the median of repetitions, a renamed peer, the
reasons a side has no figure, and the exit code against the floor."""
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "peers", "side_by_side.py")


def entry(name, status="ok", tflops=None, error=""):
    g = {"status": status, "error": error, "metrics": {}}
    if tflops is not None:
        g["metrics"]["tflops"] = {"median": tflops}
    return {"name": name, "gpubench": g}


def run(folder, peer_lines, *options):
    run_path, peer_path = os.path.join(folder, "run.json"), os.path.join(folder, "peer.jsonl")
    benchmarks = [entry("a/x", tflops=100), entry("a/x", tflops=104), entry("a/x", tflops=90),
                  entry("a/impl:gpubench", tflops=50), entry("a/skipped", "skipped", error="needs 2 GPUs")]
    with open(run_path, "w") as f:
        json.dump({"benchmarks": benchmarks}, f)
    with open(peer_path, "w") as f:
        f.write("\n".join(json.dumps(line) for line in peer_lines) + "\n")
    done = subprocess.run([sys.executable, SCRIPT, run_path, peer_path, *options], capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def main():
    with tempfile.TemporaryDirectory() as folder:
        rc, out, _ = run(folder, [{"name": "a/x", "tflops": 100.0}])
        assert rc == 0 and "| a/x | 100 | 100 | 1 |  |" in out, out  # median of 100, 104, 90
        rc, out, _ = run(folder, [{"name": "a/impl:torch_flash", "tflops": 49.0}], "--rename",
                         "impl:torch_flash=impl:gpubench")
        assert rc == 0 and "| a/impl:gpubench | 50 | 49 | 1.02 |" in out, out
        rc, out, _ = run(folder, [{"name": "a/x", "tflops": 103.0}, {"name": "a/skipped", "tflops": 1.0},
                                  {"name": "a/none", "skipped": "cuDNN cannot run it"}])
        assert rc == 1, out
        assert "| a/x | 100 | 103 | 0.9709 |" in out, out
        assert "gpubench skipped: needs 2 GPUs" in out, out
        assert "gpubench did not run it; peer skipped: cuDNN cannot run it" in out, out
        assert "0 of 3 at 0.98 x the peer or better" in out, out
        rc, _, err = run(folder, [{"name": "a/x"}], "--rename", "nothing")
        assert rc == 2 and "FROM=TO" in err, err
    print("side_by_side: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
