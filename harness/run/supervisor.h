#pragma once
// Fault isolation: each family runs in a worker process (gpubench re-executing itself) under a
// supervising parent with a watchdog. A hung kernel or a sticky CUDA error poisons a whole
// CUDA context, so the only safe continuation is a fresh process: the parent kills a worker
// that overruns its timeout, records what was running as timeout/failed with the reason,
// and starts a new worker for the family's remaining benchmarks.
#include <functional>
#include <string>
#include <vector>

#include "harness/report/context.h"
#include "harness/core/family.h"
#include "harness/report/result.h"
#include "harness/core/state.h"

namespace gpubench {

struct RunPlan {
  std::vector<Instance> instances;  // in run order
  RunSettings settings;
  ExpandOptions expand;             // how the instances were expanded; workers redo it
};

// Called as each result arrives (progress display), and with the name of each benchmark as it
// starts.
struct RunObserver {
  std::function<void(const std::string& name)> started = [](const std::string&) {};
  std::function<void(const BenchResult&)> finished = [](const BenchResult&) {};
};

// Runs the plan and returns every result (repetitions included) in plan order.
std::vector<BenchResult> run_plan(const RunPlan& plan, const Context& context, bool isolate,
                                  const RunObserver& observer);

// Entry point of a worker: `gpubench --worker JOB.json --worker-fd N`. Returns the exit code.
int worker_main(const std::string& job_path, int result_fd);

nlohmann::json settings_to_json(const RunSettings& settings);
RunSettings settings_from_json(const nlohmann::json& json);

}  // namespace gpubench
