#include "harness/analysis/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

#include "harness/analysis/judgeable.h"
#include "harness/analysis/mann_whitney.h"
#include "harness/model/node_figures.h"
#include "harness/model/text_table.h"

namespace gpubench {
const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::kRegressed: return "regressed";
    case Verdict::kNotOk: return "not_ok";
    case Verdict::kMissing: return "missing";
    case Verdict::kNoisy: return "noisy";
    case Verdict::kImproved: return "improved";
    case Verdict::kNew: return "new";
    case Verdict::kSame: return "same";
  }
  return "?";
}

std::string format_pct(double pct) { return format_change(pct, false); }

std::string format_change(double change, bool points) {
  const char* unit = points ? " pt" : "%";
  if (std::isinf(change)) return std::string(change > 0 ? "+inf" : "-inf") + unit;
  return (change >= 0 ? "+" : "") + format_number(change, 3) + unit;
}

std::string format_p_value(const std::optional<double>& p) {
  if (!p) return "-";
  if (*p >= 0.001) return format_number(*p, 2);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1e", *p);
  return buffer;
}

bool is_percentage_metric(const std::string& metric, const std::string& unit) {
  const std::string suffix = "_pct";
  return unit == "%" || (metric.size() >= suffix.size() &&
                         metric.compare(metric.size() - suffix.size(), suffix.size(), suffix) == 0);
}

double change_between(double from, double to, bool points) {
  const double diff = to - from;
  if (points) return diff;
  if (from != 0) return 100 * diff / std::fabs(from);
  return diff == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), diff);
}

namespace {

// The context fields that can explain a change, as (label, value) in display order.
std::vector<std::pair<std::string, std::string>> context_fields(const ResultFile& run) {
  std::vector<std::pair<std::string, std::string>> out;
  auto version = [&](const char* key) {
    auto it = run.versions.find(key);
    return it == run.versions.end() ? std::string("-") : it->second;
  };
  out.emplace_back("host", run.host_name.empty() ? "-" : run.host_name);
  out.emplace_back("gpubench", version("version") + " (" + version("git_commit") + ")");
  out.emplace_back("driver", version("driver_version"));
  out.emplace_back("CUDA driver API", version("cuda_driver"));
  out.emplace_back("CUDA runtime", version("cuda_runtime"));
  out.emplace_back("cuBLAS", version("cublas"));
  out.emplace_back("cuDNN", version("cudnn"));
  out.emplace_back("NCCL", version("nccl"));
  out.emplace_back("GPU count", std::to_string(run.gpus.size()));
  auto tristate = [](const std::optional<bool>& v) { return v ? (*v ? "on" : "off") : "-"; };
  for (const GpuInfo& g : run.gpus) {
    const std::string gpu = "gpu" + std::to_string(g.index) + " ";
    out.emplace_back(gpu + "model", g.name);
    out.emplace_back(gpu + "uuid", g.uuid);
    out.emplace_back(gpu + "PCI bus", g.pci_bus_id);
    out.emplace_back(gpu + "max clocks", "sm " + std::to_string(g.sm_clock_max_mhz) + " / mem " +
                                            std::to_string(g.mem_clock_max_mhz) + " MHz");
    out.emplace_back(gpu + "power limit", format_number(g.power_limit_w) + " W");
    out.emplace_back(gpu + "PCIe", "gen" + std::to_string(g.pcie.gen) + " x" +
                                      std::to_string(g.pcie.width) + " (max gen" +
                                      std::to_string(g.pcie.gen_max) + " x" +
                                      std::to_string(g.pcie.width_max) + ")");
    out.emplace_back(gpu + "NVLink", (g.nvlinks_active ? std::to_string(*g.nvlinks_active) : "unknown") + " links x " +
                                        format_number(g.nvlink_gbps_per_link) + " GB/s");
    out.emplace_back(gpu + "ECC", tristate(g.ecc_enabled));
    out.emplace_back(gpu + "MIG", tristate(g.mig_mode));
  }
  std::string links;
  for (const auto& row : run.links) {
    if (!links.empty()) links += " | ";
    for (std::size_t i = 0; i < row.size(); ++i) links += (i ? " " : "") + row[i];
  }
  out.emplace_back("links", links.empty() ? "-" : links);
  for (const auto& [name, value] : run.environment) out.emplace_back("env " + name, value);
  return out;
}

}  // namespace

