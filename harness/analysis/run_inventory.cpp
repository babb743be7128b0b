#include "harness/analysis/run_inventory.h"

namespace gpubench {

void add_holdings(Holdings& h, const BenchmarkResult& b) {
  // suite/family/axis:value/...: the axes start at the third component.
  std::size_t start = b.name.find('/');
  if (start != std::string::npos) start = b.name.find('/', start + 1);
  while (start != std::string::npos) {
    const std::size_t end = b.name.find('/', start + 1);
    const std::string part = b.name.substr(start + 1, end == std::string::npos ? std::string::npos : end - start - 1);
    const std::size_t colon = part.find(':');
    if (colon != std::string::npos) h.axes.insert(part.substr(0, colon));
    start = end;
  }
  if (!b.ok()) return;
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
