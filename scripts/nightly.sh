#!/usr/bin/env bash
# Nightly acceptance run of one node: runs the acceptance preset, keeps the night's JSON by
# date, compares it with the previous night's and checks it against the model's baseline.
#
#   scripts/nightly.sh [--model M] [--gpus N] [--results-dir DIR] [--retries N] [--date YYYY-MM-DD]
#                      [--config FILE] [--baseline FILE] [--tolerance FILE] [-- GPUBENCH-RUN-ARGS...]
#
# Writes, in the results directory (default /var/lib/gpubench/<short hostname>/):
#   <date>.json          the run (gpubench --config configs/acceptance/<model>.json --out ...)
#   <date>-run.txt       the run's table;   <date>-run.log  its progress and messages
#   <date>-compare.md    gpubench compare <previous night>.json <date>.json (if there is one)
#   <date>-check.txt     gpubench check --baseline configs/baselines/<model>.json --gpus N <date>.json
# One baseline per GPU model serves nodes of any GPU count; --gpus (the node's class: how many
# GPUs it must show) makes a GPU that fell off the bus a failure. Without it the count is not
# checked, and the summary says so.
# Prints one summary line and exits with check's exit code, the night's verdict:
#   0  the node passed: every GPU, benchmark and health rule within the baseline
#   1  the node FAILED: a figure below its floor, a benchmark failed, timed out or missing, a
#      health rule broken (links down, ECC off, PCIe narrow), fewer GPUs than --gpus; the
#      lines are in <date>-check.txt (a retry that could not run is reported there too)
#   2  a problem of the set-up, not the node: bad usage, a baseline of another GPU model,
#      a malformed baseline, preset or tolerance file
#   3  no usable GPU or driver (from the run)
# A regression against the previous night is reported in the summary and in <date>-compare.md
# but does not change the exit code.
#
# Environment: GPUBENCH (the binary, default <repo>/build/gpubench), GPUBENCH_MODEL,
# GPUBENCH_GPUS, GPUBENCH_RESULTS_DIR; the options above win over them.
set -euo pipefail

# <repo> holds configs/ and scripts/: a clone, or <prefix>/share/gpubench when installed,
# whose binary is <prefix>/bin/gpubench.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
case $repo in
  */share/gpubench) gpubench=${GPUBENCH:-${repo%/share/gpubench}/bin/gpubench} ;;
  *) gpubench=${GPUBENCH:-$repo/build/gpubench} ;;
esac
model=${GPUBENCH_MODEL:-h200}
gpus=${GPUBENCH_GPUS:-}
host=$(uname -n)
host=${host%%.*}
results_dir=${GPUBENCH_RESULTS_DIR:-/var/lib/gpubench/$host}
day=$(date +%F)
retries=1
config="" baseline="" tolerance="$repo/configs/tolerance.json"
run_args=()

usage() {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
}
die() {  # die CODE MESSAGE
  echo "nightly: $2" >&2
  exit "$1"
}
need_value() {
  [[ $# -ge 2 && -n $2 ]] || die 2 "$1 needs a value (--help for usage)"
}

while [[ $# -gt 0 ]]; do
  case $1 in
    --model) need_value "$@"; model=$2; shift 2 ;;
    --gpus) need_value "$@"; gpus=$2; shift 2 ;;
    --results-dir) need_value "$@"; results_dir=$2; shift 2 ;;
    --retries) need_value "$@"; retries=$2; shift 2 ;;
    --date) need_value "$@"; day=$2; shift 2 ;;
    --config) need_value "$@"; config=$2; shift 2 ;;
    --baseline) need_value "$@"; baseline=$2; shift 2 ;;
    --tolerance) need_value "$@"; tolerance=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    --) shift; run_args=("$@"); break ;;
    *) die 2 "unknown argument '$1' (--help for usage)" ;;
  esac
done

[[ $day =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]] || die 2 "--date '$day' is not YYYY-MM-DD"
[[ $retries =~ ^[0-9]+$ ]] || die 2 "--retries '$retries' is not a count"
[[ -z $gpus || $gpus =~ ^[1-9][0-9]*$ ]] || die 2 "--gpus '$gpus' is not a GPU count"
[[ -x $gpubench ]] || die 2 "no gpubench binary at $gpubench (build it, or set GPUBENCH)"

