// validate_baseline_metrics (check.h): a baseline entry naming a metric that its family does not
// have is a bad file, exit 2, rather than an error line on every node it is held against.
#include <fnmatch.h>

#include "harness/analysis/check.h"
#include "harness/analysis/gpu_names.h"
#include "harness/analysis/run_inventory.h"

namespace gpubench {
namespace {

// The benchmarks of the run that the entry is about; nullptr for one the run lacks.
std::vector<const BenchmarkResult*> covered_by(const Expectation& e, const ResultFile& run,
                                               const std::vector<int>& gpus) {
  std::vector<const BenchmarkResult*> out;
  if (e.is_pattern) {
    for (const BenchmarkResult& b : run.benchmarks)
      if (fnmatch(e.name.c_str(), b.name.c_str(), 0) == 0) out.push_back(&b);
    return out;
  }
  for (const std::string& name : expand_gpu_name(e.name, gpus, e.unordered_pairs)) out.push_back(run.find(name));
  return out;
}

}  // namespace

void validate_baseline_metrics(const Baseline& baseline, const ResultFile& run) {
  const RunInventory inventory = inventory_of({&run});
  std::vector<int> gpus;
  for (const GpuInfo& g : run.gpus) gpus.push_back(g.index);
  for (std::size_t i = 0; i < baseline.expectations.size(); ++i) {
    const Expectation& e = baseline.expectations[i];
    if (e.metric.empty() || static_cast<int>(gpus.size()) < e.gpus_needed()) continue;
    // A benchmark missing or not ok on this node is the node's failure (exit 1), and leaves
    // unknown which metrics it would have had.
    const std::vector<const BenchmarkResult*> covered = covered_by(e, run, gpus);
    bool measured = !covered.empty();
    std::set<std::string> families;
    for (const BenchmarkResult* b : covered) {
      measured = measured && b && b->ok();
      if (b) families.insert(b->family);
    }
    if (!measured) continue;
    std::set<std::string> metrics;
    for (const std::string& family : families)
      metrics.insert(inventory.families.at(family).metrics.begin(), inventory.families.at(family).metrics.end());
    if (metrics.count(e.metric)) continue;
    throw UsageError{kExitBadInput, baseline.path + ": /benchmarks/" + std::to_string(i) + "/metric: \"" + e.name +
                                        "\" names the metric \"" + e.metric + "\", which no benchmark of " +
                                        listed(families) + " in " + run.path + " has (they have: " +
                                        listed(metrics) + ")"};
  }
}

}  // namespace gpubench
