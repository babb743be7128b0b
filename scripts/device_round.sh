#!/usr/bin/env bash
# The measurements the open issues still need from a GPU node, in parts that each fit one device
# call (under 10 minutes on an H200), every command's output, JSON and exit code kept under $OUT.
# Nothing is built on the node: build here with static cudart and carry the binaries. The device
# tool brings back only a few files of its own output folder: point OUT elsewhere and pack it
# there (tar -czf "$DEVICE_OUT/round.tgz" -C "$OUT" .).
#
#   GPUBENCH=.carry/bin/gpubench GPU_TESTS=.carry/bin/gpubench_gpu_tests OLD=.carry/old/gpubench \
#     OUT=/tmp/round scripts/device_round.sh PART...
#
#   gpu-tests          every GPU test, then memcheck and racecheck of our attention kernel
#   hopper             our Hopper attention kernel (issue 36): its GPU tests, memcheck, racecheck and
#                      synccheck, its wgmma count in SASS, and impl:gpubench_sm90 beside cuDNN and
#                      impl:gpubench_fa2 at b4 s4096, head dims 64, 128 and 256, fp16 and bf16,
#                      causal and not
#   fp8                our Hopper kernel on e4m3 (issue 36): the Hopper kernel's GPU tests, memcheck and
#                      racecheck of the e4m3 one, attention/forward_fp8 beside fp16 and bf16 (cuDNN, ours)
#   scenarios          --suite scenarios (issue 33: under 3 minutes, every family verified), then
#                      configs/examples/mps_private.json and the MPS processes left after it
#   node               the acceptance preset in node mode with a solo reference (issue 29)
#   conv-peer          ResNeXt-50, MobileNetV2 and U-Net layers at batch 32 (CONV_NETS, e.g.
#                      mobilenetv2,unet), fp16 and bf16, with torch's own cuDNN, and torch_conv.py
#                      on the same layers; gpubench again on the system's cuDNN unless
#                      CONV_SYSTEM_CUDNN is empty; tables by scripts/peers/side_by_side.py
#   attention-peer     lengths 77-3000, head dims 64-256, batches 1, 8 and 32, fp16 and bf16, with
#                      torch's own cuDNN (impl:cudnn, and impl:cudnn_unified where not causal), and
#                      torch_attention.py's cuDNN backend on them
#   attention-flash    the attention preset's forward shapes, impl:gpubench and gpubench_sm90 beside
#                      torch's FlashAttention-2 backend
#   collective-peer    nccl-tests (NCCL_TESTS: the folder of its *_perf binaries) on one GPU at
#                      256 KiB-64 MiB, stream-launched and as CUDA graphs (-G), beside gpubench's
#                      collective figures at those sizes
#   side-by-side:SUITE[:RUNS]  OLD and GPUBENCH on SUITE's default preset in the order A B B A
#                      (or RUNS of them), then compare (issue 32); OLD is gpubench built at the base
#                      revision with its own configs/ beside it
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GPUBENCH=${GPUBENCH:-$root/.carry/bin/gpubench}
GPU_TESTS=${GPU_TESTS:-$root/.carry/bin/gpubench_gpu_tests}
OLD=${OLD:-$root/.carry/old/gpubench}
OUT=${OUT:-$root/device-round}
peers=$root/scripts/peers
mkdir -p "$OUT"

# Runs a command with its output in $OUT/NAME.log and its exit code in $OUT/rc.txt.
step() {
  local name=$1
  shift
  local started=$SECONDS
  "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  echo "$name rc=$rc $((SECONDS - started))s: $*" | tee -a "$OUT/rc.txt"
}

context() {
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,power.limit --format=csv >"$OUT/gpus.csv" 2>&1
  date -u +%FT%TZ >"$OUT/date.txt"
}

# A kernel that hangs must not take the whole call: every GPU test runs under a time limit.
# sanitize NAME GTEST_FILTER TOOL...: the tests of GTEST_FILTER under each compute-sanitizer tool.
sanitize() {
  local name=$1 filter=$2 tool
  shift 2
  for tool in "$@"; do
    step "$name-$tool" timeout 200 compute-sanitizer --tool "$tool" --error-exitcode 1 "$GPU_TESTS" \
      --gtest_filter="$filter"
  done
}

