#!/usr/bin/env python3
"""scripts/device_round.sh: the script parses, every part its dispatch names calls a function the
script defines, and every part is in the usage text (a part whose function went missing ran
nothing on the device, which is where it is found last)."""
import os
import re
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "device_round.sh")


def main():
    parsed = subprocess.run(["bash", "-n", SCRIPT], capture_output=True, text=True)
    if parsed.returncode != 0:
        print(f"device_round.sh does not parse: {parsed.stderr}")
        return 1
    text = open(SCRIPT).read()
    defined = set(re.findall(r"^([a-z_]+)\(\) \{", text, re.M))
    dispatch = re.findall(r"^    ([a-z0-9-]+)\) ([a-z_]+) ;;$", text, re.M)
    usage = text.split("set -uo pipefail")[0]
    failures = [f"part '{part}' calls {function}, which the script does not define"
                for part, function in dispatch if function not in defined]
    failures += [f"part '{part}' is not in the usage text" for part, _ in dispatch
                 if not re.search(rf"^#   {re.escape(part)} ", usage, re.M)]
    if len(dispatch) < 5:
        failures.append(f"found {len(dispatch)} parts in the dispatch: the pattern no longer matches it")
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
