"""What the PyTorch peers share: their case and timing options, the device start-up with its exit
codes (2 bad usage, 3 no CUDA device, as gpubench's), random data as gpubench's (magnitude
[0.25, 1), random sign), the fields every line carries, and the timing (warm-up, then
CUDA-event-timed runs, the median)."""
import statistics
import sys

import torch


def add_case_arguments(parser, warmup_s):
    """--filter, --warmup, --samples and --device, spelled alike in every peer."""
    parser.add_argument("--filter", default="", help="substring a name must contain")
    parser.add_argument("--warmup", type=float, default=warmup_s, help="seconds of warm-up per case")
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--device", type=int, default=0)


def start_device(args, script):
    """Checks the case options and selects --device: 0, or the exit code after one line on stderr."""
    if args.samples < 1 or args.warmup < 0:
        print(f"{script}: --samples must be positive, --warmup not negative", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print(f"{script}: no CUDA device", file=sys.stderr)
        return 3
    torch.cuda.set_device(args.device)
    return 0


def random_signed(shape, dtype):
    magnitude = torch.rand(*shape, device="cuda") * 0.75 + 0.25
    sign = torch.randint(0, 2, shape, device="cuda") * 2 - 1
    return (magnitude * sign).to(dtype)


def peer_line(name):
    """The fields every peer's JSON line starts with: the gpubench name and the library versions."""
    return {"name": name, "peer": "torch", "torch": torch.__version__, "cudnn": torch.backends.cudnn.version()}


def time_op(op, warmup_s, samples):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    op()  # the first call selects the algorithm (cudnn.benchmark) or builds the graph
    torch.cuda.synchronize()
    warm_start = torch.cuda.Event(enable_timing=True)
    warm_start.record()
    while True:
        op()
        stop.record()
        stop.synchronize()
        if warm_start.elapsed_time(stop) / 1e3 >= warmup_s:
            break
    times = []
    for _ in range(samples):
        start.record()
        op()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / 1e3)
    return statistics.median(times)
