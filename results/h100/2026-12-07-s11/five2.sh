#!/usr/bin/env bash
# Issue 34's five conv layers: gpubench 4201610 (bin) and with the instant heuristic's plans (bin2)
# alternated with torch_conv.py on torch's cuDNN, then bin2 on every conv-peer layer beside torch.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
W=/tmp/five2; rm -rf $W; mkdir -p $W
pack() { tar -czf "$OUT/round.tgz" -C "$W" . ; }
chmod +x .carry/bin/* .carry/bin2/*
for b in bin bin2; do .carry/$b/gpubench --version > $W/version-$b.txt 2>&1; done
date -u > $W/start.txt; nvidia-smi > $W/nvidia-smi.txt 2>&1
tc=$(python3 -c '
import glob, os, torch
roots = [os.path.dirname(torch.__file__)] + [os.path.join(p, "nvidia") for p in __import__("site").getsitepackages()]
print(next(os.path.dirname(f) for r in roots for f in glob.glob(r + "/**/libcudnn.so.9", recursive=True)))')
F='conv/forward/net:(mobilenetv2|resnext50)/layer:(b2_1x1_144to24|b2_1x1_96to24|b3_dw_144_s2|res3_1x1_512to256|res4_3x3_512_g32_s2)/n:32/'
for r in 1 2; do for b in bin bin2 torch; do
  s0=$SECONDS
  if [[ $b == torch ]]; then
    timeout 120 python3 scripts/peers/torch_conv.py --nets mobilenetv2,resnext50 --n 32 --types fp16,bf16 --passes forward \
      --filter "$F" > $W/torch-$r.jsonl 2> $W/torch-$r.log
  else
    timeout 150 env LD_LIBRARY_PATH=$tc .carry/$b/gpubench --config configs/examples/conv_networks.json --filter "$F" \
      --out $W/$b-$r.json > $W/$b-$r.log 2>&1
  fi
  echo "$b-$r rc=$? $((SECONDS-s0))s" >> $W/rc.txt
done
for b in bin bin2; do python3 scripts/peers/side_by_side.py $W/$b-$r.json $W/torch-$r.jsonl > $W/table-$b-$r.md 2>&1; done
pack; done
s0=$SECONDS
OUT=$W/peer GPUBENCH=$PWD/.carry/bin2/gpubench CONV_SYSTEM_CUDNN= timeout $((${CAP:-420} - SECONDS)) scripts/device_round.sh conv-peer
echo "conv-peer bin2 rc=$? $((SECONDS-s0))s" >> $W/rc.txt
pack
