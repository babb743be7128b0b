#!/usr/bin/env bash
# Shared by run.sh and test.sh: installs missing packages from the distribution (where apt and
# root are available), then configures and builds gpubench.
#   scripts/setup.sh          what building and running need; builds the gpubench binary
#   scripts/setup.sh --tests  and the test tools; builds everything, tests included
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${GPUBENCH_BUILD_DIR:-$root/build}
tests=false
[[ ${1:-} == --tests ]] && tests=true

# MPI: the collective suite across processes and nodes; libnuma: host buffers on a chosen
# NUMA node (loaded at run time); SQLite: the run history (gpubench history).
packages=(cmake ninja-build g++ libcli11-dev nlohmann-json3-dev libsqlite3-dev libopenmpi-dev openmpi-bin libnuma1)
if $tests; then
  packages+=(libgtest-dev libgmock-dev python3 python3-scipy python3-prometheus-client
             python3-jsonschema  # docs/schema/ against every committed result (tests/schema_files.py)
             python3-pandas      # the tidy CSV as pandas reads it (tests/csv_pandas.py)
             prometheus          # promtool check metrics on the .prom outputs (tests/promtool_check.py)
             libbenchmark-tools  # Google Benchmark's compare.py reads our JSON (tests/test_gbench_compare.cpp)
             clang               # the libFuzzer targets (scripts/fuzz.sh)
             lintian             # the Debian package's findings (tests/package_deb.sh)
             chromium)           # the HTML report's headless-browser test (tests/test_report_command.cpp)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "setup: missing packages (${missing[*]}); install them or run as root" >&2
  fi
fi

nvcc=${CUDACXX:-}
[ -z "$nvcc" ] && nvcc=$(command -v nvcc || true)
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
if [ -z "$nvcc" ]; then
  echo "setup: the CUDA toolkit (nvcc) was not found; install it or set CUDACXX" >&2
  exit 2
fi

# A run builds the binary alone, and configures a new build folder without the tests (which
# need GoogleTest); an existing folder keeps its choice.
cmake_args=()
build_args=()
if $tests; then
  cmake_args+=(-DGPUBENCH_BUILD_TESTS=ON)
else
  [ -f "$build_dir/CMakeCache.txt" ] || cmake_args+=(-DGPUBENCH_BUILD_TESTS=OFF)
  build_args+=(--target gpubench)
fi
cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_COMPILER="$nvcc" ${cmake_args[@]+"${cmake_args[@]}"} ${GPUBENCH_CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j "$(nproc)" ${build_args[@]+"${build_args[@]}"}
