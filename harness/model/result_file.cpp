#include "harness/model/result_file.h"

#include <algorithm>
#include <cmath>

#include "harness/model/node_figures.h"
#include "harness/model/run_stream.h"
#include "harness/model/stats.h"
#include "harness/model/text_table.h"

namespace gpubench {

const BenchmarkResult* ResultFile::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &benchmarks[it->second];
}

void ResultFile::put(BenchmarkResult benchmark) {
  auto it = index_.find(benchmark.name);
  if (it != index_.end()) {
    benchmarks[it->second] = std::move(benchmark);
    return;
  }
  index_[benchmark.name] = benchmarks.size();
  benchmarks.push_back(std::move(benchmark));
}

std::string BenchmarkResult::node_causes() const {
  std::string text;
  for (const auto& [gpu, bridge] : shares_pcie_bridge_with)
    text += (text.empty() ? "" : "; ") + std::string("shares PCIe bridge ") + bridge + " with " + gpu;
  if (sm_clock_drop_pct && *sm_clock_drop_pct > 0)
    text += (text.empty() ? "" : "; ") + std::string("SM clock ") + format_number(*sm_clock_drop_pct, 3) +
            "% lower than alone";
  return text;
}

std::string UnjudgeableReason::line() const {
  return file + ": " + (benchmark.empty() ? "" : benchmark + ": ") + "cannot be judged: " + reason;
}

namespace {

// Axis values as text for matching: 16.0 and 16 are one value.
std::string param_text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) {
    const double v = value.get<double>();
    if (std::floor(v) == v && std::fabs(v) < 9.0e15) return std::to_string(static_cast<long long>(v));
  }
  return value.dump();
}

// One metric's repetitions, gathered before they are merged.
struct MetricParts {
  MetricResult merged;
  std::vector<double> repetition_medians;
  double spread = 0;  // largest stddev seen, for a band when there are no samples
  double cv_pct = 0;
};

void add_repetition(const Metric& metric, MetricParts& parts) {
  const Summary s = metric.summary();
  parts.merged.higher_is_better = metric.higher_is_better;
  parts.merged.difference = parts.merged.difference || metric.difference;  // any repetition marked
  parts.merged.unit = metric.unit;
  parts.repetition_medians.push_back(s.median);
  parts.merged.values.insert(parts.merged.values.end(), metric.values.begin(), metric.values.end());
  parts.spread = std::max(parts.spread, s.stddev);
  parts.cv_pct = std::max(parts.cv_pct, s.cv_pct);
}

MetricResult merged(MetricParts& parts) {
  MetricResult& m = parts.merged;
  m.median = median_of(parts.repetition_medians);
  m.repetition_medians = std::move(parts.repetition_medians);
  if (m.values.size() >= 2) {
    const Summary s = summarize(m.values);
    m.noise_pct = median_noise_pct(m.values);
    m.band_lo = s.min;
    m.band_hi = s.max;
  } else {
    // No samples written: the file's own spread (or the repetitions') is all there is.
    const Summary reps = summarize(parts.repetition_medians);
    const double spread = std::max(parts.spread, reps.max - reps.min);
    m.noise_pct = parts.cv_pct;
    m.band_lo = std::min(reps.min, m.median - spread);
    m.band_hi = std::max(reps.max, m.median + spread);
  }
  return std::move(m);
}

struct BenchmarkParts {
  BenchmarkResult result;
  std::map<std::string, MetricParts> metrics;
};

// An ok repetition claims a verified figure; one that says otherwise is not a result.
void fail_unverified(const BenchResult& r, BenchmarkResult& b) {
  if (b.ok() && r.status == Status::kOk && !r.verified) {
    b.status = Status::kFailed;
    b.error = "status ok but \"verified\" is false: the output was not checked";
  }
  if (r.peak) b.peak = r.peak;
  b.plausibility_factor = r.plausibility_factor;
}

// notes.node's causes; a note of another shape is not a verdict's business and is passed over.
void add_node_causes(const nlohmann::json& notes, BenchmarkResult& b) {
  const auto node = notes.find(node_note::kNotes);
  if (node == notes.end() || !node->is_object()) return;
  const auto shared = node->find(node_note::kSharesPcieBridgeWith);
  if (shared != node->end() && shared->is_object())
    for (const auto& [gpu, bridge] : shared->items())
      if (bridge.is_string()) b.shares_pcie_bridge_with[gpu] = bridge.get<std::string>();
  const auto gpus = node->find(node_note::kGpus);
  if (gpus != node->end() && gpus->is_array()) b.node_gpus = std::max(b.node_gpus, gpus->size());
  const auto drop = node->find(node_note::kSmClockDropPct);
  if (drop != node->end() && drop->is_number() && std::isfinite(drop->get<double>()))
    b.sm_clock_drop_pct = std::max(b.sm_clock_drop_pct.value_or(drop->get<double>()), drop->get<double>());
}

