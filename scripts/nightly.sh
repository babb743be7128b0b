#!/usr/bin/env bash
# Nightly acceptance run of one node: runs the acceptance preset, keeps the night's JSON by
# date, compares it with the previous night's and checks it against the model's baseline.
#
#   scripts/nightly.sh [--model M] [--gpus N] [--results-dir DIR] [--retries N] [--date YYYY-MM-DD]
#                      [--config FILE] [--baseline FILE] [--tolerance FILE] [--history-db FILE]
#                      [-- GPUBENCH-RUN-ARGS...]
#
# Writes, in the results directory (default /var/lib/gpubench/<short hostname>/):
#   <date>.json          the run (gpubench --config configs/acceptance/<model>.json --out ...)
#   <date>-run.txt       the run's table;   <date>-run.log  its progress and messages
#   <date>-compare.md    gpubench compare <previous night>.json <date>.json (if there is one)
#   <date>-check.txt     gpubench check --baseline configs/baselines/<model>.json --gpus N <date>.json
#   <date>-history.txt   with a history database (--history-db or GPUBENCH_HISTORY_DB): gpubench
#                        history add of the night's run, then history drift over the node's series
#                        (docs/history.md); the summary says whether tonight continues a drift
# One baseline per GPU model serves nodes of any GPU count; --gpus (the node's class: how many
# GPUs it must show) makes a GPU that fell off the bus a failure. Without it the count is not
# checked, and the summary says so.
# Prints exactly one summary line, on stdout (on stderr when the results directory cannot be
# written), "nightly <host> <date> <model>: <pass|FAIL|ERROR|NO GPU> (exit N): ...", and exits:
#   0  the node passed: every GPU, benchmark and health rule within the baseline
#   1  the node FAILED: a figure below its floor, a benchmark failed, timed out or missing, a
#      health rule broken (links down, ECC off, PCIe narrow), fewer GPUs than --gpus (the lines
#      are in <date>-check.txt; a retry that could not run is reported there too); or the run
#      did not finish: it died of a signal (named: SIGKILL for exit 137, SIGSEGV for 139, ...),
#      was interrupted (SIGINT 130, SIGTERM 143), or its JSON says "complete": false; a failed
#      run is a failed night whatever check says of what it left
#   2  a problem of the set-up, not the node: bad usage, a --date that is not a calendar date,
#      a results directory that cannot be written, a baseline of another GPU model, a
#      malformed baseline, preset or tolerance file (compare's exit 2 included), an output of
#      gpubench that could not be written
#   3  no usable GPU or driver (from the run)
# Where the steps disagree, a node failure found by any step (1) wins over a set-up error of
# another (2): the node is known to be bad. A regression against the previous night is reported
# in the summary and in <date>-compare.md but does not change the exit code; nor does a step or
# drift that history drift finds. A history database that cannot be used (corrupt, locked past
# its busy timeout) is a set-up error (2).
#
# Environment: GPUBENCH (the binary, default <repo>/build/gpubench), GPUBENCH_MODEL,
# GPUBENCH_GPUS, GPUBENCH_RESULTS_DIR, GPUBENCH_HISTORY_DB; the options above win over them.
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
history_db=${GPUBENCH_HISTORY_DB:-}
run_args=()
summary_fd=1 summarized=false

usage() {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
}
# The summary line, once (on stderr where stdout cannot take it), and the exit.
finish() {  # finish CODE TEXT
  local verdict=ERROR line
  case $1 in 0) verdict=pass ;; 1) verdict=FAIL ;; 3) verdict="NO GPU" ;; esac
  summarized=true
  line="nightly $host $day $model: $verdict (exit $1): $2"
  echo "$line" >&"$summary_fd" 2>/dev/null || echo "$line" >&2
  exit "$1"
}
# From here on the summary goes to stderr: the results directory may be where stdout goes.
results_dir_unwritable() {  # results_dir_unwritable REASON
  summary_fd=2
  finish 2 "cannot write in the results directory $results_dir: $1"
}
# Whatever stops the script, the summary line is still printed.
trap '[[ $summarized == true ]] || finish 2 "nightly.sh stopped by an unexpected error (exit $?)"' EXIT
trap 'finish 1 "interrupted by SIGTERM"' TERM
trap 'finish 1 "interrupted by SIGINT"' INT
need_value() {
  [[ $# -ge 2 && -n $2 ]] || finish 2 "$1 needs a value (--help for usage)"
}
# "SIGKILL" for 137: the signal a shell's exit code above 128 reports.
signal_name() {  # signal_name EXIT_CODE
  local name
  if name=$(kill -l "$(($1 - 128))" 2>/dev/null); then echo "SIG${name#SIG}"; else echo "signal $(($1 - 128))"; fi
}
# What a gpubench exit code outside 0-3 was: a signal, or no code of gpubench's.
abnormal_exit() {  # abnormal_exit STEP EXIT_CODE
  if (($2 == 130 || $2 == 143)); then echo "$1 interrupted by $(signal_name "$2") (exit $2)"
  elif (($2 > 128)); then echo "$1 died of $(signal_name "$2") (exit $2)"
  else echo "$1 exit $2 (not an exit code of gpubench)"
  fi
}
last_line() {  # last_line FILE
  tail -n 1 "$1" 2>/dev/null || true
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
    --history-db) need_value "$@"; history_db=$2; shift 2 ;;
    -h | --help) usage; summarized=true; exit 0 ;;
    --) shift; run_args=("$@"); break ;;
    *) finish 2 "unknown argument '$1' (--help for usage)" ;;
  esac
