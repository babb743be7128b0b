#pragma once
// Running benchmark instances inside this process: a plain loop of our own, so that nothing in
// the environment (Google Benchmark's BENCHMARK_* variables) changes what runs.
#include <functional>
#include <string>
#include <vector>

#include "harness/model/context.h"
#include "harness/core/family.h"
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
BenchResult run_instance(const Instance& instance, const RunSettings& settings, const Context& context,
                         int repetition, bool& poisoned);

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
// before each repetition.
InProcessEnd run_in_process(const std::vector<const Instance*>& instances, const RunSettings& settings,
                            const Context& context, ResultSink& sink,
                            const std::function<bool()>& stop_requested = [] { return false; });

}  // namespace gpubench
