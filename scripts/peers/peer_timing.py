"""What the PyTorch peers share: their case and timing options, the device start-up with its exit
codes (2 bad usage, 3 no CUDA device, as gpubench's), random data as gpubench's (magnitude
[0.25, 1), random sign), the fields every line carries, and the timing: time_op (warm-up, then
CUDA-event-timed runs, the median) and time_power_limited (gpubench's power-limited families'
settle and minimum sampling time, batches of short ops replayed as CUDA graphs, with the SM clock
read through NVML after the samples)."""
import bisect
import ctypes
import math
import statistics
import sys
import time

import torch

# gpubench's power_limited() settings (harness/core/family.cpp) and its warm-up and batching.
SETTLE_S, MIN_TIME_S = 0.15, 0.2
# gpubench's power-limited stopping (harness/core/family.cpp): within the first STEADY_WINDOW_S of
# sampling, the samples go on until the medians of their halves are within MAX_HALVES_APART_PCT.
MAX_HALVES_APART_PCT, STEADY_WINDOW_S = 1.0, 1.0
WARMUP_S, BATCH_BELOW_S, BATCH_TARGET_S = 0.02, 20e-6, 200e-6
# A sample's lead-in spin (torch.cuda._sleep) lasts this many times the host's issue of the sample,
# measured: long enough that the op is queued before the start event fires, as gpubench's gemm
# queues a sample behind its blocking kernel, and no longer, since the GPU idles through the spin
# and a power-capped GPU clocks higher the more it idles (a fixed 0.2 ms spin lifted torch's TF32
# 4096^3 figure 5-7 % above the back-to-back one).
LEAD_IN_MARGIN = 1.25


def add_case_arguments(parser, warmup_s=None, min_time_s=MIN_TIME_S):
    """--filter, --samples, --min-time, --device and (for peers timed with time_op) --warmup, spelled alike in
    every peer; min_time_s is the family's own minimum where it sets one (conv's 0.1 s)."""
    parser.add_argument("--filter", default="", help="regular expression a name must match (re.search, as gpubench's --filter)")
    if warmup_s is not None:
        parser.add_argument("--warmup", type=float, default=warmup_s, help="seconds of warm-up per case")
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--min-time", type=float, default=min_time_s,
                        help="seconds a power-limited case's samples span at least (gpubench's --min-time)")
    parser.add_argument("--steady-window", type=float, default=STEADY_WINDOW_S,
                        help="seconds of sampling within which a power-limited case samples on until its halves agree "
                             "(0: not checked)")
    parser.add_argument("--device", type=int, default=0)


def start_device(args, script):
    """Checks the case options and selects --device: 0, or the exit code after one line on stderr."""
    if args.samples < 1 or getattr(args, "warmup", 0) < 0 or args.min_time <= 0:
        print(f"{script}: --samples and --min-time must be positive, --warmup not negative", file=sys.stderr)
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


class SmClock:
    """The SM clock and temperature of a GPU through NVML, or None where NVML is not there."""

    def __init__(self, index):
        self.handle = None
        try:
            self.nvml = ctypes.CDLL("libnvidia-ml.so.1")
            if self.nvml.nvmlInit_v2() == 0:
                handle = ctypes.c_void_p()
                if self.nvml.nvmlDeviceGetHandleByIndex_v2(index, ctypes.byref(handle)) == 0:
                    self.handle = handle
        except OSError:
            pass

    def mhz(self):
        if self.handle is None:
            return None
        value = ctypes.c_uint()
        return value.value if self.nvml.nvmlDeviceGetClockInfo(self.handle, 1, ctypes.byref(value)) == 0 else None

    def temperature_c(self):
        if self.handle is None:
            return None
        value = ctypes.c_uint()
        return value.value if self.nvml.nvmlDeviceGetTemperature(self.handle, 0, ctypes.byref(value)) == 0 else None

    def cool_down(self, target_c, max_wait_s=10.0, poll_s=0.05):
        """As gpubench before each benchmark: waits until the GPU is at or below target_c, at most
        max_wait_s; the seconds waited (0 where NVML gives no temperature)."""
        begin = time.perf_counter()
        while time.perf_counter() - begin < max_wait_s:
            temperature = self.temperature_c()
            if temperature is None or temperature <= target_c:
                break
            time.sleep(poll_s)
        return time.perf_counter() - begin


