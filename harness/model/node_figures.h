#pragma once
// The figures of node mode (DESIGN.md, "Benchmark names", "Measurement rules"): every selected
// GPU runs a per-GPU benchmark at once. Its names (`mode:node` before `gpu:gpuN`, node totals
// ending in `gpu:all`), the measured overlap of the GPUs' timed regions, the node totals and
// each GPU's ratio to its solo figure. No CUDA: the runner and the verdicts share it.
#include <optional>
#include <string>
#include <vector>

#include "harness/model/clock_span.h"
#include "harness/model/context.h"
#include "harness/model/result.h"

namespace gpubench {

// Whether `name` is a node-mode figure (a GPU's or a node total).
bool is_node_name(const std::string& name);
// `suite/family/.../gpu:gpu3` -> `suite/family/.../mode:node/gpu:gpu3`; a name without a GPU
// axis at its end is returned unchanged.
std::string node_name_of(const std::string& solo_name);
// The inverse: the solo figure a node figure is held against, on `gpu` (e.g. "gpu0") where
// given, else on its own GPU.
std::string solo_name_of(const std::string& node_name, const std::string& gpu = "");
// `.../mode:node/gpu:gpu3` -> `.../mode:node/gpu:all`.
std::string node_total_name_of(const std::string& node_name);
// The GPU a name ends in ("gpu3", "all"), or empty.
std::string gpu_of_name(const std::string& name);

// The share, in percent, of `mine`'s timed time during which every one of `peers` was in one of
// its own timed regions too; 100 without peers. Spans may overlap or come in any order.
double overlap_pct(const std::vector<ClockSpan>& mine, const std::vector<std::vector<ClockSpan>>& peers);

// Metrics that add up over the node's GPUs: rates (a unit ending in "/s": GB/s, TFLOP/s,
// images/s, 1/s). Times, latencies, ratios and percentages do not.
bool is_summed_metric(const Metric& metric);

// The node total of one benchmark point: the GPUs' results of one repetition. Its summed metrics'
// samples are the per-sample sums over the GPUs (the samples were started together), so its
// median is the node's rate while all GPUs work; the medians of the GPUs' power readings add up
// to the node's (notes.node_power_w, absent where a GPU's power was not read); its time_us, where
// the GPUs have one, is per sample the slowest GPU's. Failed where any GPU's result is not ok.
// Empty without summed metrics.
std::optional<BenchResult> node_total(const std::vector<BenchResult>& gpus);

// The metric a node figure carries its concurrent-to-solo ratio in.
inline constexpr const char* kSoloRatioMetric = "solo_ratio";

// notes.node of a node figure, written by the runner and read by the verdicts (result_file).
namespace node_note {
inline constexpr const char* kNotes = "node";
inline constexpr const char* kGpus = "gpus";                             // the node group's GPUs
inline constexpr const char* kOverlapPct = "overlap_pct";                // overlap_pct() with the peers
inline constexpr const char* kOverlapMethod = "overlap_method";
inline constexpr const char* kSoloReference = "solo_reference";          // the solo figure's name
inline constexpr const char* kSmClockDropPct = "sm_clock_drop_pct";      // sm_clock_drop_pct()
inline constexpr const char* kSharesPcieBridgeWith = "shares_pcie_bridge_with";  // shared_pcie_note()
inline constexpr const char* kSummed = "summed";                         // a node total's method
}  // namespace node_note

// The concurrent-to-solo ratio of the primary metric: 1 as fast as alone, 0.5 half the rate
// (solo/node for a metric where lower is better). Empty where either is not ok or has no figure.
std::optional<double> solo_ratio(const BenchResult& node, const BenchResult& solo);

// How much lower, in percent, the GPU's median SM clock was in node mode than alone (negative:
// higher); empty where either was not read. Beside the ratio, it says whether a slower figure
// came from the clock (power cap, heat) or from a shared path.
std::optional<double> sm_clock_drop_pct(const BenchResult& node, const BenchResult& solo);

// The bridges `gpu` shares with other GPUs of `gpus` (from their PCIe paths), as notes:
// {"gpu1": "0000:40:01.0"}; empty where it shares none.
nlohmann::json shared_pcie_note(const GpuInfo& gpu, const std::vector<GpuInfo>& gpus);

}  // namespace gpubench
