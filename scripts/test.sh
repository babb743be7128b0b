#!/usr/bin/env bash
# Set up, build and run the test suite. GPU tests (ctest label `gpu`) skip without a GPU. Then
# the same for a -DGPUBENCH_CUDA=OFF build (compare, check, baseline, report without CUDA), so
# that nothing below the analysis and report layers comes to need the CUDA toolkit.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh" --tests
cd "${GPUBENCH_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "$(nproc)" "$@"

nocuda_dir=${GPUBENCH_NOCUDA_BUILD_DIR:-$root/build-nocuda}
cmake -S "$root" -B "$nocuda_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUBENCH_CUDA=OFF >/dev/null
cmake --build "$nocuda_dir" -j "$(nproc)"
cd "$nocuda_dir"
ctest --output-on-failure -j "$(nproc)" "$@"

# The libFuzzer targets (fuzz/) build and run a few seconds each, so that the loaders' fuzzing
# cannot rot unnoticed; scripts/fuzz.sh SECONDS runs them for longer.
"$root/scripts/fuzz.sh" 5
