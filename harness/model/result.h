#pragma once
// The result of one benchmark instance (one repetition), as the worker sends it to the parent
// and as reporters read it. Its JSON form is one entry of a result document's "benchmarks":
// Google Benchmark's fields, flat counters for the primary metrics, and the "gpubench" object.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/model/json_at.h"
#include "harness/model/stats.h"
#include "harness/model/telemetry.h"

namespace gpubench {

struct Metric {
  std::string unit;
  bool higher_is_better = true;
  std::vector<double> values;  // one per sample
  // The summary a file states for a metric whose samples it does not carry; unset otherwise.
  std::optional<Summary> recorded;
  // A difference of two measured figures (a dependency's cost: one chain's time minus another's),
  // which noise makes zero or negative where the true difference is small; every other figure
  // but a percentage is a time, rate or ratio that a real measurement makes positive.
  bool difference = false;
  Summary summary() const { return values.empty() && recorded ? *recorded : summarize(values); }
};

// One slice of a family's time series over its benchmark (notes.series): when it ended, seconds
// into the benchmark, its figures and what the telemetry read then.
struct TimeSlice {
  double t_s = 0;
  std::map<std::string, double> values;  // e.g. "tflops", "sm_clock_mhz", "power_w", "temp_c"
  std::optional<bool> throttled;         // unknown where no telemetry was read
  std::vector<std::string> throttle_reasons;
};

enum class Status { kOk, kFailed, kSkipped, kTimeout, kInterrupted };
const char* to_string(Status status);
Status status_from_string(const std::string& text);

struct BenchResult {
  std::string name, suite, family;
  nlohmann::json params = nlohmann::json::object();
  Status status = Status::kOk;
  std::string error;  // why it failed, was skipped or timed out
  bool verified = false;
  int repetition_index = 0, repetitions = 1;
  long long iterations = 0;   // operations timed in all samples together
  int ops_per_sample = 1;     // operations batched into one sample
  // The CPU time of the whole process (every thread) while the samples were taken, per
  // operation timed, in ns: Google Benchmark's cpu_time (in the unit written, so that it reads
  // back exactly). Unset where nothing was measured (a result not ok), and in a file that does
  // not state it.
  std::optional<double> cpu_time_ns;
  std::string primary_metric;
  std::map<std::string, Metric> metrics;
  std::optional<double> peak;  // theoretical value of the primary metric, for % of peak
  std::string peak_source;     // what the peak is, e.g. "HBM: 2 x 3201 MHz x 6144 bit"
  // The primary figure is implausible above peak x this (State::bound_by_peak_times; 1: the
  // 1.05 rule alone). Written as "plausibility_factor" where above 1, so readers apply the run's bound.
  double plausibility_factor = 1;
  nlohmann::json telemetry = nlohmann::json::object();
  // Every telemetry sample taken during it: the --telemetry-trace time series. Not part of the
  // benchmark's entry (to_json); the worker sends it beside the entry.
  std::vector<TelemetrySample> trace;
  nlohmann::json notes = nlohmann::json::object();  // what the benchmark wants recorded
  // The metrics that mean nothing in this configuration, with why (notes.not_applicable): the
  // table names them beside the primary metric, so that their absence reads as intended.
  std::map<std::string, std::string> not_applicable;
  std::vector<TimeSlice> series;  // notes.series, where the family records one
  // Where a family chooses among candidates (State::tune): what was chosen, the library
  // heuristic's own pick beside it, and each candidate's time; null where nothing was chosen.
  nlohmann::json choice = nullptr;
  // Where an ok entry that was read states a figure as null (JSON pointers): a metric's median
  // beside its samples, or Google Benchmark's flat copy of a metric. Null is how a non-finite
  // number is written, so such an entry cannot be judged (harness/analysis/judgeable.h). A null
  // sample reads as NaN, and a null median of a metric without samples as a NaN median.
  std::vector<std::string> null_figures;

  std::optional<double> pct_of_peak() const;
  bool throttled() const;
};

// One benchmark entry, without the indices that only the whole document knows
// (family_index, per_family_instance_index: run_document.cpp). Non-finite numbers are written
// as null and named in "error".
nlohmann::json to_json(const BenchResult& result);
// Reads an entry written by to_json (or by an older or hand-edited file), validating it.
BenchResult read_bench_result(const JsonAt& entry);
// Google Benchmark's time of one operation in ns: the primary metric where it is a time,
// else time_us; 0 when neither is known.
double real_time_ns(const BenchResult& result);

}  // namespace gpubench
