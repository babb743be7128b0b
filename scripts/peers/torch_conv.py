#!/usr/bin/env python3
"""PyTorch peer of gpubench's conv suite: the same layer sets (configs/conv_layers/*.json), batch,
precisions and layouts through torch.nn.functional.conv2d/conv3d with cudnn.benchmark, one JSON
line per case whose "name" is the gpubench benchmark it compares with.

fp32 is strict (allow_tf32 off), tf32 turns torch.backends.cudnn.allow_tf32 on, fp16/bf16 run
in that dtype. Forward for every layer; the data and filter gradients for the 3x3 layers (every
layer with --all-backward), as gpubench's default sweep does, each alone through
torch.ops.aten.convolution_backward with an output mask of dx only or dw only (what autograd
calls for a convolution). Each case is timed as gpubench's conv families are (CUDA events after
a settle, over a minimum time: peer_timing.time_power_limited); the median is reported (time_us,
tflops with gpubench's flop count, which is the forward's for every pass), with the SM clock.
"""
import argparse
import glob
import json
import os
import re
import sys

import torch
import torch.nn.functional as F

from peer_timing import (SmClock, add_case_arguments, peer_line, power_limited_fields, random_signed, start_device,
                         time_power_limited)

PRECISIONS = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


def output_extent(extent, filt, stride, pad, dilation):
    return (extent + 2 * pad - dilation * (filt - 1) - 1) // stride + 1


def layer_shape(layer):
    three_d = "d" in layer
    spatial = [layer["d"], layer["h"], layer["w"]] if three_d else [layer["h"], layer["w"]]
    filt = [layer["t"], layer["r"], layer["s"]] if three_d else [layer["r"], layer["s"]]
    return three_d, spatial, filt


def flops(layer, n):
    three_d, spatial, filt = layer_shape(layer)
    stride, pad, dil = layer.get("stride", 1), layer.get("pad", 0), layer.get("dilation", 1)
    out = 1
    for e, f in zip(spatial, filt):
        out *= output_extent(e, f, stride, pad, dil)
    volume = 1
    for f in filt:
        volume *= f
    return 2.0 * n * layer["k"] * (layer["c"] // layer.get("groups", 1)) * volume * out


# gpubench's default workspace limit (benches/conv/conv_axes.h); torch's own is the free memory.
WORKSPACE_MIB = 4096


def gpubench_name(net, layer, n, precision, layout, pass_name, device):
    return (f"conv/{pass_name}/net:{net}/layer:{layer['name']}/n:{n}/type:{precision}/layout:{layout}/algo:best/"
            f"workspace_mib:{WORKSPACE_MIB}/gpu:gpu{device}")


def run_case(name, layer, n, precision, layout, pass_name, args):
    three_d, spatial, filt = layer_shape(layer)
    dtype = PRECISIONS[precision]
    torch.backends.cudnn.allow_tf32 = precision == "tf32"
    groups = layer.get("groups", 1)
    memory_format = (torch.channels_last_3d if three_d else torch.channels_last) if layout == "nhwc" else torch.contiguous_format
    conv = F.conv3d if three_d else F.conv2d
    kwargs = dict(stride=layer.get("stride", 1), padding=layer.get("pad", 0), dilation=layer.get("dilation", 1), groups=groups)
    dims = len(spatial)
    backward_args = ([kwargs["stride"]] * dims, [kwargs["padding"]] * dims, [kwargs["dilation"]] * dims, False,
                     [0] * dims, groups)

    def backward(mask):
        return torch.ops.aten.convolution_backward(dy, x, w, None, *backward_args, mask)

    def rand(*shape):
        return random_signed(shape, dtype).contiguous(memory_format=memory_format)

    x = rand(n, layer["c"], *spatial)
    w = rand(layer["k"], layer["c"] // groups, *filt)
    with torch.no_grad():
        y = conv(x, w, **kwargs)
        dy = rand(*y.shape)
        if pass_name == "forward":
            op = lambda: conv(x, w, **kwargs)
        elif pass_name == "backward_data":
            op = lambda: backward([True, False, False])
        else:
            op = lambda: backward([False, True, False])
        timing = time_power_limited(op, args.samples, args.clock, min_time_s=args.min_time,
                                    steady_window_s=args.steady_window)
    return {**peer_line(name), **power_limited_fields(timing, flops(layer, n))}


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", default=os.path.join(root, "configs", "conv_layers"), help="folder of layer sets")
    parser.add_argument("--nets", default="", help="sets to run, comma-separated (default: those in gpubench's sweep)")
    parser.add_argument("--n", type=int, default=128)
    parser.add_argument("--types", default="fp32,tf32,fp16,bf16")
    parser.add_argument("--layouts", default="nhwc")
    parser.add_argument("--passes", default="forward,backward_data,backward_filter")
    parser.add_argument("--all-backward", action="store_true", help="gradients of every layer, not only the 3x3 ones")
    add_case_arguments(parser, min_time_s=0.1)  # conv_settings' minimum (benches/conv/conv_axes.cpp)
    args = parser.parse_args()
    if args.n < 1:
        print("torch_conv.py: --n must be positive", file=sys.stderr)
        return 2
    started = start_device(args, "torch_conv.py")
    if started != 0:
        return started
    torch.backends.cudnn.benchmark = True
    args.clock = SmClock(args.device)
    for path in sorted(glob.glob(os.path.join(args.layers, "*.json"))):
        net = os.path.splitext(os.path.basename(path))[0]
        with open(path) as f:
            document = json.load(f)
        chosen = args.nets.split(",") if args.nets else None
        if (net not in chosen) if chosen else document.get("sweep", True) is False:
            continue
        layers = document["layers"]
        for pass_name in args.passes.split(","):
            for layer in layers:
                if pass_name != "forward" and not args.all_backward and not (layer["r"] == 3 and layer["s"] == 3):
                    continue
                for precision in args.types.split(","):
                    for layout in args.layouts.split(","):
                        name = gpubench_name(net, layer, args.n, precision, layout, pass_name, args.device)
                        if not re.search(args.filter, name):
                            continue
                        try:
                            line = run_case(name, layer, args.n, precision, layout, pass_name, args)
                        except RuntimeError as error:  # an unsupported case is a line, not the end
                            line = {"name": name, "peer": "torch", "skipped": str(error).splitlines()[0]}
                        print(json.dumps(line), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
