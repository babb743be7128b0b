#!/usr/bin/env bash
# Round of 2026-12-06 (fifth session), call 4 (H200): the e4m3 kernel beside fp16/bf16 (cuDNN,
# ours) on llama3_8b, then the attention preset's forward shapes beside torch's flash backend.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
DEV_OUT=$OUT
W=/tmp/w7; rm -rf $W; mkdir -p $W
pack() { tar -czf "$DEV_OUT/round.tgz" -C "$W" . ; }
export GPUBENCH=$PWD/.carry/bin/gpubench GPU_TESTS=$PWD/.carry/bin/gpubench_gpu_tests
chmod +x .carry/bin/* 2>/dev/null
date -u > $W/start.txt
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,power.limit --format=csv > $W/gpus.csv 2>&1
$GPUBENCH --version > $W/version.txt 2>&1
cat > $W/fp8.json <<'JSON'
{"suites": ["attention"], "filter": "attention/forward(_fp8)?/",
 "families": {"attention/forward": {"impl": ["cudnn", "gpubench"], "model": ["llama3_8b"]}}}
JSON
(cd $W && timeout 120 $GPUBENCH --config $W/fp8.json --out $W/fp8-bench.json > $W/fp8-bench.log 2>&1; echo "fp8-bench rc=$?" >> $W/rc.txt)
pack
OUT=$W timeout 150 scripts/device_round.sh attention-flash; pack
date -u > $W/end.txt; pack
