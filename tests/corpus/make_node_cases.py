#!/usr/bin/env python3
"""Writes the doctored node-mode runs of the corpus (node_healthy, node_shared_switch,
node_throttled) from healthy_pair/base.json, a real one-GPU acceptance run of an H200: a 2-GPU
node (gpu1 a copy of gpu0) with each GPU's solo figure, its node-mode figure scaled by a factor
per GPU (its concurrent-to-solo ratio, the metric solo_ratio) and the node total, as a run with
--concurrent and "solo_reference": "every" writes them. Run it from the source tree; it
rewrites the three folders' run.json."""
import copy
import json
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
H2D = "transfer/host_device/host:pinned/dir:h2d/engine:ce/numa:local/bytes:268435456"
TRIAD = "memory/stream/op:triad/type:fp64/array_bytes:4294967296"
SWITCH, ROOT0, ROOT1 = "0000:15:00.0", "0000:00:01.0", "0000:00:03.0"


def summary(values, unit, better):
    mean = statistics.fmean(values)
    stddev = statistics.stdev(values) if len(values) > 1 else 0.0
    return {"unit": unit, "better": better, "values": values, "samples": len(values), "median": statistics.median(values),
            "mean": mean, "min": min(values), "max": max(values), "stddev": stddev, "cv_pct": 100 * stddev / mean}


def on_gpu(entry, gpu, node=False):
    b = copy.deepcopy(entry)
    point = b["name"].rsplit("/gpu:", 1)[0]
    b["name"] = point + ("/mode:node" if node else "") + "/gpu:gpu%d" % gpu
    b["run_name"] = b["name"]
    g = b["gpubench"]
    g["params"]["gpu"] = "gpu%d" % gpu
    if node:
        g["params"]["mode"] = "node"
    g["peak_source"] = g["peak_source"].replace("gpu0", "gpu%d" % gpu)
    return b


def scaled(entry, factor):
    """The entry's rate metrics times factor and its times divided by it."""
    g = entry["gpubench"]
    for name, m in g["metrics"].items():
        values = [v * factor if m["better"] == "higher" else v / factor for v in m["values"]]
        g["metrics"][name] = summary(values, m["unit"], m["better"])
        if name in entry:
            entry[name] = g["metrics"][name]["median"]
    entry["real_time"] = g["metrics"]["time_us"]["median"] * 1000
    if g.get("peak"):
        g["pct_of_peak"] = 100 * g["metrics"][g["primary_metric"]]["median"] / g["peak"]
    return entry


def node_entries(solo, factors, shared):
    entries = []
    for gpu, factor in enumerate(factors):
        b = scaled(on_gpu(solo, gpu, node=True), factor)
        g = b["gpubench"]
        g["metrics"]["solo_ratio"] = summary([factor], "ratio", "higher")
        g["notes"]["node"] = {"gpus": ["gpu0", "gpu1"], "overlap_pct": 99.2,
                              "overlap_method": "host steady clock around each sample's call (issue to completion), "
                                                "read by every GPU's thread of one process",
                              "solo_reference": solo["name"].rsplit("/gpu:", 1)[0] + "/gpu:gpu%d" % gpu}
        if shared:
            g["notes"]["node"]["shares_pcie_bridge_with"] = {"gpu%d" % (1 - gpu): SWITCH}
        entries.append(b)
    total = copy.deepcopy(entries[0])
    total["name"] = total["run_name"] = entries[0]["name"].rsplit("/gpu:", 1)[0] + "/gpu:all"
    g = total["gpubench"]
    g["params"]["gpu"] = "all"
    primary = g["primary_metric"]
    sums = [sum(v) for v in zip(*(e["gpubench"]["metrics"][primary]["values"] for e in entries))]
    g["metrics"] = {primary: summary(sums, g["metrics"][primary]["unit"], "higher")}
    total[primary] = g["metrics"][primary]["median"]
    # As the writer has it for a total: no peak and no telemetry of its own.
    g.update({"peak": None, "peak_source": "", "pct_of_peak": None, "telemetry": {}})
    g["notes"] = {"node": {"gpus": [e["name"] for e in entries],
                           "summed": "per-sample sums of the GPUs' samples, started together"}}
    return entries + [total]


def write_case(folder, factors, shared=False, throttled_gpu=None):
    with open(os.path.join(HERE, "healthy_pair", "base.json"), encoding="utf-8") as f:
        run = json.load(f)
    ctx = run["context"]["gpubench"]
    gpu1 = copy.deepcopy(ctx["gpus"][0])
    gpu1["index"] = 1
    gpu1["uuid"] = gpu1["uuid"][:-4] + "beef"
    gpu1["pci_bus_id"] = "00000000:16:00.0"
    ctx["gpus"].append(gpu1)
    ctx["gpus"][0]["pcie_path"] = [SWITCH, ROOT0] if shared else [ROOT0]
    ctx["gpus"][1]["pcie_path"] = [SWITCH, ROOT0] if shared else [ROOT1]
    ctx["links"] = [["X", "NV18"], ["NV18", "X"]]
    ctx["peak"]["gpu1"] = ctx["peak"]["gpu0"]
    ctx["config"]["settings"]["devices"] = [0, 1]
    ctx["command_line"] += " --concurrent"
    firsts = {}
    for b in run["benchmarks"]:
        if b.get("run_type") == "iteration" and b["name"].rsplit("/gpu:", 1)[0] in (H2D, TRIAD):
            firsts.setdefault(b["name"], b)
    benchmarks = []
    for point, factor_row in ((H2D, factors["h2d"]), (TRIAD, factors["triad"])):
        solo = copy.deepcopy(firsts[point + "/gpu:gpu0"])
        solo["repetitions"] = 1
        solo["repetition_index"] = 0
        benchmarks += [on_gpu(solo, 0), on_gpu(solo, 1)]
        node = node_entries(solo, factor_row, shared and point == H2D)
        if throttled_gpu is not None and point == TRIAD:
            t = node[throttled_gpu]["gpubench"]["telemetry"]
            t["sm_clock_mhz"] = {"max": 1980.0, "median": 1410.0, "min": 1305.0}
            t["throttle_reasons"] = ["sw_power_cap", "hw_thermal_slowdown"]
            t["throttled"] = True
            solo_clock = firsts[point + "/gpu:gpu0"]["gpubench"]["telemetry"]["sm_clock_mhz"]["median"]
            node[throttled_gpu]["gpubench"]["notes"]["node"]["sm_clock_drop_pct"] = 100 * (1 - 1410.0 / solo_clock)
        benchmarks += node
    run["benchmarks"] = benchmarks
    out = os.path.join(HERE, folder)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "run.json"), "w", encoding="utf-8") as f:
        json.dump(run, f, indent=1, sort_keys=True)
        f.write("\n")


write_case("node_healthy", {"h2d": [0.99, 0.985], "triad": [0.995, 0.99]})
# Two GPUs behind one PCIe switch: together each gets half of its host bandwidth.
write_case("node_shared_switch", {"h2d": [0.5, 0.5], "triad": [0.995, 0.99]}, shared=True)
# gpu1 hits its power cap and a thermal slowdown when the whole node works: its HBM rate drops.
write_case("node_throttled", {"h2d": [0.99, 0.985], "triad": [0.995, 0.82]}, throttled_gpu=1)
