#pragma once
// The plan of a node-mode run (--concurrent): each per-GPU family's instances renamed with
// `mode:node` (harness/model/node_figures.h) and run as node groups, the instances of one
// benchmark point on every selected GPU at once; before each, where asked, the solo runs the
// concurrent figures are held against.
#include <string>
#include <vector>

#include "harness/core/family.h"

namespace gpubench {

// Which solo figures a node-mode run measures before each point's node group.
enum class SoloReference {
  kNone,   // none: no ratios in the run
  kFirst,  // the first selected GPU's: every GPU's ratio is to it (one solo pass, whatever the GPU count)
  kEvery,  // every GPU's own (a solo pass per GPU)
};
// "none", "first", "every"; anything else is UsageError{kExitBadInput} naming `where`.
SoloReference solo_reference_from(const std::string& text, const std::string& where);
const char* to_string(SoloReference reference);

// `instance` as node mode runs it: `mode: node` before its GPU axis, in its params and name.
Instance node_instance(const Instance& instance);
bool is_node_instance(const Instance& instance);

// The plan `instances` (in run order) becomes in node mode: per benchmark point, the solo
// reference instances first, then the point's node instances; families that are not per-GPU,
// or skipped instances, unchanged. `first_device`: the first selected GPU.
std::vector<Instance> node_mode_plan(const std::vector<Instance>& instances, SoloReference reference,
                                     int first_device);

// Runs of consecutive node instances of one benchmark point (one per GPU), each a group that
// runs together; every other instance a group of its own.
std::vector<std::vector<const Instance*>> node_groups(const std::vector<const Instance*>& instances);

}  // namespace gpubench