gpu_tests() {
  step gpu-tests timeout 400 "$GPU_TESTS" --gtest_filter='Gpu*'
  sanitize sanitizer 'GpuFlashAttention.*Seq1000*' memcheck racecheck
}

hopper() {
  step hopper-tests timeout 200 "$GPU_TESTS" --gtest_filter='GpuFlashAttentionSm90.*'
  sanitize hopper-sanitizer 'GpuFlashAttentionSm90.*Seq1000*' memcheck racecheck synccheck
  step hopper-sass sh -c "cuobjdump -sass -arch sm_90a '$GPUBENCH' | grep -c HGMMA"
  cat >"$OUT/hopper.json" <<'JSON'
{
  "suites": ["attention"],
  "filter": "attention/forward/",
  "families": {
    "attention/forward": {"impl": ["cudnn", "gpubench_fa2", "gpubench_sm90"], "type": ["fp16", "bf16"],
                          "model": ["gpt2", "llama3_8b", "gemma_7b"], "batch": [4], "seq": [4096], "causal": [0, 1]}
  }
}
JSON
  step hopper-bench timeout 300 "$GPUBENCH" --config "$OUT/hopper.json" --out "$OUT/hopper-bench.json"
}

# Our Hopper kernel on e4m3 (issue 36): its GPU tests (all of the Hopper kernel's: the 16-bit
# builds share its code), memcheck and racecheck of the e4m3 test, then attention/forward_fp8
# beside the same llama3_8b shapes in fp16 and bf16, cuDNN and ours.
fp8() {
  step fp8-tests timeout 300 "$GPU_TESTS" --gtest_filter='GpuFlashAttentionSm90.*'
  sanitize fp8-sanitizer 'GpuFlashAttentionSm90.Fp8Seq1000*' memcheck racecheck
  cat >"$OUT/fp8.json" <<'JSON'
{
  "suites": ["attention"],
  "filter": "attention/forward(_fp8)?/",
  "families": {"attention/forward": {"impl": ["cudnn", "gpubench"], "model": ["llama3_8b"]}}
}
JSON
  step fp8-bench timeout 300 "$GPUBENCH" --config "$OUT/fp8.json" --out "$OUT/fp8-bench.json"
}

scenarios() {
  step scenarios "$GPUBENCH" --suite scenarios --out "$OUT/scenarios.json"
  step mps-private "$GPUBENCH" --config "$root/configs/examples/mps_private.json" --out "$OUT/mps-private.json"
  step mps-left sh -c 'pgrep -a -f nvidia-cuda-mps || echo "no MPS process left"'
}

node() {
  step acceptance-node "$GPUBENCH" --config "$root/configs/acceptance/h200.json" --concurrent --solo-reference first \
    --out "$OUT/acceptance-node.json"
}

# torch brings its own cuDNN (9.19 beside the system's 9.14 on the H200 node): the peer parts run
# gpubench on torch's first, so that a table compares the two on the same cuDNN.
torch_cudnn_dir() {
  python3 -c '
import glob, os, torch
roots = [os.path.dirname(torch.__file__)] + [os.path.join(p, "nvidia") for p in __import__("site").getsitepackages()]
print(next(os.path.dirname(f) for r in roots for f in glob.glob(r + "/**/libcudnn.so.9", recursive=True)))'
}

