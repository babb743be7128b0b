#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang and runs each for SECONDS (default 120).
#   scripts/fuzz.sh [SECONDS [TARGET...]]   TARGET: result_loader, compare_pair, ... (default all)
# The corpus grows in build-fuzz/corpus/<loader>, seeded from fuzz/corpus/<loader> plus the
# real files: results/, configs/baselines/, configs/tolerance.json, configs/acceptance/. A crash leaves its input
# in build-fuzz/artifacts/ and makes this script exit non-zero; replay it with
#   build-fuzz/fuzz_<target> build-fuzz/artifacts/crash-...
set -euo pipefail

seconds=${1:-120}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPUBENCH_FUZZ_BUILD:-$root/build-fuzz}
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (apt-get install clang)" >&2; exit 2; }

cmake -S "$root/fuzz" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ >/dev/null
# A target's corpus and log are named by what it reads: the four loaders, compare_pair (two
# result files joined by a NUL byte) and json_reader (result files, read in one pass and whole).
targets=(result_loader baseline_loader tolerance_loader config_loader compare_pair json_reader)
[ $# -gt 1 ] && targets=("${@:2}")
ninja -C "$build" -j "${GPUBENCH_FUZZ_JOBS:-2}" $(printf 'fuzz_%s ' "${targets[@]}")

mkdir -p "$build/artifacts"
status=0
for target in "${targets[@]}"; do
  loader=${target%_loader}
  corpus="$build/corpus/$loader"
  mkdir -p "$corpus"
  cp -n "$root/fuzz/corpus/$loader/"*.json "$corpus/" 2>/dev/null || true
  case $loader in
    result|json_reader)
      cp -n "$root/fuzz/corpus/result/"*.json "$corpus/" 2>/dev/null || true
      find "$root/results" -name '*.json' -size -1M -exec cp -n {} "$corpus/" \; 2>/dev/null || true ;;
    baseline) cp -n "$root/configs/baselines/"*.json "$corpus/" 2>/dev/null || true ;;
    tolerance) cp -n "$root/configs/tolerance.json" "$corpus/" 2>/dev/null || true ;;
    config) cp -n "$root/configs/acceptance/"*.json "$corpus/" 2>/dev/null || true ;;
    compare_pair)
      for seed in "$root/fuzz/corpus/result/"*.json; do
        { cat "$seed"; printf '\0'; cat "$seed"; } >"$corpus/pair-$(basename "$seed")"
      done ;;
  esac
  echo "fuzz.sh: fuzz_${target} for ${seconds}s"
  "$build/fuzz_${target}" "$corpus" -dict="$root/fuzz/json.dict" -max_total_time="$seconds" \
      -max_len=65536 -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix="$build/artifacts/${loader}-" 2>"$build/fuzz_${loader}.log" || status=$?
  grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb)|ERROR|DONE" "$build/fuzz_${loader}.log" || true
done
exit $status