void add_repetition(const BenchResult& r, BenchmarkParts& parts) {
  BenchmarkResult& b = parts.result;
  ++b.repetitions;
  b.repetition_indices.push_back(r.repetition_index);
  b.null_figures.insert(b.null_figures.end(), r.null_figures.begin(), r.null_figures.end());
  if (b.ok() && r.status != Status::kOk) {  // any bad repetition makes the benchmark bad
    b.status = r.status;
    b.error = r.error;
  }
  b.suite = r.suite;
  b.family = r.family;
  for (const auto& [axis, value] : r.params.items())
    b.params[axis] = param_text(value);
  b.throttled = b.throttled || r.throttled();
  if (r.telemetry.contains("throttle_reasons"))
    for (const auto& reason : r.telemetry["throttle_reasons"]) {
      const std::string text = reason.get<std::string>();
      if (std::find(b.throttle_reasons.begin(), b.throttle_reasons.end(), text) == b.throttle_reasons.end())
        b.throttle_reasons.push_back(text);
    }
  add_choice(r.choice, b.choices);
  if (r.notes.is_object()) add_node_causes(r.notes, b);
  fail_unverified(r, b);
  if (r.status == Status::kOk)
    for (const auto& [name, metric] : r.metrics) add_repetition(metric, parts.metrics[name]);
  if (!r.primary_metric.empty()) b.primary_metric = r.primary_metric;
}

}  // namespace

namespace {

// A run's benchmarks merged as their entries arrive, in the order of their first appearance.
class MergedBenchmarks : public BenchResultSink {
 public:
  void add(BenchResult&& result) override { add_entry(result); }
  void clear() override {
    parts_.clear();
    order_.clear();
  }
  void add_entry(const BenchResult& r) {
    auto [it, fresh] = parts_.try_emplace(r.name);
    if (fresh) {
      order_.push_back(r.name);
      it->second.result.name = r.name;
    }
    add_repetition(r, it->second);
  }
  ResultFile result_file(const RunDocument& doc, const std::string& path);

 private:
  std::map<std::string, BenchmarkParts> parts_;
  std::vector<std::string> order_;
};

ResultFile MergedBenchmarks::result_file(const RunDocument& doc, const std::string& path) {
  ResultFile run;
  run.path = path;
  run.host_name = doc.host.host_name;
  for (auto [key, value] : {std::pair{"version", &doc.version}, {"git_commit", &doc.git_commit},
                            {"command_line", &doc.command_line},
                            {"driver_version", &doc.context.driver_version},
                            {"cuda_driver", &doc.context.cuda_driver}, {"cuda_runtime", &doc.context.cuda_runtime},
                            {"cublas", &doc.context.cublas}, {"cudnn", &doc.context.cudnn},
                            {"nccl", &doc.context.nccl}})
    if (!value->empty()) run.versions[key] = *value;
  run.nvml_available = doc.context.nvml_available;
  run.nvml_error = doc.context.nvml_error;
  run.gpus = doc.context.gpus;
  for (const auto& row : doc.context.links) {
    run.links.emplace_back();
    for (const GpuLink& link : row) run.links.back().push_back(link.kind);
  }
  run.environment = doc.context.environment;
  run.complete = doc.complete;
  run.interrupted = doc.interrupted;
  for (const std::string& name : order_) {
    BenchmarkParts& p = parts_[name];
    if (p.result.ok()) {
      for (auto& [metric, metric_parts] : p.metrics) p.result.metrics[metric] = merged(metric_parts);
      if (p.result.primary_metric.empty() && !p.result.metrics.empty())
        p.result.primary_metric = p.result.metrics.begin()->first;
    }
    run.put(std::move(p.result));
  }
  clear();
  return run;
}

}  // namespace

ResultFile result_file_of(const RunDocument& doc, const std::string& path) {
  MergedBenchmarks benchmarks;
  for (const BenchResult& r : doc.results) benchmarks.add_entry(r);
  return benchmarks.result_file(doc, path);
}

ResultFile parse_result_document(const nlohmann::json& doc, const std::string& file) {
  return result_file_of(read_run_document(doc, file), file);
}

ResultFile parse_result_text(const std::string& text, const std::string& file) {
  MergedBenchmarks benchmarks;
  const RunDocument doc = stream_run_text(text, file, benchmarks);
  return benchmarks.result_file(doc, file);
}

ResultFile load_result_file(const std::string& path) {
  MergedBenchmarks benchmarks;
  const RunDocument doc = stream_run_file(path, benchmarks);
  return benchmarks.result_file(doc, path);
}

}  // namespace gpubench
