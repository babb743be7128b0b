#!/usr/bin/env python3
"""PyTorch peer of gpubench's gemm suite: the same shapes (configs/gemm_shapes.json), types and
layouts through torch.matmul / torch.bmm (and torch._scaled_mm for FP8 with BF16 output), on
random data in [0.5, 1.5), timed as gpubench's gemm families are (CUDA events after a settle,
over a minimum time, samples enqueued back to back behind a spin, about 20 ms of them per
synchronisation: peer_timing.time_power_limited), with the SM clock and the samples' share of the
wall time (gpu_busy_pct) after the samples.

Each case prints one line keyed by gpubench's benchmark name, so the two tables line up:
    gemm/matmul/type:bf16/m:8192/n:8192/k:8192/layout:tn/algo:heuristic/gpu:gpu0  tflops=752.1  sm_clock_mhz=1695
algo is always `heuristic` (PyTorch takes cuBLAS's first pick); gemm/cache lines are l2:hot
(back-to-back calls on one operand set). --format json prints one JSON object per line instead.

Layouts are cuBLAS's column-major ones: tn (A stored k x m, transposed) is x @ W.T with x of
shape (m, k) and W of shape (n, k); nn stores A as m x k. Type fp32 runs with
torch.backends.cuda.matmul.allow_tf32 off, tf32 with it on; fp16 and bf16 with reduced-precision
reductions off (FP32 accumulation, as gpubench's CUBLAS_COMPUTE_32F).
"""
import argparse
import itertools
import json
import os
import re
import sys

import torch

from peer_timing import SmClock, power_limited_fields, time_power_limited

# gpubench's gemm families' batching (benches/gemm/gemm_case.cpp): GEMMs under 1 ms in
# back-to-back batches of about 2 ms.
GEMM_BATCH_BELOW_S, GEMM_BATCH_TARGET_S = 1e-3, 2e-3

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TYPES = ["fp32", "tf32", "fp16", "bf16", "fp8_e4m3", "fp8_e4m3_e5m2"]
LAYOUTS = ["tn", "nn"]
FP8_SCALES = (0.5, 0.25)  # gpubench's per-tensor scales of A and B
# gpubench --quick (benches/gemm/gemm_case.cpp): one shape per family.
QUICK = {"type": ["bf16"], "layout": ["tn"],
         "matmul": [(4096, 4096, 4096)], "strided": [(2048, 2048, 128)], "cache": [(1, 4096, 4096)]}
MEMORY_BOUND = 256  # gpubench reports bandwidth_gbps where m or n is at most this


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--shapes", default=os.environ.get("GPUBENCH_GEMM_SHAPES", os.path.join(ROOT, "configs/gemm_shapes.json")))
    p.add_argument("--device", type=int, default=0)
    p.add_argument("--types", default=",".join(TYPES), help="comma-separated subset of " + ",".join(TYPES))
    p.add_argument("--filter", default="", help="regular expression over the names")
    p.add_argument("--quick", action="store_true", help="gpubench --quick's cases")
    p.add_argument("--samples", type=int, default=30, help="timed samples per case after the settle (median)")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.add_argument("--cooldown-c", type=float, default=None,
                   help="before each case, wait (at most 10 s) until the GPU is at or below this temperature, as "
                        "gpubench waits until its GPU is within --cooldown-margin of idle")
    p.add_argument("--timing", choices=["pipelined", "held"], default="pipelined",
                   help="pipelined: samples back to back, as gpubench's; held: each sample synchronised on, "
                        "so the GPU idles between samples (peer_timing.time_power_limited)")
    args = p.parse_args()
    if args.samples < 1:
        p.error("--samples must be positive")
    return args


def element_dtypes(type_name):
    """(A dtype, B dtype, output dtype) as gpubench's type axis defines them."""
    return {
        "fp32": (torch.float32, torch.float32, torch.float32),
        "tf32": (torch.float32, torch.float32, torch.float32),
        "fp16": (torch.float16, torch.float16, torch.float16),
        "bf16": (torch.bfloat16, torch.bfloat16, torch.bfloat16),
        "fp8_e4m3": (torch.float8_e4m3fn, torch.float8_e4m3fn, torch.bfloat16),
        "fp8_e4m3_e5m2": (torch.float8_e4m3fn, torch.float8_e5m2, torch.bfloat16),
    }[type_name]


def set_math_mode(type_name):
    torch.backends.cuda.matmul.allow_tf32 = type_name == "tf32"
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False


def dimensions(entry, key):
    value = entry["square"] if "square" in entry else entry[key]
    return value if isinstance(value, list) else [value]


