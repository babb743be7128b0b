#!/usr/bin/env bash
# Shared by run.sh and test.sh: installs missing build dependencies from the distribution's
# packages (where apt and root are available), then configures and builds gpubench.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${GPUBENCH_BUILD_DIR:-$root/build}

packages=(cmake ninja-build g++ libbenchmark-tools python3-scipy python3-prometheus-client libcli11-dev nlohmann-json3-dev
          libopenmpi-dev openmpi-bin clang
          libgtest-dev libgmock-dev
          chromium)  # the HTML report's headless-browser test (tests/test_report_command.cpp)
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

cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_COMPILER="$nvcc" ${GPUBENCH_CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
