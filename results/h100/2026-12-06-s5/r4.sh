#!/usr/bin/env bash
# Round of 2026-12-06 (fifth session), call 1: the e4m3 Hopper kernel (issue 36), then issue 32's
# old/new side by side of memory and launch (A B B A).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
DEV_OUT=$OUT
W=/tmp/w; rm -rf $W; mkdir -p $W
pack() { tar -czf "$DEV_OUT/round.tgz" -C "$W" . ; }
export GPUBENCH=$PWD/.carry/bin/gpubench GPU_TESTS=$PWD/.carry/bin/gpubench_gpu_tests OLD=$PWD/.carry/old/gpubench
chmod +x .carry/bin/* .carry/old/gpubench 2>/dev/null
date -u > $W/start.txt
nvidia-smi > $W/nvidia-smi.txt 2>&1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,power.limit --format=csv > $W/gpus.csv 2>&1
$GPUBENCH --version > $W/version.txt 2>&1
OUT=$W scripts/device_round.sh fp8; pack
OUT=$W scripts/device_round.sh side-by-side:memory:old-1,new-1,new-2,old-2; pack
OUT=$W scripts/device_round.sh side-by-side:launch:old-1,new-1,new-2,old-2; pack
date -u > $W/end.txt; pack
