#include "harness/model/node_figures.h"

#include <algorithm>
#include <cmath>

namespace gpubench {
namespace {

const std::string kNodeAxis = "/mode:node";
const std::string kGpuAxis = "/gpu:";

// Where the trailing `/gpu:...` axis starts, or npos.
std::size_t gpu_axis_at(const std::string& name) {
  const std::size_t at = name.rfind(kGpuAxis);
  if (at == std::string::npos || name.find('/', at + 1) != std::string::npos) return std::string::npos;
  return at;
}

// Sorted, disjoint spans covering what `spans` cover.
std::vector<ClockSpan> merged(std::vector<ClockSpan> spans) {
  std::sort(spans.begin(), spans.end(), [](const ClockSpan& a, const ClockSpan& b) { return a.start_s < b.start_s; });
  std::vector<ClockSpan> out;
  for (const ClockSpan& span : spans) {
    if (span.end_s <= span.start_s) continue;
    if (!out.empty() && span.start_s <= out.back().end_s)
      out.back().end_s = std::max(out.back().end_s, span.end_s);
    else
      out.push_back(span);
  }
  return out;
}

std::vector<ClockSpan> intersected(const std::vector<ClockSpan>& a, const std::vector<ClockSpan>& b) {
  std::vector<ClockSpan> out;
  for (std::size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    const double start = std::max(a[i].start_s, b[j].start_s), end = std::min(a[i].end_s, b[j].end_s);
    if (end > start) out.push_back({start, end});
    (a[i].end_s < b[j].end_s ? i : j)++;
  }
  return out;
}

double length_s(const std::vector<ClockSpan>& spans) {
  double total = 0;
  for (const ClockSpan& span : spans) total += span.end_s - span.start_s;
  return total;
}

// The median of one of the GPU's telemetry readings during the benchmark (telemetry.h); NaN
// where unread.
double telemetry_median(const BenchResult& result, const char* reading) {
  const auto found = result.telemetry.find(reading);
  if (found == result.telemetry.end() || !found->is_object()) return NAN;
  const auto median = found->find("median");
  return median != found->end() && median->is_number() ? median->get<double>() : NAN;
}

// The fewest samples a metric has among the GPUs' results (0 where one lacks it).
std::size_t common_samples(const std::vector<BenchResult>& gpus, const std::string& metric) {
  std::size_t samples = SIZE_MAX;
  for (const BenchResult& gpu : gpus) {
    const auto found = gpu.metrics.find(metric);
    samples = std::min(samples, found == gpu.metrics.end() ? std::size_t{0} : found->second.values.size());
  }
  return samples;
}

// A node operation ends when its slowest GPU's does: the total's time_us is, sample by sample,
// the longest of the GPUs' (Google Benchmark's real_time of the total).
void add_slowest_time(const std::vector<BenchResult>& gpus, BenchResult& total) {
  const std::size_t samples = total.status == Status::kOk ? common_samples(gpus, "time_us") : 0;
  if (samples == 0) return;
  Metric time{gpus.front().metrics.at("time_us").unit, false, std::vector<double>(samples, 0.0), std::nullopt};
  for (const BenchResult& gpu : gpus)
    for (std::size_t i = 0; i < samples; ++i) time.values[i] = std::max(time.values[i], gpu.metrics.at("time_us").values[i]);
  total.metrics["time_us"] = std::move(time);
}

}  // namespace

bool is_node_name(const std::string& name) {
  const std::size_t at = gpu_axis_at(name);
  return at != std::string::npos && at >= kNodeAxis.size() &&
         name.compare(at - kNodeAxis.size(), kNodeAxis.size(), kNodeAxis) == 0;
}

std::string node_name_of(const std::string& solo_name) {
  const std::size_t at = gpu_axis_at(solo_name);
  if (at == std::string::npos || is_node_name(solo_name)) return solo_name;
  return solo_name.substr(0, at) + kNodeAxis + solo_name.substr(at);
}

std::string solo_name_of(const std::string& node_name, const std::string& gpu) {
  if (!is_node_name(node_name)) return node_name;
  const std::size_t at = gpu_axis_at(node_name);
  const std::string point = node_name.substr(0, at - kNodeAxis.size());
  return point + kGpuAxis + (gpu.empty() ? node_name.substr(at + kGpuAxis.size()) : gpu);
}

std::string node_total_name_of(const std::string& node_name) {
  const std::size_t at = gpu_axis_at(node_name);
  return at == std::string::npos ? node_name : node_name.substr(0, at) + kGpuAxis + "all";
}

std::string gpu_of_name(const std::string& name) {
  const std::size_t at = gpu_axis_at(name);
  return at == std::string::npos ? "" : name.substr(at + kGpuAxis.size());
}

double overlap_pct(const std::vector<ClockSpan>& mine, const std::vector<std::vector<ClockSpan>>& peers) {
  const std::vector<ClockSpan> own = merged(mine);
  const double own_s = length_s(own);
  if (own_s <= 0) return 0;
  std::vector<ClockSpan> common = own;
  for (const auto& peer : peers) common = intersected(common, merged(peer));
  return 100.0 * length_s(common) / own_s;
}

bool is_summed_metric(const Metric& metric) {
  const std::string& unit = metric.unit;
  return metric.higher_is_better && unit.size() > 2 && unit.compare(unit.size() - 2, 2, "/s") == 0;
}

std::optional<BenchResult> node_total(const std::vector<BenchResult>& gpus) {
  if (gpus.empty()) return std::nullopt;
  const BenchResult& first = gpus.front();
  BenchResult total;
  total.name = node_total_name_of(first.name);
  total.suite = first.suite;
  total.family = first.family;
  total.params = first.params;
  total.params["gpu"] = "all";
  total.repetition_index = first.repetition_index;
  total.repetitions = first.repetitions;
  total.ops_per_sample = first.ops_per_sample;
  total.verified = true;
  for (const auto& [name, metric] : first.metrics)
    if (is_summed_metric(metric)) total.metrics[name] = Metric{metric.unit, true, {}, std::nullopt};
  if (total.metrics.empty()) return std::nullopt;
  total.primary_metric = total.metrics.count(first.primary_metric) ? first.primary_metric : total.metrics.begin()->first;
  double power_w = 0;
  nlohmann::json members = nlohmann::json::array();
  for (const BenchResult& gpu : gpus) {
    members.push_back(gpu.name);
    if (gpu.status != Status::kOk && total.status == Status::kOk) {
      total.status = Status::kFailed;
      total.error = gpu_of_name(gpu.name) + ": " + to_string(gpu.status) + (gpu.error.empty() ? "" : ": " + gpu.error);
    }
    total.verified = total.verified && gpu.verified;
    total.iterations += gpu.iterations;
    power_w += telemetry_median(gpu, "power_w");
  }
  if (total.status != Status::kOk) {
    total.metrics.clear();
    total.verified = false;
  }
  for (auto& [name, metric] : total.metrics) {
    const std::size_t samples = common_samples(gpus, name);
    metric.values.assign(samples, 0.0);
    for (const BenchResult& gpu : gpus)
      for (std::size_t i = 0; i < samples; ++i) metric.values[i] += gpu.metrics.at(name).values[i];
  }
  add_slowest_time(gpus, total);
  total.notes[node_note::kNotes] = {{node_note::kGpus, members}, {node_note::kSummed, "per-sample sums of the GPUs' samples, started together"}};
  if (std::isfinite(power_w)) total.notes["node_power_w"] = power_w;
  return total;
}

std::optional<double> solo_ratio(const BenchResult& node, const BenchResult& solo) {
  if (node.status != Status::kOk || solo.status != Status::kOk) return std::nullopt;
  const auto n = node.metrics.find(node.primary_metric), s = solo.metrics.find(node.primary_metric);
  if (n == node.metrics.end() || s == solo.metrics.end()) return std::nullopt;
  const double node_median = n->second.summary().median, solo_median = s->second.summary().median;
  if (!(node_median > 0) || !(solo_median > 0)) return std::nullopt;
  return n->second.higher_is_better ? node_median / solo_median : solo_median / node_median;
}

std::optional<double> sm_clock_drop_pct(const BenchResult& node, const BenchResult& solo) {
  const double together = telemetry_median(node, "sm_clock_mhz"), alone = telemetry_median(solo, "sm_clock_mhz");
  if (!(together > 0) || !(alone > 0)) return std::nullopt;
  return 100.0 * (1.0 - together / alone);
}

nlohmann::json shared_pcie_note(const GpuInfo& gpu, const std::vector<GpuInfo>& gpus) {
  nlohmann::json shared = nlohmann::json::object();
  for (const GpuInfo& other : gpus) {
    if (other.index == gpu.index) continue;
    const std::string bridge = shared_pcie_bridge(gpu, other);
    if (!bridge.empty()) shared["gpu" + std::to_string(other.index)] = bridge;
  }
  return shared;
}

}  // namespace gpubench
