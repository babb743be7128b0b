"""The timing the PyTorch peers share: warm-up, then CUDA-event-timed runs, the median."""
import statistics

import torch


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
