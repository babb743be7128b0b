#!/usr/bin/env bash
# The conv GPU tests (every admitted plan, now with the instant heuristic's, against the reference)
# and the five layers beside torch, with the build that screens the instant heuristic's plans.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
W=/tmp/final; rm -rf $W; mkdir -p $W
pack() { tar -czf "$OUT/round.tgz" -C "$W" . ; }
chmod +x .carry/bin3/*; .carry/bin3/gpubench --version > $W/version.txt; nvidia-smi -L > $W/gpu.txt
s0=$SECONDS; timeout 100 .carry/bin3/gpubench_gpu_tests --gtest_filter='GpuConv*' > $W/gpu-conv-tests.log 2>&1
echo "gpu-conv-tests rc=$? $((SECONDS-s0))s" >> $W/rc.txt; pack
tc=$(python3 -c '
import glob, os, torch
roots = [os.path.dirname(torch.__file__)] + [os.path.join(p, "nvidia") for p in __import__("site").getsitepackages()]
print(next(os.path.dirname(f) for r in roots for f in glob.glob(r + "/**/libcudnn.so.9", recursive=True)))')
F='conv/forward/net:(mobilenetv2|resnext50)/layer:(b2_1x1_144to24|b2_1x1_96to24|b3_dw_144_s2|res3_1x1_512to256|res4_3x3_512_g32_s2)/n:32/'
s0=$SECONDS; timeout 60 env LD_LIBRARY_PATH=$tc .carry/bin3/gpubench --config configs/examples/conv_networks.json --filter "$F" \
  --out $W/bin3.json > $W/bin3.log 2>&1; echo "bin3 rc=$? $((SECONDS-s0))s" >> $W/rc.txt; pack
s0=$SECONDS; timeout 60 python3 scripts/peers/torch_conv.py --nets mobilenetv2,resnext50 --n 32 --types fp16,bf16 --passes forward \
  --filter "$F" > $W/torch.jsonl 2> $W/torch.log; echo "torch rc=$? $((SECONDS-s0))s" >> $W/rc.txt
python3 scripts/peers/side_by_side.py $W/bin3.json $W/torch.jsonl > $W/table.md 2>&1; pack
