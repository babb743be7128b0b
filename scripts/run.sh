#!/usr/bin/env bash
# Set up, build and run gpubench with the given arguments, e.g. scripts/run.sh --suite memory.
# Installs only what building and running need (scripts/test.sh adds the test tools).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh" >&2
exec "${GPUBENCH_BUILD_DIR:-$root/build}/gpubench" "$@"
