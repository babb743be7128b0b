#pragma once
// Fault isolation: each family runs in a worker process (worker.h) under a supervising parent
// with a watchdog (watchdog.h). A hung kernel or a sticky CUDA error poisons a whole CUDA
// context, so the only safe continuation is a fresh process: the parent kills a worker that
// overruns its timeout, records what was running as timeout/failed with the reason, and starts
// a new worker for the family's remaining benchmarks. SIGINT or SIGTERM (interrupt.h) kills the
// worker, records what was running as interrupted, and ends the run.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "harness/core/family.h"
#include "harness/core/state.h"
#include "harness/model/context.h"
#include "harness/model/error_counters.h"
#include "harness/model/result.h"
#include "harness/run/interrupt.h"

namespace gpubench {

struct RunPlan {
  std::vector<Instance> instances;  // in run order
  RunSettings settings;
};

// Called with the name of each benchmark as it starts, and with each result as it arrives
// (progress display, the --out file rewritten as results come).
struct RunObserver {
  std::function<void(const std::string& name)> started = [](const std::string&) {};
  std::function<void(const BenchResult&)> finished = [](const BenchResult&) {};
};

struct RunOutcome {
  std::vector<BenchResult> results;  // repetitions included, in plan order
  std::string interrupted;           // "SIGINT" or "SIGTERM" when a signal stopped the run
  // Per CUDA ordinal, the error counters around each suite (empty when NVML is unavailable).
  std::map<int, std::vector<CounterWindow>> error_counters;
};

// Runs the plan, in workers when `isolate`, else in this process; stops early when `interrupts`
// sees a signal.
RunOutcome run_plan(const RunPlan& plan, const Context& context, bool isolate, const RunObserver& observer,
                    const InterruptCatcher& interrupts);

// The hard limit on one benchmark of `instance`: its family's timeout, else the run's.
double timeout_for(const Instance& instance, const RunSettings& settings);

}  // namespace gpubench
