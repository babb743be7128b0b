#!/usr/bin/env bash
# Round of 2026-12-06 (fifth session), call 3: the figures call 2 found moved, A B B A on the same
# GPU: our attention kernel ranked against the portable one (impl:gpubench), gemm 8192^3 fp16 and
# fp8, transfer's pageable host copies.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
DEV_OUT=$OUT
W=/tmp/w; rm -rf $W; mkdir -p $W
pack() { tar -czf "$DEV_OUT/round.tgz" -C "$W" . ; }
NEW=$PWD/.carry/bin/gpubench OLD=$PWD/.carry/old/gpubench OLD_LIB=$PWD/.carry/old/lib
chmod +x .carry/bin/* .carry/old/gpubench 2>/dev/null
date -u > $W/start.txt
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,power.limit --format=csv > $W/gpus.csv 2>&1
$NEW --version > $W/version.txt 2>&1
run() {  # NAME BINARY SUITE FILTER
  local started=$SECONDS bin=$NEW
  [[ $2 == old ]] && bin="env LD_LIBRARY_PATH=$OLD_LIB $OLD"
  $bin --suite "$3" --filter "$4" --out "$W/$1.json" > "$W/$1.log" 2>&1
  echo "$1 rc=$? $((SECONDS - started))s" >> $W/rc.txt
}
sbs() {  # NAME SUITE FILTER
  run "$1-old-1" old "$2" "$3"; run "$1-new-1" new "$2" "$3"; run "$1-new-2" new "$2" "$3"; run "$1-old-2" old "$2" "$3"
  for pair in old-1:new-1 old-2:new-2 old-2:new-1 old-1:old-2 new-1:new-2; do
    $NEW compare "$W/$1-${pair%:*}.json" "$W/$1-${pair#*:}.json" > "$W/$1-compare-${pair/:/-vs-}.log" 2>&1
  done
  pack
}
sbs attention-ours attention 'attention/forward/impl:gpubench/'
sbs gemm-8192 gemm 'gemm/matmul/type:(fp16|fp8_e4m3_e5m2)/m:8192/n:8192/k:8192/'
sbs transfer-pageable transfer 'transfer/host_device/host:pageable/'
date -u > $W/end.txt; pack