done

# A calendar date: dated names sort chronologically, and 2026-02-30 would sort among them.
[[ $day =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ && $(date -d "$day" +%F 2>/dev/null) == "$day" ]] ||
  finish 2 "--date '$day' is not a calendar date (YYYY-MM-DD)"
[[ $retries =~ ^[0-9]+$ ]] || finish 2 "--retries '$retries' is not a count"
[[ -z $gpus || $gpus =~ ^[1-9][0-9]*$ ]] || finish 2 "--gpus '$gpus' is not a GPU count"
[[ -x $gpubench ]] || finish 2 "no gpubench binary at $gpubench (build it, or set GPUBENCH)"

# The preset: configs/acceptance/<model>.json (one sweep serves every GPU count; families
# needing two GPUs skip on one).
[[ -n $config ]] || config=$repo/configs/acceptance/$model.json
[[ -n $baseline ]] || baseline=$repo/configs/baselines/$model.json
for file in "$config" "$baseline" "$tolerance"; do
  [[ -r $file ]] || finish 2 "cannot read $file (model '$model'; --model, --config, --baseline, --tolerance choose others)"
done

# The directory must take a file before anything runs (root ignores permissions, not a
# read-only mount or a full disk).
error=$(mkdir -p "$results_dir" 2>&1) || results_dir_unwritable "${error##*: }"
probe=$(mktemp "$results_dir/.nightly-write-test.XXXXXX" 2>&1) || results_dir_unwritable "${probe##*: }"
error=$({ echo probe >"$probe"; } 2>&1) || { rm -f "$probe"; results_dir_unwritable "${error##*: }"; }
rm -f "$probe"
if command -v flock >/dev/null 2>&1; then
  { exec 9>"$results_dir/.nightly.lock"; } 2>/dev/null || results_dir_unwritable "cannot open .nightly.lock"
  flock -n 9 || finish 2 "another nightly run holds $results_dir/.nightly.lock"
fi

today=$results_dir/$day.json
run_log=$results_dir/$day-run.log
# The newest earlier night: dated names sort chronologically.
previous=""
for file in "$results_dir"/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].json; do
  [[ -f $file ]] || continue
  name=$(basename "$file" .json)
  if [[ $name < $day ]]; then previous=$file; fi
done

# 1. The run. Exit 1 (a benchmark failed or timed out) still writes the JSON, which check
#    then reports; exit 2 or 3 (bad preset, an output gpubench could not write, no GPU) ends
#    the night there. A run that died or was interrupted fails the night, and what it left is
#    still compared and checked for the record.
#    gpubench writes --out atomically; the staging name keeps an earlier run of the same
#    day in place until this one has produced a document.
staged=$results_dir/.$day.json.new
rm -f "$staged"
run_rc=0
# (The braces' stderr takes the shell's own notice of a killed command: the summary names it.)
{ "$gpubench" --config "$config" --out "$staged" ${run_args[@]+"${run_args[@]}"} \
  >"$results_dir/$day-run.txt" 2>"$run_log"; } 2>/dev/null || run_rc=$?
run_failure=""
case $run_rc in
  0 | 1) ;;
  2 | 3) rm -f "$staged"; said=$(last_line "$run_log")
         finish "$run_rc" "run exit $run_rc${said:+: $said} (see $run_log)" ;;
  *) run_failure=$(abnormal_exit run "$run_rc") ;;
esac
produced=false
if [[ -s $staged ]]; then
  error=$(mv -f "$staged" "$today" 2>&1) || results_dir_unwritable "${error##*: }"
  produced=true
fi
rm -f "$staged"
if [[ $produced != true ]]; then
  tail -n 5 "$run_log" >&2 || true
  finish 1 "${run_failure:-run exit $run_rc}, no results; see $run_log"