conv_peer() {
  local torch_cudnn
  torch_cudnn=$(torch_cudnn_dir)
  local nets=${CONV_NETS:-resnext50,mobilenetv2,unet}
  local filter="conv/forward/net:(${nets//,/|})/layer:[^/]+/n:32/"
  step conv-torch-cudnn env LD_LIBRARY_PATH="$torch_cudnn" "$GPUBENCH" \
    --config "$root/configs/examples/conv_networks.json" --filter "$filter" --out "$OUT/conv-torch-cudnn.json"
  step torch-conv sh -c "python3 '$peers/torch_conv.py' --nets $nets --n 32 --types fp16,bf16 \
    --passes forward >'$OUT/torch-conv.jsonl'"
  step conv-table-torch-cudnn sh -c "python3 '$peers/side_by_side.py' '$OUT/conv-torch-cudnn.json' \
    '$OUT/torch-conv.jsonl' >'$OUT/conv-table-torch-cudnn.md'"
  [[ -n ${CONV_SYSTEM_CUDNN-1} ]] || return 0
  step conv "$GPUBENCH" --config "$root/configs/examples/conv_networks.json" --filter "$filter" --out "$OUT/conv.json"
  step conv-table sh -c "python3 '$peers/side_by_side.py' '$OUT/conv.json' '$OUT/torch-conv.jsonl' >'$OUT/conv-table.md'"
}

