#!/usr/bin/env bash
# Session 8 device call: device_round.sh parts given as arguments, each part packed as it ends;
# the whole round stops starting parts after LIMIT seconds and ends in CAP (560) s whatever happens.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export CONV_SYSTEM_CUDNN=  # conv-peer: gpubench on torch's cuDNN only, the comparison issue 34 asks for
DEV_OUT=$OUT
W=/tmp/w9; rm -rf $W; mkdir -p $W
pack() { tar -czf "$DEV_OUT/round.tgz" -C "$W" . ; }
chmod +x .carry/bin/* .carry/old/gpubench 2>/dev/null
.carry/bin/gpubench --version > $W/version.txt 2>&1
.carry/old/gpubench --version > $W/old-version.txt 2>&1
date -u > $W/start.txt; nvidia-smi > $W/nvidia-smi.txt 2>&1
LIMIT=${LIMIT:-400}
for part in "$@"; do
  if (( SECONDS > LIMIT )); then echo "skipped $part at ${SECONDS}s" >> $W/rc.txt; continue; fi
  left=$((${CAP:-560} - SECONDS))
  if [[ $part == fp8quick ]]; then
    # the padded V repack (750db73) on the H200: its GPU tests, sanitizers and the e4m3 family
    F=.carry/bin/gpubench_gpu_tests
    timeout 90 $F --gtest_filter='GpuFlashAttentionSm90.Fp8*' > $W/fp8-tests.log 2>&1
    echo "fp8-tests rc=$? at ${SECONDS}s" >> $W/rc.txt
    for tool in memcheck racecheck; do
      timeout 120 compute-sanitizer --tool $tool --error-exitcode 1 $F --gtest_filter='GpuFlashAttentionSm90.Fp8Seq1000*' \
        > $W/fp8-$tool.log 2>&1; echo "fp8-$tool rc=$? at ${SECONDS}s" >> $W/rc.txt
    done
    timeout 90 .carry/bin/gpubench --suite attention --filter 'attention/forward_fp8/' --out $W/fp8-bench.json \
      > $W/fp8-bench.log 2>&1; echo "fp8-bench rc=$? at ${SECONDS}s" >> $W/rc.txt
    pack; continue
  fi
  OUT=$W timeout $left scripts/device_round.sh "$part"; echo "part $part rc=$? at ${SECONDS}s" >> $W/rc.txt
  pack
done
pack
