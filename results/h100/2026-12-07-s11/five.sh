#!/usr/bin/env bash
# Issue 34's five conv layers below 0.98x torch on the H100 (eighth session): gpubench and
# torch_conv.py alternated three times on torch's cuDNN, then the kernels torch runs for each.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
W=/tmp/five; rm -rf $W; mkdir -p $W
pack() { tar -czf "$OUT/round.tgz" -C "$W" . ; }
chmod +x .carry/bin/*
.carry/bin/gpubench --version > $W/version.txt 2>&1; date -u > $W/start.txt; nvidia-smi > $W/nvidia-smi.txt 2>&1
tc=$(python3 -c '
import glob, os, torch
roots = [os.path.dirname(torch.__file__)] + [os.path.join(p, "nvidia") for p in __import__("site").getsitepackages()]
print(next(os.path.dirname(f) for r in roots for f in glob.glob(r + "/**/libcudnn.so.9", recursive=True)))')
F='conv/forward/net:(mobilenetv2|resnext50)/layer:(b2_1x1_144to24|b2_1x1_96to24|b3_dw_144_s2|res3_1x1_512to256|res4_3x3_512_g32_s2)/n:32/'
for r in 1 2 3; do
  s0=$SECONDS
  timeout 150 env LD_LIBRARY_PATH=$tc .carry/bin/gpubench --config configs/examples/conv_networks.json --filter "$F" \
    --out $W/gpubench-$r.json > $W/gpubench-$r.log 2>&1; echo "gpubench-$r rc=$? $((SECONDS-s0))s" >> $W/rc.txt; s0=$SECONDS
  timeout 120 python3 scripts/peers/torch_conv.py --nets mobilenetv2,resnext50 --n 32 --types fp16,bf16 --passes forward \
    --filter "$F" > $W/torch-$r.jsonl 2> $W/torch-$r.log; echo "torch-$r rc=$? $((SECONDS-s0))s" >> $W/rc.txt
  python3 scripts/peers/side_by_side.py $W/gpubench-$r.json $W/torch-$r.jsonl > $W/table-$r.md 2>&1
  pack
  (( SECONDS > 220 )) && break
done
s0=$SECONDS; timeout 90 python3 .carry/torch_kernels.py > $W/torch-kernels.jsonl 2> $W/torch-kernels.log
echo "torch-kernels rc=$? $((SECONDS-s0))s" >> $W/rc.txt
pack
