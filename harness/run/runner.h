#pragma once
// Running benchmark instances inside this process: a plain loop of our own, so that nothing in
// the environment (Google Benchmark's BENCHMARK_* variables) changes what runs.
#include <functional>
#include <string>
#include <vector>

#include "harness/model/context.h"
#include "harness/core/family.h"
#include "harness/core/node_lane.h"
#include "harness/model/result.h"
#include "harness/core/state.h"

namespace gpubench {

// Where results go as they are produced: straight to the collector (in-process) or down a
// pipe to the supervising parent (worker).
class ResultSink {
 public:
  virtual ~ResultSink() = default;
  virtual void started(const std::string& name, int repetition) = 0;
  virtual void finished(const BenchResult& result) = 0;
};

// The run's settings with what the instance's family sets for itself (FamilySettings) in their
// place: a family that knows it needs longer says so once, whatever the run asks of the rest.
RunSettings settings_for(const Instance& instance, const RunSettings& settings);

// Runs one repetition of one instance, under settings_for(instance, settings): device selection, telemetry around it, and every
// exception turned into a status. Sets `poisoned` when a CUDA error leaves the context unusable.
// `node`: where it runs as one lane of a node group (node_runner.h).
BenchResult run_instance(const Instance& instance, const RunSettings& settings, const Context& context,
                         int repetition, bool& poisoned, const NodeLane* node = nullptr);

// A result for an instance that did not run (skipped before running, timed out, worker died).
BenchResult unrun_result(const Instance& instance, Status status, const std::string& reason,
                         int repetition = 0, int repetitions = 1);

// How run_in_process ended.
enum class InProcessEnd {
  kCompleted,
  kPoisoned,  // a CUDA error poisoned the context; the instances after it were not run
  kStopped,   // `stop_requested` said so between two benchmarks
};

// Runs the instances in order, each `settings.repetitions` times, asking `stop_requested`
// before each repetition; a node group (node_plan.h) runs its GPUs together.
InProcessEnd run_in_process(const std::vector<const Instance*>& instances, const RunSettings& settings,
                            const Context& context, ResultSink& sink,
                            const std::function<bool()>& stop_requested = [] { return false; });

// Running one node group (harness/run/node_plan.h): a thread per GPU in this worker, each with
// its own device, State and telemetry, all passing one NodeBarrier, so that each sample starts
// on every GPU together. A lane that fails breaks the barrier and the others stop with its
// reason; a lane that hangs holds the others at most the benchmark's timeout, and the
// supervisor's watchdog (one per worker) stops them all.
// The group's results in lane order, each with notes.node: the GPUs that ran together, its
// lane's overlap with the others' timed regions (overlap_pct, node_figures.h) and how the
// overlap was measured. Sets `poisoned` when any lane's CUDA error poisoned the context.
std::vector<BenchResult> run_node_group(const std::vector<const Instance*>& group, const RunSettings& settings,
                                        const Context& context, int repetition, bool& poisoned);

}  // namespace gpubench
