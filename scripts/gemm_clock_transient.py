#!/usr/bin/env python3
"""How a GPU's clock and matrix rate move under load, from idle: torch.matmul back to back for a
few seconds, the TFLOP/s of each 100 ms of GPU time with the SM clock and power read through NVML.
On an H200 a BF16 8192^3 GEMM runs its first ~100 ms at 1980 MHz (about 860 TFLOP/s), then holds
about 1700 MHz (750), with dips as the one-second power average reaches the limit: why gpubench's
GEMM and convolution figures are taken after a settle (docs/suites.md, "gemm, conv, attention, collective").

    python3 scripts/gemm_clock_transient.py bf16:8192:2.5:3 fp16:8192:2:3   # type:size:seconds:idle_s
One JSON line per case."""
import ctypes
import json
import sys
import time

import torch

TYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "tf32": torch.float32}


def nvml_reader(index):
    nvml = ctypes.CDLL("libnvidia-ml.so.1")
    nvml.nvmlInit_v2()
    handle = ctypes.c_void_p()
    nvml.nvmlDeviceGetHandleByIndex_v2(index, ctypes.byref(handle))

    def read():
        clock, milliwatts = ctypes.c_uint(), ctypes.c_uint()
        nvml.nvmlDeviceGetClockInfo(handle, 1, ctypes.byref(clock))  # NVML_CLOCK_SM
        nvml.nvmlDeviceGetPowerUsage(handle, ctypes.byref(milliwatts))
        return clock.value, milliwatts.value / 1000
    return read


def run_case(type_name, n, seconds, idle_s, read):
    torch.backends.cuda.matmul.allow_tf32 = type_name == "tf32"
    a = (torch.rand(n, n, device="cuda") + 0.5).to(TYPES[type_name])
    b = (torch.rand(n, n, device="cuda") + 0.5).to(TYPES[type_name])
    for _ in range(3):
        b @ a.t()
    torch.cuda.synchronize()
    time.sleep(idle_s)
    start, events, readings = time.time(), [], []  # readings: (calls issued, MHz, W) every 8 calls
    while time.time() - start < seconds:
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        b @ a.t()
        e.record()
        events.append((s, e))
        if len(events) % 8 == 0:
            e.synchronize()
            readings.append((len(events),) + read())
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) / 1e3 for s, e in events]
    flop = 2.0 * n ** 3
    series, elapsed, bucket = [], 0.0, []
    for i, t in enumerate(times):
        elapsed += t
        bucket.append(t)
        if elapsed >= 0.1 * (len(series) + 1):
            after = [r for r in readings if r[0] >= i + 1]
            series.append({"t_ms": round(elapsed * 1e3), "tflops": round(flop * len(bucket) / sum(bucket) / 1e12, 1),
                           "mhz": after[0][1] if after else None, "w": after[0][2] if after else None})
            bucket = []
    first = times[:50]
    return {"case": f"{type_name} {n}", "idle_s": idle_s, "first50_tflops": round(flop * len(first) / sum(first) / 1e12, 1),
            "series": series}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    read = nvml_reader(0)
    for spec in sys.argv[1:]:
        type_name, n, seconds, idle_s = spec.split(":")
        print(json.dumps(run_case(type_name, int(n), float(seconds), float(idle_s), read)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