std::vector<ContextDifference> context_differences(const std::vector<const ResultFile*>& runs) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> values;
  for (std::size_t r = 0; r < runs.size(); ++r)
    for (const auto& [field, value] : context_fields(*runs[r])) {
      auto& column = values[field];
      if (column.empty()) {
        order.push_back(field);
        column.assign(runs.size(), "-");
      }
      column[r] = value;
    }
  std::vector<ContextDifference> out;
  for (const std::string& field : order) {
    const auto& column = values[field];
    if (std::adjacent_find(column.begin(), column.end(), std::not_equal_to<>()) != column.end())
      out.push_back({field, column});
  }
  return out;
}

namespace {

// Benchmarks that lost their name between runs (an axis renamed or reordered) still match on
// family and parameter values.
std::string params_key(const BenchmarkResult& b) {
  if (b.params.empty()) return "";
  std::string key = b.family;
  for (const auto& [axis, value] : b.params) key += "\n" + axis + "=" + value;
  return key;
}

MetricComparison metric_row(const BenchmarkResult& b, const BenchmarkResult& n,
                            const std::string& metric, const CompareOptions& options) {
  MetricComparison row;
  row.benchmark = n.name;
  row.metric = metric;
  const MetricResult& bm = b.metrics.at(metric);
  const MetricResult& nm = n.metrics.at(metric);
  row.unit = nm.unit;
  row.higher_is_better = nm.higher_is_better;
  row.base = bm.median;
  row.now = nm.median;
  row.base_noise_pct = bm.noise_pct;
  row.new_noise_pct = nm.noise_pct;
  const double diff = nm.median - bm.median;
  row.change_in_points = is_percentage_metric(metric, nm.unit);
  row.threshold_pct =
      options.tolerances.threshold_for(n, metric, bm.median, row.change_in_points, options.threshold_pct);
  row.change_pct = change_between(bm.median, nm.median, row.change_in_points);
  if (std::fabs(row.change_pct) <= row.threshold_pct) {
    row.verdict = Verdict::kSame;
    return row;
  }
  const std::size_t enough = options.min_u_samples;
  row.repetitions_tested =
      bm.repetition_medians.size() >= enough && nm.repetition_medians.size() >= enough;
  const auto& x = row.repetitions_tested ? bm.repetition_medians : bm.values;
  const auto& y = row.repetitions_tested ? nm.repetition_medians : nm.values;
  bool significant;
  if (x.size() >= enough && y.size() >= enough) {
    row.p_value = mann_whitney_u(x, y).p_value;
    significant = *row.p_value < options.alpha;
  } else {
    significant = nm.band_hi < bm.band_lo || nm.band_lo > bm.band_hi;
  }
  const bool worse = row.higher_is_better ? diff < 0 : diff > 0;
  row.verdict = !significant ? Verdict::kNoisy : worse ? Verdict::kRegressed : Verdict::kImproved;
  return row;
}

// A whole-benchmark line: missing, new, or not ok.
MetricComparison benchmark_row(const BenchmarkResult& b, Verdict verdict, std::string note) {
  MetricComparison row;
  row.benchmark = b.name;
  row.metric = b.primary_metric.empty() ? "-" : b.primary_metric;
  row.status = to_string(b.status);
  row.verdict = verdict;
  row.note = std::move(note);
  return row;
}

std::string status_note(const char* side, const BenchmarkResult& b) {
  return std::string(side) + " " + to_string(b.status) + (b.error.empty() ? "" : ": " + b.error);
}

// time_us is the per-operation time that the primary metric (bandwidth, flops, latency) is
// derived from: comparing it too would double every line and, since -35 % bandwidth reads
// +54 % time, judge the same change twice on different scales.
// solo_ratio is a node figure over a solo figure of the same run, and compare judges both of
// them on their own: judging their ratio too would count the noise of each twice (a host-side
// cost that moves 30 % between processes moves the ratio by up to 60 %). Its floor is the
// baseline's business (check).
bool is_derived_figure(const BenchmarkResult& r, const std::string& metric) {
  if (metric == kSoloRatioMetric) return true;
  return metric == "time_us" && r.primary_metric != "time_us" && r.metrics.count(r.primary_metric);
}

void compare_pair(const BenchmarkResult& b, const BenchmarkResult& n,
                  const CompareOptions& options, std::vector<MetricComparison>& rows) {
  const std::size_t first = rows.size();
  if (!n.ok()) {
    // Skipped on both sides is how it was (e.g. a collective on a one-GPU node), not a failure.
    const bool both_skipped = b.status == Status::kSkipped && n.status == Status::kSkipped;
    rows.push_back(benchmark_row(n, both_skipped ? Verdict::kSame : Verdict::kNotOk,
                                 status_note("new", n)));
  } else if (!b.ok()) {
    rows.push_back(benchmark_row(n, Verdict::kNew, status_note("base", b)));
  } else {
    for (const auto& [metric, m] : n.metrics) {
      if (is_derived_figure(n, metric)) continue;
      if (b.metrics.count(metric)) {
        rows.push_back(metric_row(b, n, metric, options));
        continue;
      }
      rows.push_back(benchmark_row(n, Verdict::kNew, "metric not in base"));
      rows.back().metric = metric;
    }
    for (const auto& [metric, m] : b.metrics)
      if (!n.metrics.count(metric) && !is_derived_figure(b, metric)) {
        rows.push_back(benchmark_row(n, Verdict::kMissing, "metric not in new"));
        rows.back().metric = metric;
      }
  }
  std::string throttled;
  if (b.throttled) throttled = "base throttled";
  if (n.throttled) throttled += std::string(throttled.empty() ? "" : ", ") + "new throttled";
  for (std::size_t i = first; i < rows.size(); ++i) {
    if (b.name != n.name) rows[i].base_name = b.name;
    if (!throttled.empty()) rows[i].note += (rows[i].note.empty() ? "" : "; ") + throttled;
  }
}

// The pair's rows are rows[first...]: the figure is the primary metric's (or the not-ok line).
std::optional<ChoiceChange> choice_change(const BenchmarkResult& b, const BenchmarkResult& n,
                                          const std::vector<MetricComparison>& rows, std::size_t first) {
  if (!choices_differ(b.choices, n.choices)) return std::nullopt;
  ChoiceChange change{n.name, choice_text(b.choices, n.choices), choice_text(n.choices, b.choices),
                      b.choices, n.choices, std::nullopt};
  for (std::size_t i = first; i < rows.size() && !change.figure; ++i)
    if (rows[i].metric == n.primary_metric || !n.ok()) change.figure = rows[i];
  return change;
}

}  // namespace

