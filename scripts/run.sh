#!/usr/bin/env bash
# Set up, build and run gpubench with the given arguments, e.g. scripts/run.sh --suite memory
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh" >&2
exec "${GPUBENCH_BUILD_DIR:-$root/build}/gpubench" "$@"