# The preset: configs/acceptance/<model>.json (one sweep serves every GPU count; families
# needing two GPUs skip on one).
[[ -n $config ]] || config=$repo/configs/acceptance/$model.json
[[ -n $baseline ]] || baseline=$repo/configs/baselines/$model.json
for file in "$config" "$baseline" "$tolerance"; do
  [[ -r $file ]] || die 2 "cannot read $file (model '$model'; --model, --config, --baseline, --tolerance choose others)"
done

mkdir -p "$results_dir" || die 2 "cannot create results directory $results_dir"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$results_dir/.nightly.lock"
  flock -n 9 || die 2 "another nightly run holds $results_dir/.nightly.lock"
fi

today=$results_dir/$day.json
# The newest earlier night: dated names sort chronologically.
previous=""
for file in "$results_dir"/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].json; do
  [[ -f $file ]] || continue
  name=$(basename "$file" .json)
  if [[ $name < $day ]]; then previous=$file; fi
done

# 1. The run. Exit 1 (a benchmark failed or timed out) still writes the JSON, which check
#    then reports; without a JSON (bad preset, no GPU) there is nothing to compare or check.
#    gpubench writes --out atomically; the staging name keeps an earlier run of the same
#    day in place until this one has produced a document.
staged=$results_dir/.$day.json.new
rm -f "$staged"
run_rc=0
"$gpubench" --config "$config" --out "$staged" ${run_args[@]+"${run_args[@]}"} \
  >"$results_dir/$day-run.txt" 2>"$results_dir/$day-run.log" || run_rc=$?
produced=false
if [[ -s $staged ]]; then mv -f "$staged" "$today" && produced=true; fi
rm -f "$staged"
if [[ $produced != true ]]; then
  tail -n 5 "$results_dir/$day-run.log" >&2 || true
  echo "nightly $host $day $model: run FAILED (exit $run_rc), no results; see $results_dir/$day-run.log"
  exit $((run_rc == 0 ? 1 : run_rc))
fi
if [[ $run_rc -eq 0 ]]; then run_note="run ok"; else run_note="run exit $run_rc (failed benchmarks)"; fi

# 2. Against the previous night: reported, not part of the exit code.
compare_note="no previous night"
if [[ -n $previous ]]; then
  compare_rc=0 compare_out=$results_dir/$day-compare.md
  "$gpubench" compare "$previous" "$today" --tolerance "$tolerance" --format md \
    >"$compare_out" 2>&1 || compare_rc=$?
  counts=$(grep -E '^compare: [0-9]+ regressed' "$compare_out" | tail -n 1 || true)
  if [[ -n $counts ]]; then
    compare_note="vs $(basename "$previous" .json): ${counts#compare: }"
    [[ $compare_rc -eq 0 ]] || compare_note+=" ($compare_out)"
  else
    compare_note="vs $(basename "$previous" .json): compare error $compare_rc: $(tail -n 1 "$compare_out")"
  fi
fi

# 3. Against the baseline: its exit code is the script's. --retries re-runs failing
#    benchmarks on this node before a failure stands.
check_rc=0 check_out=$results_dir/$day-check.txt
gpu_args=()
[[ -z $gpus ]] || gpu_args=(--gpus "$gpus")
"$gpubench" check --baseline "$baseline" --retries "$retries" ${gpu_args[@]+"${gpu_args[@]}"} "$today" \
  >"$check_out" 2>&1 || check_rc=$?
check_note=$(grep -E '^check: [0-9]+ pass' "$check_out" | tail -n 1 || true)
if [[ -n $check_note ]]; then
  check_note=${check_note#check: }
  [[ $check_rc -eq 0 ]] || check_note+=" ($check_out)"
else
  check_note="error $check_rc: $(tail -n 1 "$check_out")"
fi

[[ -n $gpus ]] || check_note+=" (GPU count not checked: --gpus)"
echo "nightly $host $day $model: check $check_note | compare $compare_note | $run_note | $today"
exit "$check_rc"