def replayed(op, calls):
    """`calls` back-to-back ops captured as one CUDA graph, its replay returned: launched from
    Python one by one, ops of a few microseconds would time Python's per-call cost instead."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        op()  # torch's capture rule: a warm-up on a side stream first
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            op()
    return graph.replay


def lead_in_cycles(run, start, clock):
    """SM cycles of spin that outlast the host's issue of one sample (its start event and `run`),
    at the SM clock now; the samples issued to time it load the GPU as the settle does."""
    issue_s = []
    for _ in range(7):
        begin = time.perf_counter()
        start.record()
        run()
        issue_s.append(time.perf_counter() - begin)
        torch.cuda.synchronize()
    return int(statistics.median(issue_s) * LEAD_IN_MARGIN * (clock.mhz() or 1980) * 1e6)


# Pipelined samples (time_power_limited's "pipelined") are enqueued behind one spin until they span
# about PIPELINE_SPAN_S, at most PIPELINE_DEPTH: gpubench's held samples (HeldRegion::run_queued,
# harness/core/held_region.h).
PIPELINE_SPAN_S, PIPELINE_DEPTH = 0.02, 16


def sorted_median(values):
    """statistics.median of a list already sorted."""
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


class SampleHalves:
    """The samples in the order taken, with their first half, second half and whole kept sorted as
    they arrive, so that the halves check costs microseconds a sample: sorting thousands of samples
    after each one would idle the GPU between synchronised samples for up to a millisecond."""

    def __init__(self):
        self.times, self.first, self.second, self.whole = [], [], [], []

    def add(self, values):
        for value in values:
            self.times.append(value)
            bisect.insort(self.second, value)
            bisect.insort(self.whole, value)
            while len(self.first) < len(self.times) // 2:
                moved = self.times[len(self.first)]
                del self.second[bisect.bisect_left(self.second, moved)]
                bisect.insort(self.first, moved)

    def medians(self):
        """The medians of the first and the second half (the first half's is the whole's while it is empty)."""
        return sorted_median(self.first or self.whole), sorted_median(self.second)

    def apart_pct(self):
        """gpubench's halves_apart_pct (harness/model/stats.h): the halves' medians apart, in percent of
        the median of all; 0 with fewer than four samples."""
        if len(self.times) < 4:
            return 0.0
        first, second = self.medians()
        return 100 * abs(first - second) / sorted_median(self.whole)


def time_power_limited(op, samples, clock, queue=None, batch_below_s=BATCH_BELOW_S, batch_target_s=BATCH_TARGET_S,
                       min_time_s=MIN_TIME_S, steady_window_s=STEADY_WINDOW_S):
    """gpubench's timing of a power-limited family: after the warm-up, load until SETTLE_S, then
    at least `samples` samples spanning at least min_time_s, and within steady_window_s of sampling
    until the halves' medians are within MAX_HALVES_APART_PCT. {seconds: the median per call, p10_s and
    p90_s: the 10th and 90th percentiles (a kernel whose calls take one of two times shows it there),
    halves_s: the medians of the first and the second half of the samples, sampled_s: the seconds sampled,
    samples, sm_clock_mhz: read after the samples, gpu_busy_pct: the samples' share of the wall time
    they were taken in}. Ops under batch_below_s run in graphs of about batch_target_s (the family's
    batching in gpubench). `queue`, for the families gpubench queues behind its blocking kernel:
    "held", each sample a graph launch queued behind a spin that outlasts its issue (lead_in_cycles)
    and synchronised on; "pipelined", as gpubench's HeldRegion::run_queued: such samples back to back behind
    one spin until they span PIPELINE_SPAN_S, each between its own events, with one
    synchronisation, so the GPU does not idle between them (the samples' share of the wall time,
    gpu_busy_pct, sets the clock of a power-capped GPU)."""
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    spin_cycles = 0

    def timed(run):
        if spin_cycles:
            torch.cuda._sleep(spin_cycles)
        start.record()
        run()
        stop.record()
        stop.synchronize()
        return [start.elapsed_time(stop) / 1e3]

    depth = 1

    def pipelined(run):
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(depth)]
        torch.cuda._sleep(spin_cycles)
        for first, last in events:
            first.record()
            run()
            last.record()
        events[-1][1].synchronize()
        return [first.elapsed_time(last) / 1e3 for first, last in events]

    op()  # the first call selects the algorithm (cudnn.benchmark) or loads the kernel
    torch.cuda.synchronize()
    load_start = time.perf_counter()
    fastest = min(timed(op)[0] for _ in range(2))
    while time.perf_counter() - load_start < WARMUP_S:
        fastest = min(fastest, timed(op)[0])
    run, calls = op, 1
    if fastest < 5 * batch_below_s:  # as gpubench: batching from back-to-back calls after the settle
        run = replayed(op, 4)
        while time.perf_counter() - load_start < SETTLE_S:
            timed(run)
        fastest = min(timed(run)[0] for _ in range(2)) / 4
        if fastest < batch_below_s:
            calls = min(10000, int(batch_target_s / max(fastest, 1e-7)) + 1)
            run = replayed(op, calls)
        else:
            run = op
    if queue and calls == 1:
        # A held sample launches the op as a one-call graph: its launch, not Python's dispatch of
        # the op, is then what the lead-in spins through, as short as gpubench's issue of a call.
        run = replayed(op, 1)
    if queue:
        spin_cycles = lead_in_cycles(run, start, clock)
        depth = max(1, min(PIPELINE_DEPTH, math.ceil(PIPELINE_SPAN_S / (fastest * calls))))
    sample = pipelined if queue == "pipelined" else timed
    while time.perf_counter() - load_start < SETTLE_S:
        sample(run)
    halves = SampleHalves()
    times = halves.times
    sampling_start = time.perf_counter()

    def settling():
        return time.perf_counter() - sampling_start < steady_window_s and halves.apart_pct() > MAX_HALVES_APART_PCT

    while len(times) < samples or sum(times) < min_time_s or settling():
        halves.add(sample(run))
    busy_pct = 100 * sum(times) / (time.perf_counter() - sampling_start)
    deciles = statistics.quantiles(times, n=10)
    return {"seconds": sorted_median(halves.whole) / calls, "p10_s": deciles[0] / calls, "p90_s": deciles[-1] / calls,
            "halves_s": [median / calls for median in halves.medians()],
            "sampled_s": time.perf_counter() - sampling_start,
            "samples": len(times), "sm_clock_mhz": clock.mhz(), "temp_c": clock.temperature_c(), "lead_in_cycles": spin_cycles,
            "gpu_busy_pct": busy_pct, "queue": queue or "none"}


def power_limited_fields(timing, flops):
    """The JSON fields of a time_power_limited result: time_us and tflops as gpubench's, the spread
    of time_us, the clock."""
    fields = {"time_us": timing["seconds"] * 1e6, "tflops": flops / timing["seconds"] / 1e12,
              "time_us_p10": timing["p10_s"] * 1e6, "time_us_p90": timing["p90_s"] * 1e6,
              "time_us_halves": [seconds * 1e6 for seconds in timing["halves_s"]], "samples": timing["samples"],
              "sampled_s": timing["sampled_s"]}
    for key in ("sm_clock_mhz", "temp_c"):
        if timing[key] is not None:
            fields[key] = timing[key]
    if timing["lead_in_cycles"]:
        fields["lead_in_cycles"] = timing["lead_in_cycles"]
    fields["gpu_busy_pct"], fields["queue"] = timing["gpu_busy_pct"], timing["queue"]
    return fields
