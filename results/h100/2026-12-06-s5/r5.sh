#!/usr/bin/env bash
# Round of 2026-12-06 (fifth session), call 2: issue 32's
# old/new side by side of attention and gemm (A B).
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
OUT=$W scripts/device_round.sh side-by-side:attention:old-1,new-1; pack
OUT=$W scripts/device_round.sh side-by-side:gemm:old-1,new-1; pack
OUT=$W scripts/device_round.sh side-by-side:transfer:old-1,new-1; pack
date -u > $W/end.txt; pack
