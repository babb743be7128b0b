#!/usr/bin/env bash
# Set up, build and run the test suite. GPU tests (ctest label `gpu`) skip without a GPU.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
cd "${GPUBENCH_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "$(nproc)" "$@"
