#pragma once
// The supervisor's side of node mode: as results arrive, each node figure gets its ratio to the
// solo figure measured earlier in the run (metric solo_ratio; notes.node.solo_reference) and the PCIe
// bridges its GPU shares with the others (notes.node.shares_pcie_bridge_with), so that a 0.5
// ratio shows its cause beside it; once every GPU's result of a benchmark point and repetition
// is in, the node total (harness/model/node_figures.h) follows them.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/model/context.h"
#include "harness/model/result.h"

namespace gpubench {

class NodeAccounting {
 public:
  // `devices`: the selected GPUs, the first of which is the solo reference where the others
  // have none of their own.
  NodeAccounting(const Context& context, std::vector<int> devices);

  // Adds what the run knows to `result` before it is recorded; keeps solo figures.
  void annotate(BenchResult& result);
  // The node total that `result` (annotated and recorded) completes, if it does.
  std::optional<BenchResult> total_after(const BenchResult& result);

 private:
  const Context& context_;
  std::vector<int> devices_;
  std::map<std::pair<std::string, int>, BenchResult> solo_;  // by name and repetition
  std::map<std::pair<std::string, int>, std::vector<BenchResult>> pending_;  // by total name, repetition
};

}  // namespace gpubench