def cases(shapes, args):
    """(family, name-params, shape) for every case gpubench's default sweep runs (algo heuristic)."""
    wanted = [t for t in args.types.split(",") if t]
    for t in wanted:
        if t not in TYPES:
            sys.exit(f"torch_gemm: unknown type '{t}' (known: {', '.join(TYPES)})")
    seen = set()
    for entry in shapes["shapes"]:
        only = entry.get("only", {})
        batch = entry.get("batch", 1)
        families = ["strided"] if batch > 1 else ["matmul"] + (["cache"] if entry.get("l2_modes") else [])
        if "square" in entry:
            mnk = [(s, s, s) for s in dimensions(entry, "square")]
        else:
            mnk = list(itertools.product(dimensions(entry, "m"), dimensions(entry, "n"), dimensions(entry, "k")))
        for family, (m, n, k), t, layout in itertools.product(families, mnk, wanted, LAYOUTS):
            if t not in only.get("type", TYPES) or layout not in only.get("layout", LAYOUTS):
                continue
            if family != "cache" and "heuristic" not in only.get("algo", ["heuristic"]):
                continue
            if args.quick and (t not in QUICK["type"] or layout not in QUICK["layout"] or
                               (m, n, k) not in QUICK[family]):
                continue
            parts = [f"type:{t}"] + ([f"batch:{batch}"] if family == "strided" else []) + [f"m:{m}", f"n:{n}", f"k:{k}", f"layout:{layout}"]
            parts += ["l2:hot"] if family == "cache" else ["algo:heuristic"]
            name = f"gemm/{family}/" + "/".join(parts) + f"/gpu:gpu{args.device}"
            if name in seen or (args.filter and not re.search(args.filter, name)):
                continue
            seen.add(name)
            yield name, t, dict(m=m, n=n, k=k, batch=batch, layout=layout)


def random_operand(shape, dtype, device):
    return (torch.rand(shape, device=device, dtype=torch.float32) + 0.5).to(dtype)


def make_op(type_name, s, device):
    """A callable doing the case's GEMM once, on random operands made here."""
    a_dtype, b_dtype, out_dtype = element_dtypes(type_name)
    m, n, k, batch, tn = s["m"], s["n"], s["k"], s["batch"], s["layout"] == "tn"
    lead = (batch,) if batch > 1 else ()
    # Row-major views of cuBLAS's column-major operands: A (k x m, transposed) is x of (m, k).
    a = random_operand(lead + ((m, k) if tn else (k, m)), a_dtype, device)
    b = random_operand(lead + (n, k), b_dtype, device)
    if type_name.startswith("fp8"):
        if batch > 1 or not tn:
            raise ValueError("torch._scaled_mm takes single tn GEMMs")
        scale_a = torch.tensor(FP8_SCALES[0], device=device)
        scale_b = torch.tensor(FP8_SCALES[1], device=device)
        return lambda: torch._scaled_mm(a, b.t(), scale_a=scale_a, scale_b=scale_b, out_dtype=out_dtype)
    a_op = a.transpose(-1, -2) if tn else a
    return lambda: torch.matmul(b, a_op)


def bytes_moved(type_name, s):
    a_dtype, b_dtype, out_dtype = element_dtypes(type_name)
    size = lambda dtype: torch.empty((), dtype=dtype).element_size()
    m, n, k = s["m"], s["n"], s["k"]
    return (m * k * size(a_dtype) + k * n * size(b_dtype) + m * n * size(out_dtype)) * s["batch"]


def main():
    args = parse_args()
    if not torch.cuda.is_available():
        sys.exit("torch_gemm: no CUDA device")
    device = torch.device("cuda", args.device)
    torch.cuda.set_device(device)
    with open(args.shapes) as f:
        shapes = json.load(f)
    peer = f"torch {torch.__version__}, cuBLAS {torch.backends.cuda.preferred_blas_library()}"
    print(f"# {peer}, {torch.cuda.get_device_name(device)}", file=sys.stderr)
    failures = 0
    clock = SmClock(args.device)
    for name, type_name, s in cases(shapes, args):
        set_math_mode(type_name)
        record = {"name": name, "peer": peer}
        if args.cooldown_c is not None:
            record["cooldown_waited_s"] = clock.cool_down(args.cooldown_c)
        try:
            timing = time_power_limited(make_op(type_name, s, device), args.samples, clock, queue=args.timing,
                                        batch_below_s=GEMM_BATCH_BELOW_S, batch_target_s=GEMM_BATCH_TARGET_S)
            record.update(power_limited_fields(timing, 2.0 * s["m"] * s["n"] * s["k"] * s["batch"]))
            if min(s["m"], s["n"]) <= MEMORY_BOUND:
                record["bandwidth_gbps"] = bytes_moved(type_name, s) / timing["seconds"] / 1e9
        except (RuntimeError, ValueError) as error:
            record["error"] = str(error).splitlines()[0]
            failures += 1
        finally:
            torch.cuda.empty_cache()
        if args.format == "json":
            print(json.dumps(record), flush=True)
        elif "error" in record:
            print(f"{name}  error: {record['error']}", flush=True)
        else:
            extra = f"  bandwidth_gbps={record['bandwidth_gbps']:.1f}" if "bandwidth_gbps" in record else ""
            print(f"{name}  tflops={record['tflops']:.2f}  sm_clock_mhz={record.get('sm_clock_mhz')}{extra}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