fi
# Written as the run goes, the JSON says whether it got to the end.
if [[ -z $run_failure ]] && grep -Eq '"complete"[[:space:]]*:[[:space:]]*false' "$today"; then
  run_failure="run incomplete (its JSON says \"complete\": false)"
fi
if [[ -n $run_failure ]]; then run_note=$run_failure
elif [[ $run_rc -eq 0 ]]; then run_note="run ok"
else run_note="run exit $run_rc (failed benchmarks)"
fi

# 2. Against the previous night: regressions are reported, not part of the exit code; a
#    compare that cannot work (a bad tolerance file: exit 2) is a set-up error.
compare_note="no previous night" compare_error=false
if [[ -n $previous ]]; then
  compare_rc=0 compare_out=$results_dir/$day-compare.md
  { "$gpubench" compare "$previous" "$today" --tolerance "$tolerance" --format md >"$compare_out" 2>&1; } 2>/dev/null ||
    compare_rc=$?
  counts=$(grep -E '^compare: [0-9]+ regressed' "$compare_out" | tail -n 1 || true)
  against="vs $(basename "$previous" .json)"
  case $compare_rc in
    0 | 1) compare_note="$against: ${counts#compare: }"
           [[ $compare_rc -eq 0 ]] || compare_note+=" ($compare_out)" ;;
    2) compare_error=true compare_note="$against: ERROR exit 2: $(last_line "$compare_out")" ;;
    *) compare_error=true compare_note="$against: ERROR $(abnormal_exit compare "$compare_rc"): $(last_line "$compare_out")" ;;
  esac
fi

# 3. Against the baseline. --retries re-runs failing benchmarks on this node before a
#    failure stands.
check_rc=0 check_out=$results_dir/$day-check.txt
gpu_args=()
[[ -z $gpus ]] || gpu_args=(--gpus "$gpus")
{ "$gpubench" check --baseline "$baseline" --retries "$retries" ${gpu_args[@]+"${gpu_args[@]}"} "$today" \
  >"$check_out" 2>&1; } 2>/dev/null || check_rc=$?
check_note=$(grep -E '^check: [0-9]+ pass' "$check_out" | tail -n 1 || true)
case $check_rc in
  0 | 1 | 2 | 3) check_code=$check_rc ;;
  *) check_code=1 check_note="" ;;  # a check that dies (its retries run benchmarks) is no pass
esac
if [[ -n $check_note ]]; then
  check_note=${check_note#check: }
  [[ $check_rc -eq 0 ]] || check_note+=" ($check_out)"
elif ((check_rc > 3)); then
  check_note="ERROR $(abnormal_exit check "$check_rc"): $(last_line "$check_out")"
else
  check_note="error $check_rc: $(last_line "$check_out")"
fi
[[ -n $gpus ]] || check_note+=" (GPU count not checked: --gpus)"

# 4. Into the history, when there is one: the night joins its series, and drift over this
#    host's series (the run's own host_name) says whether tonight continues a drift or a step.
history_note="" history_error=false
if [[ -n $history_db ]]; then
  history_out=$results_dir/$day-history.txt history_rc=0
  { "$gpubench" history add --db "$history_db" "$today" >"$history_out" 2>&1; } 2>/dev/null || history_rc=$?
  run_host=$(grep -o -m 1 '"host_name"[[:space:]]*:[[:space:]]*"[^"]*"' "$today" | sed 's/.*"\([^"]*\)"$/\1/' || true)
  case $history_rc in
    0) drift_rc=0
       { "$gpubench" history drift --db "$history_db" --host "$run_host" --tolerance "$tolerance" \
         >>"$history_out" 2>&1; } 2>/dev/null || drift_rc=$?
       drift_line=$(grep -E '^drift: ' "$history_out" | tail -n 1 || true)
       if [[ $drift_rc -le 1 && -n $drift_line ]]; then
         drift_line=${drift_line#drift: } drift_line=${drift_line% -> *}
         history_note=" | history: ${drift_line//to the latest night/continuing tonight}"
         [[ $drift_rc -eq 0 ]] || history_note+=" ($history_out)"
       else
         history_error=true history_note=" | history: ERROR drift exit $drift_rc: $(last_line "$history_out")"
       fi ;;
    1) history_note=" | history: tonight's run refused, it cannot be judged ($history_out)" ;;
    *) history_error=true history_note=" | history: ERROR exit $history_rc: $(last_line "$history_out")" ;;
  esac
fi

if [[ -n $run_failure || $check_code -eq 1 ]]; then code=1
elif [[ $compare_error == true || $history_error == true || $check_code -eq 2 ]]; then code=2
else code=$check_code
fi
finish "$code" "check $check_note | compare $compare_note$history_note | $run_note | $today"
