// The scenarios suite as the harness knows it without its families: its place among the suites,
// its charts, and the finding each family's results add up to, a line per GPU and configuration.
#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

#include "harness/model/suite.h"

namespace {

using gpubench::AxisFormat;
using gpubench::BenchResult;
using Results = std::vector<const BenchResult*>;

// A figure in a sentence: whole numbers from 100 up, else three significant digits.
std::string readable(double value) {
  char text[32];
  std::snprintf(text, sizeof text, value >= 100 ? "%.0f" : "%.3g", value);
  return text;
}

std::optional<double> median_of(const BenchResult& r, const std::string& metric) {
  const auto it = r.metrics.find(metric);
  if (it == r.metrics.end()) return std::nullopt;
  return it->second.summary().median;
}

std::optional<double> number_note(const BenchResult& r, const std::string& key) {
  const auto it = r.notes.find(key);
  if (it == r.notes.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string param(const BenchResult& r, const std::string& axis) {
  const auto it = r.params.find(axis);
  if (it == r.params.end()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// The results of each value of `axes` together, in the order first seen.
std::vector<std::pair<std::string, Results>> grouped(const Results& results, const std::vector<std::string>& axes) {
  std::vector<std::pair<std::string, Results>> groups;
  for (const BenchResult* r : results) {
    std::string key;
    for (const std::string& axis : axes) key += (key.empty() ? "" : " ") + param(*r, axis);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) it = groups.insert(groups.end(), {key, {}});
    it->second.push_back(r);
  }
  return groups;
}

// Per GPU and kernel: the lowest predicted occupancy that reaches 90 % of the sweep's best rate.
std::vector<std::string> occupancy_findings(const Results& results) {
  std::vector<std::string> lines;
  for (const auto& [key, all] : grouped(results, {"gpu", "kind"})) {
    const bool memory = param(*all.front(), "kind") == "memory";
    const std::string metric = memory ? "bandwidth_gbps" : "tflops", unit = memory ? " GB/s" : " TFLOP/s";
    Results group;
    for (const BenchResult* r : all)
      if (median_of(*r, metric) && number_note(*r, "predicted_occupancy_pct")) group.push_back(r);
    const auto occupancy = [](const BenchResult* r) { return *number_note(*r, "predicted_occupancy_pct"); };
    double best = 0;
    for (const BenchResult* r : group) best = std::max(best, *median_of(*r, metric));
    const BenchResult *first_good = nullptr, *lowest = nullptr;
    for (const BenchResult* r : group) {
      if (!lowest || occupancy(r) < occupancy(lowest)) lowest = r;
      if (*median_of(*r, metric) >= 0.9 * best && (!first_good || occupancy(r) < occupancy(first_good)))
        first_good = r;
    }
    if (!first_good || best <= 0) continue;
    const auto describe = [&](const BenchResult* r) {
      return readable(occupancy(r)) + " % predicted occupancy (block " + param(*r, "block") + ", " +
             param(*r, "smem_kib") + " KiB shared)";
    };
    lines.push_back(key + (memory ? " copy" : " FMA chain") + ": 90 % of its best " + readable(best) + unit +
                    " from " + describe(first_good) + " up; at " + describe(lowest) + " " +
                    readable(*median_of(*lowest, metric)) + unit);
  }
  return lines;
}

// Per GPU, host memory and buffers in flight: the intensity below which the link sets the pace.
std::vector<std::string> host_feed_findings(const Results& results) {
  std::vector<std::string> lines;
  for (const auto& [key, group] : grouped(results, {"gpu", "host", "buffers"})) {
    std::vector<double> crossover, link, compute;
    for (const BenchResult* r : group) {
      crossover.push_back(median_of(*r, "crossover_flop_per_byte").value_or(0));
      link.push_back(median_of(*r, "link_gbps").value_or(0));
      compute.push_back(median_of(*r, "compute_alone_tflops").value_or(0));
    }
    const auto middle = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    const auto intensity = [](const BenchResult& r) { return std::stod("0" + param(r, "flop_per_byte")); };
    const auto [lowest, highest] = std::minmax_element(
        group.begin(), group.end(), [&](const BenchResult* a, const BenchResult* b) { return intensity(*a) < intensity(*b); });
    const auto fed = [&](const BenchResult* r) {
      return readable(median_of(*r, "fed_ratio").value_or(0)) + " of compute alone at " +
             param(*r, "flop_per_byte") + " FLOP/B";
    };
    lines.push_back(key + " buffers: below " + readable(middle(crossover)) +
                    " FLOP per byte copied, the host link (" + readable(middle(link)) +
                    " GB/s) and not the GPU (" + readable(middle(compute)) + " TFLOP/s) sets the pace; fed " +
                    fed(*lowest) + ", " + fed(*highest));
  }
  return lines;
}

// Per imbalance: each policy's efficiency and makespan, side by side.
std::vector<std::string> work_split_findings(const Results& results) {
  std::vector<std::string> lines;
  for (const auto& [imbalance, group] : grouped(results, {"imbalance"})) {
    const auto lanes = group.front()->notes.find("lanes");
    const bool named = lanes != group.front()->notes.end() && lanes->is_string();
    std::string line = "imbalance " + imbalance + " (" + (named ? lanes->get<std::string>() : "lanes") + "):";
    for (const auto& [policy, runs] : grouped(group, {"policy"})) {
      const BenchResult& r = *runs.front();
      line += " " + policy + " keeps the lanes " + readable(median_of(r, "efficiency_pct").value_or(0)) +
              " % busy (makespan " + readable(median_of(r, "makespan_ms").value_or(0)) + " ms, ideal " +
              readable(median_of(r, "ideal_efficiency_pct").value_or(0)) + " %);";
    }
    line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

// Per GPU and mps mode: the kernel rate of the most processes against one process's.
std::vector<std::string> many_processes_findings(const Results& results) {
  std::vector<std::string> lines;
  for (const auto& [key, group] : grouped(results, {"gpu", "mps"})) {
    const auto processes = [](const BenchResult* r) { return std::stoi("0" + param(*r, "processes")); };
    const auto [fewest, most] = std::minmax_element(
        group.begin(), group.end(), [&](const BenchResult* a, const BenchResult* b) { return processes(a) < processes(b); });
    const double alone = median_of(**fewest, "kernels_per_s").value_or(0);
    const double together = median_of(**most, "kernels_per_s").value_or(0);
    if (alone <= 0 || *fewest == *most) continue;
    lines.push_back(key + ": " + param(**most, "processes") + " processes launch " + readable(together) +
                    " kernels/s together, " + readable(together / alone) + "x the " + readable(alone) + " of " +
                    param(**fewest, "processes") + (together < 1.1 * alone ? "; the GPU does not run them side by side" : ""));
  }
  return lines;
}

// Per GPU and configuration: what the captured graph saves per time step over launching the
// step calls one by one, and the one call over the whole sequence beside both.
std::vector<std::string> lstm_findings(const Results& results) {
  std::vector<std::string> lines;
  for (const auto& [_, group] : grouped(results, {"gpu", "type", "pass", "seq", "hidden", "batch"})) {
    const BenchResult& r0 = *group.front();
    const std::string key = param(r0, "gpu") + " " + param(r0, "type") + " " + param(r0, "pass") + " T" +
                            param(r0, "seq") + " H" + param(r0, "hidden") + " B" + param(r0, "batch");
    std::map<std::string, double> step_us;
    for (const BenchResult* r : group) step_us[param(*r, "launch")] = median_of(*r, "step_us").value_or(0);
    const double steps = step_us["steps"], graph = step_us["graph"], sequence = step_us["sequence"];
    if (steps <= 0 || graph <= 0) continue;
    std::string line = key + ": " + readable(steps) + " us per step launched call by call, " + readable(graph) +
                       " us as one graph (" + readable(steps / graph) + "x)";
    if (sequence > 0) line += "; one whole-sequence call " + readable(sequence) + " us";
    lines.push_back(line);
  }
  return lines;
}

const bool declared = gpubench::declare_suite({
    "scenarios",
    80,
    false,
    {
      {"scenarios-occupancy", "Rate against block size, per shared memory reserved", "scenarios/occupancy",
       "block", "threads per block", "rate (GB/s or TFLOP/s)",
       {{"bandwidth_gbps", "memory copy"}, {"tflops", "FMA chain"}}, {}, {"smem_kib"}, AxisFormat::kNumber, false,
       false, ""},
      {"scenarios-host-feed", "Compute fed from the host against arithmetic intensity", "scenarios/host_feed",
       "flop_per_byte", "FLOP per byte copied", "fraction of compute alone",
       {{"fed_ratio", ""}}, {}, {"buffers"}, AxisFormat::kNumber, false, false, ""},
    },
    {},
    {},
    {
      {"scenarios/occupancy", occupancy_findings},
      {"scenarios/host_feed", host_feed_findings},
      {"scenarios/work_split", work_split_findings},
      {"scenarios/many_processes", many_processes_findings},
      {"scenarios/lstm", lstm_findings},
    },
});

}  // namespace
