// libFuzzer target: arbitrary bytes as a baseline file (and so as a tolerance file, which a
// baseline embeds). Loading must succeed or throw UsageError; a baseline that loads is then
// written back, reloaded, and held against a fixed run, as check would.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_input.h"
#include "harness/analysis/baseline.h"
#include "harness/analysis/check.h"

namespace {

const gpubench::ResultFile& fixed_run() {
  static const gpubench::ResultFile run = gpubench::parse_result_text(R"({
    "context": {"host_name": "fuzz", "gpubench": {"schema": "gpubench/1",
      "gpus": [{"index": 0, "name": "NVIDIA H200", "pcie": {"gen": 5, "width": 16, "gen_max": 5,
                "width_max": 16}, "nvlink": {"links_active": 18}, "ecc_enabled": true}]}},
    "benchmarks": [
      {"name": "memory/stream/op:triad", "gpubench": {"status": "ok", "primary_metric": "bandwidth_gbps",
        "metrics": {"bandwidth_gbps": {"better": "higher", "median": 4400, "values": [4390, 4400, 4410]}}}},
      {"name": "launch/empty/mode:sync", "gpubench": {"status": "ok", "primary_metric": "latency_us",
        "metrics": {"latency_us": {"better": "lower", "median": 0}},
        "telemetry": {"throttled": true, "throttle_reasons": ["hw_slowdown"]}}},
      {"name": "gemm/matmul/type:bf16", "gpubench": {"status": "failed", "error": "mismatch"}}]})",
                                                                      "run.json");
  return run;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpubench;
  return fuzz::load_or_refuse(data, size, [](const std::string& text) {
    const Baseline baseline = parse_baseline_text(text, "fuzz.json");
    const Baseline again = parse_baseline(to_json(baseline), "again.json");
    if (to_json(again) != to_json(baseline)) __builtin_trap();  // writing must round-trip
    suites_for(baseline);
    render_check(check_run(baseline, fixed_run()), "table");
    verify_applies_to(baseline, fixed_run());
  });
}
