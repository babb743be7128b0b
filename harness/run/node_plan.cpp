#include "harness/run/node_plan.h"

#include "harness/model/exit_codes.h"
#include "harness/model/node_figures.h"

namespace gpubench {

SoloReference solo_reference_from(const std::string& text, const std::string& where) {
  if (text == "none") return SoloReference::kNone;
  if (text == "first") return SoloReference::kFirst;
  if (text == "every") return SoloReference::kEvery;
  throw UsageError{kExitBadInput, where + ": '" + text + "' is not a solo reference (none, first, every)"};
}

const char* to_string(SoloReference reference) {
  switch (reference) {
    case SoloReference::kNone: return "none";
    case SoloReference::kFirst: return "first";
    case SoloReference::kEvery: break;
  }
  return "every";
}

Instance node_instance(const Instance& instance) {
  Instance node = instance;
  const std::size_t gpu_at = node.params.values.size() - 1;
  node.params.values.insert(node.params.values.begin() + static_cast<std::ptrdiff_t>(gpu_at), {"mode", "node"});
  node.params.kinds.insert(node.params.kinds.begin() + static_cast<std::ptrdiff_t>(gpu_at), Axis::Kind::kString);
  node.name = node_name_of(instance.name);
  return node;
}

bool is_node_instance(const Instance& instance) { return is_node_name(instance.name); }

namespace {

// The node total's name of a per-GPU instance: what its instances on every GPU share.
std::string point_of(const Instance& instance) { return node_total_name_of(node_name_of(instance.name)); }

}  // namespace

std::vector<Instance> node_mode_plan(const std::vector<Instance>& instances, SoloReference reference,
                                     int first_device) {
  std::vector<Instance> plan;
  for (std::size_t begin = 0; begin < instances.size();) {
    std::size_t end = begin;
    while (end < instances.size() && instances[end].family == instances[begin].family) ++end;
    const Family& family = *instances[begin].family;
    // A family whose requirement is unmet is one skipped instance without axes: it stays as it is.
    const bool unrunnable = end == begin + 1 && !instances[begin].skip_reason.empty();
    if (!family.is_per_device() || unrunnable) {
      plan.insert(plan.end(), instances.begin() + begin, instances.begin() + end);
      begin = end;
      continue;
    }
    // Point by point, in the family's order: a family that orders its points (launch's
    // process_streams:1 before :2, in a worker that has made one stream) keeps that order for
    // the solo and the node runs alike.
    for (std::size_t point = begin; point < end;) {
      std::size_t point_end = point;
      while (point_end < end && point_of(instances[point_end]) == point_of(instances[point])) ++point_end;
      for (std::size_t i = point; i < point_end; ++i) {
        const Instance& instance = instances[i];
        const bool solo = instance.skip_reason.empty() &&
                          (reference == SoloReference::kEvery ||
                           (reference == SoloReference::kFirst && instance.device == first_device));
        if (solo) plan.push_back(instance);
      }
      for (std::size_t i = point; i < point_end; ++i) plan.push_back(node_instance(instances[i]));
      point = point_end;
    }
    begin = end;
  }
  return plan;
}

std::vector<std::vector<const Instance*>> node_groups(const std::vector<const Instance*>& instances) {
  std::vector<std::vector<const Instance*>> groups;
  std::string point;  // the node total's name: one per benchmark point
  for (const Instance* instance : instances) {
    const bool node = is_node_instance(*instance);
    const std::string total = node ? node_total_name_of(instance->name) : "";
    if (node && !groups.empty() && total == point)
      groups.back().push_back(instance);
    else
      groups.push_back({instance});
    point = total;
  }
  return groups;
}

}  // namespace gpubench
