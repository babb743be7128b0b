#pragma once
// Telemetry of a run as data: what the sampler (harness/run/telemetry_sampler.h) reads from NVML
// every interval, the per-benchmark summary each result's JSON carries, the cooldown record, and
// the whole time series as CSV (--telemetry-trace). Nothing here needs CUDA or NVML.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench {

// How a run samples, and how long it lets a GPU cool between benchmarks (docs/running.md,
// "Telemetry, cooldown and error counters").
struct TelemetrySettings {
  int interval_ms = 50;                     // 0: no sampling at all
  double cooldown_margin_c = 10;            // idle is within this of the GPU's idle temperature...
  std::optional<double> cooldown_target_c;  // ...or at or below this temperature, when set
  double cooldown_max_wait_s = 10;          // 0: no cooldown; bounds what a sweep of short benchmarks can add
  std::map<int, double> idle_temp_c;        // per CUDA ordinal, read before the first benchmark
};

// One reading of one GPU. Unset: NVML cannot read that quantity on this GPU (never 0).
struct TelemetryReading {
  std::optional<double> sm_clock_mhz, mem_clock_mhz, power_w, temp_c, gpu_util_pct, mem_util_pct;
  std::optional<std::uint64_t> clock_event_reasons;  // nvmlClocksEventReason* bits
  // NVML's cumulative counters (NVML_FI_DEV_PCIE_COUNT_*_BYTES, NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_*
  // summed over links, in KiB): throughput is the difference of two readings over their interval.
  std::optional<std::uint64_t> pcie_tx_bytes, pcie_rx_bytes, nvlink_tx_kib, nvlink_rx_kib;
};

struct TelemetrySample {
  double t_s = 0;  // seconds since the run's sampling epoch
  int gpu = 0;     // CUDA ordinal
  std::string benchmark;
  TelemetryReading reading;
  // From this reading and the GPU's previous one (add_throughput); 10^9 bytes/s.
  std::optional<double> pcie_tx_gbps, pcie_rx_gbps, nvlink_tx_gbps, nvlink_rx_gbps;
};

// The quantities a summary and a trace row carry, in column order.
struct TelemetryQuantity {
  const char* name;
  std::optional<double> (*value)(const TelemetrySample&);
};
const std::vector<TelemetryQuantity>& telemetry_quantities();

// Fills the throughput fields of each sample from the previous sample of the same GPU, in order;
// a counter that went backwards (a driver reset) or an interval of 0 gives no figure.
void add_throughput(std::vector<TelemetrySample>& samples);

// The summary of one GPU's samples: {"samples", each quantity as {"min", "median", "max"} or
// null where no sample had it, "throttle_reasons" seen in any sample, "throttled"}.
nlohmann::json summarize_telemetry(const std::vector<TelemetrySample>& samples, int gpu);

// The time series as CSV: a header, then one row per sample (t_s, gpu, benchmark, each quantity,
// clock_event_reasons as names joined by '|'); an unreadable quantity is an empty cell.
std::string telemetry_trace_csv(const std::vector<TelemetrySample>& samples);

// Samples as the worker sends them to the parent, and back.
nlohmann::json to_json(const TelemetrySample& sample);
TelemetrySample telemetry_sample_from_json(const nlohmann::json& sample);

// The wait before a benchmark for its GPUs to come back near idle (harness/run/cooldown.h).
struct CooldownRecord {
  double waited_s = 0;
  // "idle" (reached the target), "max_wait" (gave up), "off" (disabled), "unavailable" (no
  // temperature to wait on).
  std::string stopped = "off";
  std::optional<double> temp_c, target_c;  // hottest GPU when the wait ended; the target
};
nlohmann::json to_json(const CooldownRecord& record);

// A benchmark's "telemetry" object: the summary of `device` (summarize_telemetry) at the top,
// "sampling" ("interval" with "interval_ms", "before_after" for host-sensitive families, or
// "off"), "cooldown", and, where other GPUs were sampled too, their summaries under "gpus"
// ("gpu1": {...}); "throttled" and "throttle_reasons" then cover every sampled GPU.
nlohmann::json benchmark_telemetry(const std::vector<TelemetrySample>& samples, int device,
                                   const std::string& sampling, int interval_ms, const CooldownRecord& cooldown);

}  // namespace gpubench
