#pragma once
// The analysis view of a run: a RunDocument with the repetitions of each benchmark merged,
// what compare, check and baseline work on. The JSON reading itself is run_document.h's.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/model/context.h"
#include "harness/model/exit_codes.h"
#include "harness/model/json_at.h"
#include "harness/model/run_document.h"
#include "harness/model/tuned_choice.h"

namespace gpubench {

// One metric of one benchmark, with its repetitions merged.
struct MetricResult {
  std::string unit;
  bool higher_is_better = true;
  bool difference = false;  // Metric::difference: may be zero or negative
  // Headline figure: the median of the repetitions' medians, so that one odd repetition does
  // not move it. With one repetition this is that repetition's median.
  double median = 0;
  std::vector<double> values;  // the samples of every repetition, pooled (for the U test)
  std::vector<double> repetition_medians;  // one per repetition, in file order
  double noise_pct = 0;        // relative noise of the median (stats.h), 0 when unknown
  double band_lo = 0, band_hi = 0;  // spread of the samples, for the no-U-test fallback
};

struct BenchmarkResult {
  std::string name, suite, error, primary_metric;
  Status status = Status::kOk;  // the first of its repetitions' that is not ok, else ok
  std::string family;  // "suite/family", e.g. "memory/stream", whatever form the file used
  std::map<std::string, std::string> params;  // axis -> value as text (for matching)
  std::map<std::string, MetricResult> metrics;
  int repetitions = 0;
  std::optional<double> peak;  // the primary metric's physical peak, where the file records one
  double plausibility_factor = 1;  // BenchResult::plausibility_factor
  bool throttled = false;
  std::vector<std::string> throttle_reasons;
  std::vector<int> repetition_indices;     // each entry's repetition_index, in file order
  std::vector<std::string> null_figures;   // BenchResult::null_figures of its ok entries
  // What a tuned family chose (gpubench.choice): the distinct choices of its repetitions.
  std::vector<TunedChoice> choices;
  // Node mode's causes beside a concurrent figure (notes.node): the GPUs this one shares a PCIe
  // bridge with (GPU -> bridge) and how much lower its SM clock ran than alone (the largest
  // drop of its repetitions), so that a verdict on its ratio names a shared path or a clock.
  std::map<std::string, std::string> shares_pcie_bridge_with;
  std::optional<double> sm_clock_drop_pct;
  std::size_t node_gpus = 0;  // how many GPUs ran together (notes.node.gpus), 0 where not read
  bool ok() const { return status == Status::kOk; }
  // "shares PCIe bridge 0000:10:00.0 with gpu0; SM clock 25% lower than alone", or empty.
  std::string node_causes() const;
};

// One reason why a run, or one benchmark of it, cannot be judged (harness/analysis/judgeable.h
// decides them).
struct UnjudgeableReason {
  std::string file;       // the run's path or label
  std::string benchmark;  // empty: the run as a whole
  std::string reason;
  // "<file>: cannot be judged: <reason>", or "<file>: <benchmark>: cannot be judged: <reason>"
  std::string line() const;
};

// A gpubench/1 result document, validated, with repetitions of a benchmark merged.
struct ResultFile {
  std::string path;  // or a label such as "(benchmark run)"
  std::string host_name;
  // context.gpubench's scalar fields (version, git_commit, command_line, driver_version,
  // cuda_driver, cuda_runtime, cublas, cudnn, nccl) as text; absent ones are absent here too.
  std::map<std::string, std::string> versions;
  std::optional<bool> nvml_available;  // unknown in files from before NVML was recorded
  std::string nvml_error;
  std::vector<GpuInfo> gpus;
  std::vector<std::vector<std::string>> links;  // nvidia-smi topo -m style matrix
  std::map<std::string, std::string> environment;  // context.gpubench.environment
  bool complete = true;                    // RunDocument::complete
  std::optional<std::string> interrupted;  // RunDocument::interrupted
  std::vector<BenchmarkResult> benchmarks;  // in first-appearance order
  // Filled by judge_run (harness/analysis/judgeable.h), which every verdict calls on its runs
  // first: every verdict over a run with a reason here is a failure that names it.
  std::vector<UnjudgeableReason> unjudgeable;
  bool judged = false;  // judge_run has decided

  const BenchmarkResult* find(const std::string& name) const;
  // Replaces the benchmark of the same name (or appends it): how check's retries land.
  void put(BenchmarkResult benchmark);

 private:
  std::map<std::string, std::size_t> index_;
};

// `path` labels the run in messages and reports: a file name or e.g. "(benchmark run)".
ResultFile result_file_of(const RunDocument& document, const std::string& path);
// read_run_document and then result_file_of.
ResultFile parse_result_document(const nlohmann::json& doc, const std::string& file);
// In one pass (run_stream.h), each entry merged as it is read: the same result, the same
// errors, without the document's DOM or its RunDocument.
ResultFile parse_result_text(const std::string& text, const std::string& file);
ResultFile load_result_file(const std::string& path);

}  // namespace gpubench
