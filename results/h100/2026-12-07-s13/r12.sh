#!/usr/bin/env bash
# Session 12 device call: device_round.sh parts given as arguments, PART for .carry/bin's build
# (4201610, issue 32's "new") or PART@DIR for .carry/DIR's; attention-quick runs --suite attention
# --quick, tests:FILTER the GPU tests of FILTER, torch-log torch's SDPA with cuDNN's logs on. Each part is packed as it ends; none starts after LIMIT s; the round ends by CAP s.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
DEV_OUT=$OUT
W=/tmp/w12; rm -rf $W; mkdir -p $W
pack() { tar -czf "$DEV_OUT/round.tgz" -C "$W" . ; }
chmod +x .carry/*/gpubench* 2>/dev/null
for b in .carry/bin .carry/bin7; do [[ -x $b/gpubench ]] && echo "$b $($b/gpubench --version 2>&1 | head -1)"; done > $W/versions.txt
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
  elif [[ $part == torch-log ]]; then
    # which graph (the frontend's unified SDPA operation or the composite pattern) and which engine
    # torch's cuDNN SDPA finalizes, for a non-causal and a causal shape where torch led
    CUDNN_FRONTEND_LOG_INFO=1 CUDNN_FRONTEND_LOG_FILE=stderr CUDNN_LOGLEVEL_DBG=3 CUDNN_LOGDEST_DBG=stderr \
      timeout $left python3 scripts/peers/torch_attention.py --cases gemma_7b:8:577,llama3_8b:8:577 --types fp16 \
      --impls cudnn --backward '' --samples 3 > $W/torch-log.jsonl 2> >(gzip > $W/torch-log.txt.gz)
  elif [[ $part == conv-log ]]; then
    # MobileNetV2 b2_1x1_96to24 fp16 n32 (0.966x torch): gpubench, torch with cuDNN's logs on (the
    # engine and knobs torch finalizes), gpubench again, all on torch's cuDNN
    tc=$(python3 -c 'import glob, os, torch; roots = [os.path.dirname(torch.__file__)] + [os.path.join(p, "nvidia") for p in __import__("site").getsitepackages()]; print(next(os.path.dirname(f) for r in roots for f in glob.glob(r + "/**/libcudnn.so.9", recursive=True)))')
    f='conv/forward/net:mobilenetv2/layer:b2_1x1_96to24/n:32/type:fp16/'
    for i in 1 2; do
      LD_LIBRARY_PATH=$tc timeout $left $bin/gpubench --config configs/examples/conv_networks.json --filter "$f" --out $W/conv-log-gpubench-$i.json > $W/conv-log-gpubench-$i.log 2>&1
      if [[ $i == 1 ]]; then
        CUDNN_LOGLEVEL_DBG=3 CUDNN_LOGDEST_DBG=stderr timeout $left python3 scripts/peers/torch_conv.py --nets mobilenetv2 --n 32 --types fp16 --passes forward --filter 'b2_1x1_96to24/' > $W/conv-log-torch-logged.jsonl 2> >(gzip > $W/conv-log-torch.txt.gz)
      fi
      timeout $left python3 scripts/peers/torch_conv.py --nets mobilenetv2 --n 32 --types fp16 --passes forward --filter 'b2_1x1_96to24/' > $W/conv-log-torch-$i.jsonl 2>&1
    done
  elif [[ $part == filter:* ]]; then
    # filter:SUITE:REGEX: that suite's benchmarks matching REGEX
    rest=${part#filter:}; suite=${rest%%:*}
    timeout $left $bin/gpubench --suite $suite --filter "${rest#*:}" --out $W/filter-$suite-${bin##*/}.json > $W/filter-$suite-${bin##*/}.log 2>&1
  elif [[ $part == attention-b8-fp16 ]]; then
    # the example's fp16 cuDNN forward shapes at batch 8 on torch's cuDNN, then torch's SDPA on them
    tc=$(python3 -c 'import glob, os, torch; roots = [os.path.dirname(torch.__file__)] + [os.path.join(p, "nvidia") for p in __import__("site").getsitepackages()]; print(next(os.path.dirname(f) for r in roots for f in glob.glob(r + "/**/libcudnn.so.9", recursive=True)))')
    LD_LIBRARY_PATH=$tc timeout $left $bin/gpubench --config configs/examples/attention_odd_lengths.json --filter 'attention/forward/impl:cudnn/type:fp16/.*/batch:8/' --out $W/attention-b8-fp16.json > $W/attention-b8-fp16.log 2>&1
    cases=$(python3 -c 'import json; f = json.load(open("configs/examples/attention_odd_lengths.json"))["families"]["attention/forward"]; print(",".join(f"{m}:8:{s}" for m in f["model"] for s in f["seq"]))')
    timeout $((${CAP:-560} - SECONDS)) python3 scripts/peers/torch_attention.py --cases $cases --types fp16 --impls cudnn --backward '' > $W/torch-b8-fp16.jsonl 2> $W/torch-b8-fp16.log
    python3 scripts/peers/side_by_side.py $W/attention-b8-fp16.json $W/torch-b8-fp16.jsonl > $W/attention-b8-fp16-table.md 2>&1
  elif [[ $part == odd:* ]]; then
    # odd:REGEX: configs/examples/attention_odd_lengths.json's benchmarks matching REGEX
    timeout $left $bin/gpubench --config configs/examples/attention_odd_lengths.json --filter "${part#odd:}" --out $W/odd-${bin##*/}.json > $W/odd-${bin##*/}.log 2>&1
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