# configs/examples/attention_odd_lengths.json's cuDNN forward shapes (ATTENTION_BATCHES, default
# 1,8,32; fp16 and bf16) on torch's cuDNN, then the non-causal ones through cuDNN's SDPA operation
# (impl:cudnn_unified), beside torch's cuDNN backend on the same shapes.
attention_peer() {
  local torch_cudnn batches=${ATTENTION_BATCHES:-1,8,32} example=$root/configs/examples/attention_odd_lengths.json
  torch_cudnn=$(torch_cudnn_dir)
  step attention-torch-cudnn env LD_LIBRARY_PATH="$torch_cudnn" "$GPUBENCH" --config "$example" \
    --filter "attention/forward/impl:cudnn/.*/batch:(${batches//,/|})/" --out "$OUT/attention-torch-cudnn.json"
  # The example's models and lengths, at these batches, not causal, through the SDPA operation.
  python3 - "$example" "$batches" >"$OUT/attention-unified.json" <<'PY'
import json, sys
config = json.load(open(sys.argv[1]))
forward = config["families"]["attention/forward"]
forward.update(impl=["cudnn_unified"], causal=[0], batch=[int(b) for b in sys.argv[2].split(",")])
print(json.dumps({"suites": ["attention"], "filter": "attention/forward/", "families": {"attention/forward": forward}}))
PY
  step attention-unified-torch-cudnn env LD_LIBRARY_PATH="$torch_cudnn" "$GPUBENCH" \
    --config "$OUT/attention-unified.json" --out "$OUT/attention-unified-torch-cudnn.json"
  local cases
  cases=$(python3 -c 'import json, sys
forward = json.load(open(sys.argv[1]))["families"]["attention/forward"]
print(",".join(f"{m}:{b}:{s}" for m in forward["model"] for b in sys.argv[2].split(",") for s in forward["seq"]))' \
    "$example" "$batches")
  step torch-attention sh -c "python3 '$peers/torch_attention.py' --cases $cases --types fp16,bf16 --impls cudnn \
    --backward '' >'$OUT/torch-attention.jsonl'"
  step attention-table-torch-cudnn sh -c "python3 '$peers/side_by_side.py' '$OUT/attention-torch-cudnn.json' \
    '$OUT/torch-attention.jsonl' >'$OUT/attention-table-torch-cudnn.md'"
  step attention-table-unified sh -c "python3 '$peers/side_by_side.py' '$OUT/attention-unified-torch-cudnn.json' \
    '$OUT/torch-attention.jsonl' --rename impl:cudnn=impl:cudnn_unified >'$OUT/attention-table-unified.md'"
}

# The attention preset's forward shapes (llama3_8b, gpt2, gpt2_medium at b4 s1000/4096/16384 and
# b16 s2048) with our kernels beside torch's FlashAttention-2 backend (issue 36); impl:gpubench_sm90
# also at head dim 64, where impl:gpubench still takes the portable kernel.
attention_flash() {
  cat >"$OUT/attention-flash.json" <<'JSON'
{
  "suites": ["attention"],
  "filter": "attention/forward/",
  "families": {"attention/forward": {"impl": ["gpubench", "gpubench_sm90"]}}
}
JSON
  step attention-flash "$GPUBENCH" --config "$OUT/attention-flash.json" --out "$OUT/attention-flash-gpubench.json"
  local cases="" model shape
  for model in llama3_8b gpt2 gpt2_medium; do
    for shape in 4:1000 16:2048 4:4096 4:16384; do cases+="${cases:+,}$model:$shape"; done
  done
  step torch-flash sh -c "python3 '$peers/torch_attention.py' --cases $cases --impls torch_flash --backward '' \
    >'$OUT/torch-flash.jsonl'"
  local impl
  for impl in gpubench gpubench_sm90; do
    step "attention-flash-table-$impl" sh -c "python3 '$peers/side_by_side.py' '$OUT/attention-flash-gpubench.json' \
      '$OUT/torch-flash.jsonl' --rename impl:torch_flash=impl:$impl >'$OUT/attention-flash-$impl.md'"
  done
}

# nccl-tests' default timer is the host's over -n back-to-back calls (NCCL's enqueue cost in it);
# with -G the calls replay as one CUDA graph, which leaves the GPU's time.
collective_peer() {
  local tests=${NCCL_TESTS:-$root/.carry/nccl-tests} op
  for op in all_reduce all_gather reduce_scatter reduce broadcast sendrecv; do
    step "nccl-tests-$op" "$tests/${op}_perf" -b 256K -e 64M -f 4 -g 1 -w 20 -n 100 -d float
    step "nccl-tests-$op-graph" "$tests/${op}_perf" -b 256K -e 64M -f 4 -g 1 -w 20 -n 100 -G 10 -d float
  done
  step collective-sizes "$GPUBENCH" --suite collective \
    --filter 'collective/[a-z_]+/type:[a-z0-9]+/(redop:sum/)?place:out/bytes:(262144|1048576|4194304|16777216|67108864)$' \
    --out "$OUT/collective-sizes.json"
}

# side_by_side SUITE [RUNS]: RUNS (comma-separated, default old-1,new-1,new-2,old-2) in that order;
# a suite whose four runs outlast one call takes two calls or A B A (old-1,new-1,old-2). The
# compares run once all four are in $OUT: each new run against the old one next to it, and each
# binary against itself, which is the noise the others are read against.
side_by_side() {
  local suite=$1 runs=${2:-old-1,new-1,new-2,old-2} old_lib run
  old_lib=$(dirname "$OLD")/lib
  for run in ${runs//,/ }; do
    if [[ $run == old-* ]]; then
      step "$suite-$run" env LD_LIBRARY_PATH="$old_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$OLD" --suite "$suite" \
        --out "$OUT/$suite-$run.json"
    else
      step "$suite-$run" "$GPUBENCH" --suite "$suite" --out "$OUT/$suite-$run.json"
    fi
  done
  local a b
  for pair in old-1:new-1 old-2:new-2 old-2:new-1 old-1:old-2 new-1:new-2; do
    a=$OUT/$suite-${pair%:*}.json b=$OUT/$suite-${pair#*:}.json
    [[ -f $a && -f $b ]] && step "$suite-compare-${pair/:/-vs-}" "$GPUBENCH" compare "$a" "$b"
  done
}

[[ $# -gt 0 ]] || { sed -n '2,32p' "${BASH_SOURCE[0]}"; exit 2; }
context
for part in "$@"; do
  case $part in
    gpu-tests) gpu_tests ;;
    hopper) hopper ;;
    fp8) fp8 ;;
    scenarios) scenarios ;;
    node) node ;;
    conv-peer) conv_peer ;;
    attention-peer) attention_peer ;;
    attention-flash) attention_flash ;;
    collective-peer) collective_peer ;;
    side-by-side:*:*) part=${part#side-by-side:} && side_by_side "${part%%:*}" "${part#*:}" ;;
    side-by-side:*) side_by_side "${part#side-by-side:}" ;;
    *) echo "device_round.sh: unknown part '$part'" >&2; exit 2 ;;
  esac
done
