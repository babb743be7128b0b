#!/usr/bin/env bash
# Session 12 device call: device_round.sh parts given as arguments, PART for .carry/bin's build
# (4201610, issue 32's "new") or PART@DIR for .carry/DIR's; attention-quick runs --suite attention
# --quick, tests:FILTER the GPU tests of FILTER. Each part is packed as it ends; none starts after LIMIT s; the round ends by CAP s.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
DEV_OUT=$OUT
W=/tmp/w12; rm -rf $W; mkdir -p $W
pack() { tar -czf "$DEV_OUT/round.tgz" -C "$W" . ; }
chmod +x .carry/*/gpubench* 2>/dev/null
for b in .carry/bin .carry/bin4; do [[ -x $b/gpubench ]] && echo "$b $($b/gpubench --version 2>&1 | head -1)"; done > $W/versions.txt
[[ -x .carry/old/gpubench ]] && echo ".carry/old $(LD_LIBRARY_PATH=.carry/old/lib .carry/old/gpubench --version 2>&1 | head -1)" >> $W/versions.txt
date -u > $W/start.txt; nvidia-smi > $W/nvidia-smi.txt 2>&1
LIMIT=${LIMIT:-400}
for spec in "$@"; do
  if (( SECONDS > LIMIT )); then echo "skipped $spec at ${SECONDS}s" >> $W/rc.txt; continue; fi
  part=${spec%@*} bin=.carry/bin
  [[ $spec == *@* ]] && bin=.carry/${spec#*@}
  left=$((${CAP:-560} - SECONDS))
  if [[ $part == attention-quick ]]; then
    timeout $left $bin/gpubench --suite attention --quick --out $W/attention-quick.json > $W/attention-quick.log 2>&1
  elif [[ $part == tests:* ]]; then
    timeout $left $bin/gpubench_gpu_tests --gtest_filter="${part#tests:}" > "$W/tests-${bin##*/}.log" 2>&1
  else
    OUT=$W GPUBENCH=$bin/gpubench GPU_TESTS=$bin/gpubench_gpu_tests timeout $left scripts/device_round.sh "$part"
  fi
  echo "part $spec rc=$? at ${SECONDS}s" >> $W/rc.txt
  pack
done
date -u > $W/end.txt
pack
