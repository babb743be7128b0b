#!/usr/bin/env bash
# Session 10 device call (session 8's r9.sh plus the placement part): device_round.sh parts given as arguments, each part packed as it ends;
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
  if [[ $part == placement ]]; then
    # issue 32's transfer figures that moved between builds on an H100: host latency and the
    # SM-driven bidirectional split, each build pinned in turn to the first and the last half of
    # the CPUs it may use (first touch puts its host buffers on that half's memory)
    P=$W/placement; mkdir -p $P
    { lscpu; echo; numactl -H; echo; nvidia-smi topo -m; echo; taskset -pc $$;
      for d in /sys/bus/pci/devices/*; do [[ $(cat $d/vendor) == 0x10de && $(cat $d/class) == 0x03* ]] &&
        echo "$d numa_node=$(cat $d/numa_node) local_cpulist=$(cat $d/local_cpulist)"; done; } > $P/host.txt 2>&1
    mapfile -t allowed < <(python3 -c 'import os; print("\n".join(map(str, sorted(os.sched_getaffinity(0)))))')
    half=$(( ${#allowed[@]} / 2 ))
    lo=$(IFS=,; echo "${allowed[*]:0:$half}"); hi=$(IFS=,; echo "${allowed[*]:$half}")
    echo "lo=$lo hi=$hi" >> $P/host.txt
    F='transfer/(memcpy_latency/|host_device/host:pinned/dir:(bidir|h2d|d2h)/engine:sm/numa:local/bytes:16777216/)'
    for rep in 1 2; do for side in lo hi; do for b in old new; do
      (( SECONDS > ${CAP:-560} - 30 )) && break 3
      cpus=$lo; [[ $side == hi ]] && cpus=$hi
      if [[ $b == old ]]; then cmd=(env LD_LIBRARY_PATH=.carry/old/lib .carry/old/gpubench); else cmd=(.carry/bin/gpubench); fi
      s0=$SECONDS
      timeout 120 taskset -c $cpus "${cmd[@]}" --suite transfer --filter "$F" --out $P/$b-$side-$rep.json > $P/$b-$side-$rep.log 2>&1
      echo "placement $b-$side-$rep rc=$? $((SECONDS - s0))s at ${SECONDS}s" >> $W/rc.txt
    done; done; done
    pack; continue
  fi
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
