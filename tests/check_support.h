#pragma once
// What the check, baseline and nightly tests share: a baseline document for an H200 node, a
// healthy run to hold against it, and the check and baseline commands as main() adds them.
#include <string>
#include <vector>

#include "harness/analysis/baseline.h"
#include "harness/cli/commands.h"
#include "tests/result_builder.h"
#include "tests/test_support.h"

namespace gpubench::testing::check {

inline const char* kTriad = "memory/stream/op:triad/type:fp32";
inline const char* kCopy = "memory/stream/op:copy/type:fp32";
inline const char* kLaunch = "launch/empty/mode:sync";

inline nlohmann::json baseline_doc(nlohmann::json benchmarks) {
  return {{"gpubench_baseline", 1},
          {"applies_to", {{"gpu_model", "NVIDIA H200"}, {"nvlinks_per_gpu", 18},
                          {"pcie_gen", 5}, {"pcie_width", 16}}},
          {"benchmarks", benchmarks}};
}

inline Baseline baseline_of(nlohmann::json benchmarks) {
  return parse_baseline(baseline_doc(std::move(benchmarks)), "h200.json");
}

// A baseline's only entry, a floor every healthy run clears: what health tests need.
inline nlohmann::json any_entry() { return {{{"name", kTriad}, {"floor", 1}}}; }

// A healthy run: triad 4400 GB/s, copy 4000 GB/s, launch 4 us.
inline ResultBuilder healthy_run() {
  ResultBuilder b;
  b.bench(kTriad, "bandwidth_gbps", samples(4400, 0.5, 10));
  b.bench(kCopy, "bandwidth_gbps", samples(4000, 0.5, 10));
  b.bench(kLaunch, "latency_us", samples(4, 0.5, 10), false);
  return b;
}

// check and baseline, as main() adds them.
inline int run_cli(std::vector<std::string> args, SuiteRunner runner = {}, std::string* out = nullptr) {
  const auto result = ::gpubench::testing::run_cli(
      [&](CLI::App& app, int* exit_code) {
        add_check_command(app, exit_code, runner);
        add_baseline_command(app, exit_code);
      },
      std::move(args));
  if (out) *out = result.out;
  return result.exit_code;
}

}  // namespace gpubench::testing::check