Comparison compare_runs(const ResultFile& base, const ResultFile& now, const CompareOptions& options) {
  Comparison out;
  out.base_path = base.path;
  out.new_path = now.path;
  out.context = context_differences({&base, &now});
  out.unjudgeable = unjudgeable_lines({&base, &now});
  std::map<std::string, const BenchmarkResult*> unmatched_new;
  for (const BenchmarkResult& n : now.benchmarks)
    if (!base.find(n.name)) {
      const std::string key = params_key(n);
      if (!key.empty()) unmatched_new[key] = &n;
    }
  std::set<std::string> paired;  // NEW names already matched
  for (const BenchmarkResult& b : base.benchmarks) {
    const BenchmarkResult* n = now.find(b.name);
    if (!n) {
      auto it = unmatched_new.find(params_key(b));
      if (it != unmatched_new.end() && !params_key(b).empty()) n = it->second;
    }
    if (!n) {
      out.rows.push_back(benchmark_row(b, Verdict::kMissing, "not in new"));
      continue;
    }
    paired.insert(n->name);
    const std::size_t first = out.rows.size();
    compare_pair(b, *n, options, out.rows);
    if (auto change = choice_change(b, *n, out.rows, first)) out.choice_changes.push_back(std::move(*change));
  }
  for (const BenchmarkResult& n : now.benchmarks)
    if (!paired.count(n.name))
      out.rows.push_back(benchmark_row(n, n.ok() ? Verdict::kNew : Verdict::kNotOk,
                                       n.ok() ? "not in base" : status_note("new", n)));
  if (paired.empty() && out.unjudgeable.empty())
    throw UsageError{kExitBadInput, base.path + ", " + now.path + ": BASE and NEW have no benchmark in common (" +
                                        std::to_string(base.benchmarks.size()) + " in BASE, " +
                                        std::to_string(now.benchmarks.size()) + " in NEW): nothing to compare"};
  out.allow_missing = options.allow_missing;
  std::stable_sort(out.rows.begin(), out.rows.end(), [](const auto& a, const auto& b) {
    if (a.verdict != b.verdict) return a.verdict < b.verdict;
    return a.benchmark != b.benchmark ? a.benchmark < b.benchmark : a.metric < b.metric;
  });
  return out;
}

int Comparison::count(Verdict verdict) const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(),
                                        [&](const auto& r) { return r.verdict == verdict; }));
}

bool Comparison::failed() const {
  return !unjudgeable.empty() || count(Verdict::kRegressed) > 0 || count(Verdict::kNotOk) > 0 ||
         (!allow_missing && count(Verdict::kMissing) > 0);
}

}  // namespace gpubench
