#pragma once
// Running benchmark instances inside this process, through Google Benchmark's runner.
#include <string>
#include <vector>

#include "harness/report/context.h"
#include "harness/core/family.h"
#include "harness/report/result.h"
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

// Runs one repetition of one instance: device selection, telemetry around it, and every
// exception turned into a status. Sets `poisoned` when a CUDA error leaves the context unusable.
BenchResult run_instance(const Instance& instance, const RunSettings& settings, const Context& context,
                         int repetition, bool& poisoned);

// A result for an instance that did not run (skipped before running, timed out, worker died).
BenchResult unrun_result(const Instance& instance, Status status, const std::string& reason,
                         int repetition = 0, int repetitions = 1);

// Runs the instances in order, each `settings.repetitions` times. Returns false when a CUDA
// error poisoned the context and the remaining instances were not run.
bool run_in_process(const std::vector<const Instance*>& instances, const RunSettings& settings,
                    const Context& context, ResultSink& sink);

}  // namespace gpubench
