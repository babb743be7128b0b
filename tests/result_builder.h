#pragma once
// Builds gpubench/1 result documents in code for the compare, check and fleet tests: a
// context like an 8-GPU H200 node's, and benchmarks with chosen samples. Also the helpers
// those tests share: expecting a bad-input error, and running a subcommand through CLI11.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "harness/model/exit_codes.h"
#include "harness/model/result_file.h"

namespace gpubench::testing {

// n samples spread evenly over center x (1 +- spread_pct/100), in an interleaved order so
// that the values do not arrive sorted. Deterministic: no test depends on a random seed.
inline std::vector<double> samples(double center, double spread_pct, int n) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    const int k = (i * 7) % n;  // 7 is coprime with the sizes the tests use
    const double u = n > 1 ? 2.0 * k / (n - 1) - 1.0 : 0.0;
    out.push_back(center * (1 + spread_pct / 100 * u));
  }
  return out;
}

class ResultBuilder {
 public:
  explicit ResultBuilder(int gpu_count = 8, const std::string& model = "NVIDIA H200") {
    doc_["context"] = {{"host_name", "node01"}, {"num_cpus", 64}};
    nlohmann::json& g = doc_["context"]["gpubench"];
    g = {{"schema", "gpubench/1"}, {"version", "0.1.0"}, {"git_commit", "abc123"},
         {"driver_version", "560.35.03"}, {"cuda_driver", "12.6"}, {"cuda_runtime", "12.6"},
         {"cublas", "12.6.4"}, {"cudnn", "9.5.1"}, {"nccl", "2.23.4"},
         {"nvml", {{"available", true}, {"error", ""}}}, {"gpus", nlohmann::json::array()},
         {"links", nlohmann::json::array()}, {"peak", nlohmann::json::object()}};
    for (int i = 0; i < gpu_count; ++i) {
      g["gpus"].push_back({{"index", i}, {"name", model}, {"uuid", "GPU-" + std::to_string(1000 + i)},
                           {"pci_bus_id", "00000000:1" + std::to_string(i) + ":00.0"},
                           {"sm_count", 132}, {"cc", "9.0"}, {"memory_bytes", 150754820096ULL},
                           {"l2_bytes", 62914560}, {"sm_clock_max_mhz", 1980},
                           {"mem_clock_max_mhz", 3201}, {"memory_bus_width_bits", 5120},
                           {"pcie", {{"gen", 5}, {"width", 16}, {"gen_max", 5}, {"width_max", 16}}},
                           {"nvlink", {{"links_active", 18}, {"gbps_per_link", 26.5625}}},
                           {"numa_node", i / 4}, {"ecc_enabled", true}, {"mig_mode", false},
                           {"power_limit_w", 700}});
      nlohmann::json row = nlohmann::json::array();
      for (int j = 0; j < gpu_count; ++j) row.push_back(i == j ? "X" : "NV18");
      g["links"].push_back(row);
    }
    doc_["benchmarks"] = nlohmann::json::array();
  }

  nlohmann::json& gpubench_context() { return doc_["context"]["gpubench"]; }
  nlohmann::json& gpu(int i) { return gpubench_context()["gpus"][i]; }
  ResultBuilder& host(const std::string& name) {
    doc_["context"]["host_name"] = name;
    return *this;
  }

  // A benchmark measured ok, with one metric (its primary) and these samples.
  ResultBuilder& bench(const std::string& name, const std::string& metric,
                       const std::vector<double>& values, bool higher_is_better = true,
                       int repetition = 0, int repetitions = 1) {
    const auto slash = name.find('/');
    const auto slash2 = name.find('/', slash + 1);
    nlohmann::json params = nlohmann::json::object();
    for (std::size_t at = slash2; at != std::string::npos;) {
      const auto next = name.find('/', at + 1);
      const std::string axis = name.substr(at + 1, next == std::string::npos ? next : next - at - 1);
      const auto colon = axis.find(':');
      if (colon != std::string::npos) params[axis.substr(0, colon)] = axis.substr(colon + 1);
      at = next;
    }
    doc_["benchmarks"].push_back(
        {{"name", name}, {"run_name", name}, {"run_type", "iteration"},
         {"repetitions", repetitions}, {"repetition_index", repetition}, {"iterations", 1},
         {"real_time", 1.0}, {"cpu_time", 1.0}, {"time_unit", "ns"},
         {"gpubench",
          {{"suite", name.substr(0, slash)}, {"family", name.substr(slash + 1, slash2 - slash - 1)},
           {"params", params}, {"status", "ok"}, {"error", ""}, {"verified", true},
           {"primary_metric", metric}, {"metrics", nlohmann::json::object()}, {"pct_of_peak", nullptr},
           {"telemetry", {{"throttle_reasons", nlohmann::json::array()}, {"throttled", false}}}}}});
    return metric_of_last(metric, values, higher_is_better);
  }

  // Adds another metric to the last benchmark.
  ResultBuilder& metric_of_last(const std::string& metric, const std::vector<double>& values,
                                bool higher_is_better = true) {
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    const double median = n == 0 ? 0 : n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    last()["gpubench"]["metrics"][metric] = {
        {"unit", metric.substr(metric.rfind('_') + 1)}, {"better", higher_is_better ? "higher" : "lower"},
        {"median", median}, {"mean", median}, {"min", n ? sorted.front() : 0.0},
        {"max", n ? sorted.back() : 0.0}, {"stddev", 0.0}, {"cv_pct", 0.0}, {"samples", n},
        {"values", values}};
    return *this;
  }

  // Marks the last benchmark failed / skipped / timed out, without figures.
  ResultBuilder& status_of_last(const std::string& status, const std::string& error) {
    last()["gpubench"]["status"] = status;
    last()["gpubench"]["error"] = error;
    last()["gpubench"]["metrics"] = nlohmann::json::object();
    return *this;
  }

  ResultBuilder& throttle_last(const std::vector<std::string>& reasons) {
    last()["gpubench"]["telemetry"] = {{"throttle_reasons", reasons}, {"throttled", true}};
    return *this;
  }

  nlohmann::json& last() { return doc_["benchmarks"].back(); }
  nlohmann::json& benchmarks() { return doc_["benchmarks"]; }
  const nlohmann::json& doc() const { return doc_; }
  ResultFile parse(const std::string& label = "run.json") const {
    return parse_result_document(doc_, label);
  }

 private:
  nlohmann::json doc_;
};

// Calls f, expecting UsageError{kExitBadInput} whose message contains `fragment`.
inline void expect_bad_input(const std::function<void()>& f, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing: " << fragment;
  } catch (const UsageError& e) {
    EXPECT_EQ(e.code, kExitBadInput);
    EXPECT_NE(e.message.find(fragment), std::string::npos) << e.message;
  }
}

struct CliResult {
  int exit_code = -1;
  std::string out;  // what the command printed on stdout
};

// Parses `args` (the words after the program name) with an app that `add` sets up, as main()
// does, and returns the exit code the subcommand stored. Errors propagate as main() sees them.
inline CliResult run_cli(const std::function<void(CLI::App&, int*)>& add, std::vector<std::string> args) {
  CLI::App app;
  CliResult result;
  add(app, &result.exit_code);
  std::reverse(args.begin(), args.end());  // CLI11 takes the words last first
  ::testing::internal::CaptureStdout();
  try {
    app.parse(args);
  } catch (...) {
    ::testing::internal::GetCapturedStdout();
    throw;
  }
  result.out = ::testing::internal::GetCapturedStdout();
  return result;
}

}  // namespace gpubench::testing
