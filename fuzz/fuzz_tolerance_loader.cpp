// libFuzzer target: arbitrary bytes as a tolerance file. Loading must succeed or throw
// UsageError; tolerances that load are written back, reloaded, checked against a fixed run
// (validate_tolerances) and looked up, as compare and fleet do (thresholds from any reference).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_input.h"
#include "harness/analysis/tolerances.h"

namespace {

const gpubench::ResultFile& fixed_run() {
  static const gpubench::ResultFile run = gpubench::parse_result_text(R"({
    "context": {"gpubench": {"schema": "gpubench/1", "gpus": [{"index": 0, "name": "NVIDIA H200"}]}},
    "benchmarks": [
      {"name": "memory/stream/op:triad/gpu:gpu0", "gpubench": {"status": "ok", "primary_metric": "bandwidth_gbps",
        "metrics": {"bandwidth_gbps": {"better": "higher", "median": 4400}}}},
      {"name": "launch/empty/mode:sync", "gpubench": {"status": "ok", "primary_metric": "latency_us",
        "metrics": {"latency_us": {"better": "lower", "median": 2}}}}]})",
                                                                      "run.json");
  return run;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpubench;
  return fuzz::load_or_refuse(data, size, [](const std::string& text) {
    const nlohmann::json doc = parse_json_text(text, "fuzz.json");
    const Tolerances tolerances = parse_tolerances(JsonAt(doc, "fuzz.json"));
    const Tolerances again = parse_tolerances(JsonAt(to_json(tolerances), "again.json"));
    if (to_json(again) != to_json(tolerances)) __builtin_trap();  // writing must round-trip
    for (const BenchmarkResult& b : fixed_run().benchmarks)
      for (double reference : {0.0, 2.0, -1.0}) tolerances.threshold_for(b, b.primary_metric, reference, false, 3);
    validate_tolerances(tolerances, "fuzz.json", {&fixed_run()});
  });
}
