#include "harness/run/node_accounting.h"

#include "harness/model/node_figures.h"

namespace gpubench {

NodeAccounting::NodeAccounting(const Context& context, std::vector<int> devices)
    : context_(context), devices_(std::move(devices)) {}

void NodeAccounting::annotate(BenchResult& result) {
  if (!is_node_name(result.name)) {
    if (result.status == Status::kOk && !gpu_of_name(result.name).empty())
      solo_.emplace(std::pair{result.name, result.repetition_index}, result);
    return;
  }
  nlohmann::json& node = result.notes[node_note::kNotes];
  if (!node.is_object()) node = nlohmann::json::object();
  const std::string gpu = gpu_of_name(result.name);
  for (const GpuInfo& info : context_.gpus)
    if ("gpu" + std::to_string(info.index) == gpu) {
      const nlohmann::json shared = shared_pcie_note(info, context_.gpus);
      if (!shared.empty()) node[node_note::kSharesPcieBridgeWith] = shared;
    }
  // The same GPU's solo figure of the same repetition, else the first GPU's.
  const std::string own = solo_name_of(result.name);
  const std::string first = devices_.empty() ? own : solo_name_of(result.name, "gpu" + std::to_string(devices_.front()));
  auto solo = solo_.find({own, result.repetition_index});
  if (solo == solo_.end()) solo = solo_.find({first, result.repetition_index});
  if (solo == solo_.end()) return;
  node[node_note::kSoloReference] = solo->first.first;
  // A metric, so that a baseline floors it as any figure (check names the GPU whose ratio fails).
  if (const auto ratio = solo_ratio(result, solo->second))
    result.metrics[kSoloRatioMetric] = Metric{"ratio", true, {*ratio}, std::nullopt};
  if (const auto drop = sm_clock_drop_pct(result, solo->second)) node[node_note::kSmClockDropPct] = *drop;
}

std::optional<BenchResult> NodeAccounting::total_after(const BenchResult& result) {
  if (!is_node_name(result.name)) return std::nullopt;
  auto& members = pending_[{node_total_name_of(result.name), result.repetition_index}];
  members.push_back(result);
  if (members.size() < devices_.size()) return std::nullopt;
  std::optional<BenchResult> total = node_total(members);
  pending_.erase({node_total_name_of(result.name), result.repetition_index});
  return total;
}

}  // namespace gpubench
