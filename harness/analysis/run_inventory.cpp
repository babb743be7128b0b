#include "harness/analysis/run_inventory.h"

#include "harness/analysis/gpu_names.h"

namespace gpubench {

void add_holdings(Holdings& h, const BenchmarkResult& b) {
  // suite/family/axis:value/...: the axes start at the third component.
  const std::vector<std::string> parts = name_components(b.name);
  for (std::size_t i = 2; i < parts.size(); ++i)
    if (const std::size_t colon = parts[i].find(':'); colon != std::string::npos) h.axes.insert(parts[i].substr(0, colon));
  if (!b.ok()) {
    h.broken = h.broken || b.status != Status::kSkipped;
    return;
  }
  h.measured = true;
  for (const auto& [metric, m] : b.metrics) h.metrics.insert(metric);
}

RunInventory inventory_of(const std::vector<const ResultFile*>& runs) {
  RunInventory inventory;
  for (const ResultFile* run : runs)
    for (const BenchmarkResult& b : run->benchmarks) {
      add_holdings(inventory.suites[b.suite], b);
      add_holdings(inventory.families[b.family], b);
      add_holdings(inventory.all, b);
    }
  return inventory;
}

std::string listed(const std::set<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out.empty() ? "none" : out;
}

}  // namespace gpubench
