#pragma once
// Running one node group (harness/run/node_plan.h): a thread per GPU in this worker, each with
// its own device, State and telemetry, all passing one NodeBarrier, so that each sample starts
// on every GPU together. A lane that fails breaks the barrier and the others stop with its
// reason; a lane that hangs holds the others at most the benchmark's timeout, and the
// supervisor's watchdog (one per worker) stops them all.
#include <vector>

#include "harness/core/family.h"
#include "harness/core/state.h"
#include "harness/report/context.h"
#include "harness/report/result.h"

namespace gpubench {

// The group's results in lane order, each with notes.node: the GPUs that ran together, its
// lane's overlap with the others' timed regions (overlap_pct, node_figures.h) and how the
// overlap was measured. Sets `poisoned` when any lane's CUDA error poisoned the context.
std::vector<BenchResult> run_node_group(const std::vector<const Instance*>& group, const RunSettings& settings,
                                        const Context& context, int repetition, bool& poisoned);

}  // namespace gpubench
