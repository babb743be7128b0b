#!/usr/bin/env python3
"""The kernels torch runs for issue 34's five conv layers below 0.98x (cudnn.benchmark, channels-last,
batch 32, fp16 and bf16): for each case, every kernel of 50 calls by torch.profiler, with its calls per
conv and mean device time, and the whole call's device time per conv. One JSON line per case."""
import json, sys
import torch, torch.nn.functional as F
from torch.profiler import profile, ProfilerActivity

LAYERS = {  # configs/conv_layers: name -> (c, k, h, w, r, stride, pad, groups)
    "mobilenetv2/b2_1x1_144to24": (144, 24, 56, 56, 1, 1, 0, 1),
    "mobilenetv2/b2_1x1_96to24": (96, 24, 56, 56, 1, 1, 0, 1),
    "mobilenetv2/b3_dw_144_s2": (144, 144, 56, 56, 3, 2, 1, 144),
    "resnext50/res3_1x1_512to256": (512, 256, 28, 28, 1, 1, 0, 1),
    "resnext50/res4_3x3_512_g32_s2": (512, 512, 28, 28, 3, 2, 1, 32),
}
torch.backends.cudnn.benchmark = True
CALLS = 50
for name, (c, k, h, w, r, stride, pad, groups) in LAYERS.items():
    for dtype in ("fp16", "bf16"):
        dt = getattr(torch, "float16" if dtype == "fp16" else "bfloat16")
        x = (torch.rand(32, c, h, w, device="cuda") * 2 - 1).to(dt).contiguous(memory_format=torch.channels_last)
        wt = (torch.rand(k, c // groups, r, r, device="cuda") * 2 - 1).to(dt).contiguous(memory_format=torch.channels_last)
        with torch.no_grad():
            for _ in range(20):
                F.conv2d(x, wt, stride=stride, padding=pad, groups=groups)
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(CALLS):
                    F.conv2d(x, wt, stride=stride, padding=pad, groups=groups)
                torch.cuda.synchronize()
        kernels = {}
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA:
                d = kernels.setdefault(e.name, [0, 0.0])
                d[0] += 1
                d[1] += e.device_time
        print(json.dumps({"layer": name, "type": dtype, "cudnn": torch.backends.cudnn.version(),
                          "device_us_per_conv": round(sum(v[1] for v in kernels.values()) / CALLS, 3),
                          "kernels": [{"name": n, "per_conv": v[0] / CALLS, "mean_us": round(v[1] / v[0], 3)}
                                      for n, v in kernels.items()]}), flush=True)
