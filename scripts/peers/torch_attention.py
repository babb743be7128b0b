#!/usr/bin/env python3
"""PyTorch peer of gpubench's attention suite: torch.nn.functional.scaled_dot_product_attention
under sdpa_kernel(SDPBackend.CUDNN_ATTENTION) (and FLASH_ATTENTION for reference) on the same
shapes (a model of configs/attention_shapes.json, batch, sequence length, fp16/bf16, causal and
not), one JSON line per case whose "name" is the gpubench benchmark it compares with.

Q, K, V are B x H x S x D, contiguous, of magnitude [0.25, 1) with random sign, as gpubench's.
The forward is timed as gpubench's attention/forward is (peer_timing.time_power_limited): samples
after a settle under load, over a minimum time, so that a long sequence's figure is the rate the
GPU holds at its power limit; each sample a CUDA graph replay queued behind a spin that outlasts
its issue (pipelined), calls under 20 us batched into one graph, so Python's and cuDNN's host cost
per call stays out of the time. The forward + backward step is timed as gpubench's
attention/forward_backward: unheld CUDA-event-timed runs after a warm-up. The median is reported
as time_us and as tflops with gpubench's flop count (4 x B x H x S^2 x D, halved when causal;
forward + backward 3.5 x forward, the backward being 2.5 x). The forward runs under
torch.no_grad(), so that cuDNN runs its inference graph (no softmax statistics), as gpubench's
attention/forward does. The FLASH_ATTENTION lines carry impl:torch_flash, which no gpubench
benchmark has: they are the reference point, not a comparison (gpubench's own kernel, impl:gpubench, is measured against them;
issue 16's shapes are --cases llama3_8b:4:4096,gpt2_medium:16:2048). The forward_backward line
(forward with autograd, so that cuDNN writes its softmax statistics, then backward with a random
dO) pairs with gpubench's attention/forward_backward, one training step of the layer.
"""
import argparse
import json
import os
import re
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from peer_timing import (SmClock, add_case_arguments, peer_line, power_limited_fields, random_signed,
                         start_device, time_op, time_power_limited)

DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}
BACKENDS = {"cudnn": SDPBackend.CUDNN_ATTENTION, "torch_flash": SDPBackend.FLASH_ATTENTION}


def flops(b, h, s, d, causal, backward):
    forward = 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)
    return forward * (3.5 if backward else 1.0)


def gpubench_name(family, impl, dtype, model, b, s, causal, device):
    return f"attention/{family}/impl:{impl}/type:{dtype}/model:{model}/batch:{b}/seq:{s}/causal:{int(causal)}/gpu:gpu{device}"


def rand(shape, dtype, requires_grad):
    return random_signed(shape, dtype).requires_grad_(requires_grad)


def run_case(impl, dtype, shape, causal, backward, args):
    b, h, s, d = shape
    q, k, v = (rand((b, h, s, d), DTYPES[dtype], backward) for _ in range(3))
    work = flops(b, h, s, d, causal, backward)
    with sdpa_kernel(BACKENDS[impl]):
        if backward:
            grad = rand((b, h, s, d), DTYPES[dtype], False)
            seconds = time_op(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal).backward(grad),
                              args.warmup, args.samples)
            return {"time_us": seconds * 1e6, "tflops": work / seconds / 1e12}
        with torch.no_grad():
            timing = time_power_limited(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal),
                                        args.samples, args.clock, queue="pipelined", min_time_s=args.min_time,
                                        steady_window_s=args.steady_window)
    return power_limited_fields(timing, work)


def load_model(path, name):
    with open(path) as f:
        for model in json.load(f)["models"]:
            if model["name"] == name:
                return model["heads"], model["head_dim"]
    raise KeyError(f"no model '{name}' in {path}")


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=os.path.join(root, "configs", "attention_shapes.json"))
    parser.add_argument("--model", default="llama3_8b")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--seq", type=int, default=4096)
    parser.add_argument("--cases", default="",
                        help="MODEL:BATCH:SEQ[,...] to run instead of the one --model/--batch/--seq shape")
    parser.add_argument("--types", default="fp16,bf16")
    parser.add_argument("--impls", default="cudnn,torch_flash")
    parser.add_argument("--backward", default="fp16:0", help="type:causal of the one forward+backward case, or ''")
    add_case_arguments(parser, warmup_s=0.1)
    args = parser.parse_args()
    try:
        shapes = parse_cases(args)
        shapes = [(model, batch, seq, load_model(args.shapes, model)) for model, batch, seq in shapes]
    except (OSError, KeyError, ValueError) as error:
        print(f"torch_attention.py: {error}", file=sys.stderr)
        return 2
    started = start_device(args, "torch_attention.py")
    if started != 0:
        return started
    args.clock = SmClock(args.device)
    for model, batch, seq, (heads, head_dim) in shapes:
        run_shape(args, model, batch, seq, (batch, heads, seq, head_dim))
    return 0


def parse_cases(args):
    """The shapes to run: --cases, else the one --model/--batch/--seq; ValueError names a bad one."""
    cases = [(args.model, args.batch, args.seq)]
    if args.cases:
        cases = []
        for case in args.cases.split(","):
            parts = case.split(":")
            if len(parts) != 3:
                raise ValueError(f"--cases entry '{case}' is not MODEL:BATCH:SEQ")
            cases.append((parts[0], int(parts[1]), int(parts[2])))
    for model, batch, seq in cases:
        if batch < 1 or seq < 1:
            raise ValueError(f"batch and seq must be positive ({model}:{batch}:{seq})")
    return cases


def run_shape(args, model, batch, seq, shape):
    cases = [(impl, dtype, causal, False) for impl in args.impls.split(",") for dtype in args.types.split(",")
             for causal in (False, True)]
    if args.backward:
        dtype, causal = args.backward.split(":")
        cases += [(impl, dtype, causal == "1", True) for impl in args.impls.split(",")]
    for impl, dtype, causal, backward in cases:
        family = "forward_backward" if backward else "forward"
        name = gpubench_name(family, impl, dtype, model, batch, seq, causal, args.device)
        if not re.search(args.filter, name):
            continue
        line = peer_line(name)
        try:
            line.update(run_case(impl, dtype, shape, causal, backward, args))
        except RuntimeError as error:  # a backend that cannot run the case is a line, not the end
            line["skipped"] = str(error).splitlines()[0]
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    sys.exit(main())
