#pragma once
// What the supervising parent sends a worker: the run's settings, the parent's context and the
// instances to run exactly as the parent expanded them (family name, parameters, device, skip
// reason). The worker rebuilds each Instance from these and never expands a family itself, so
// axes computed from files or from the context mean the same thing on both sides.
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/core/family.h"
#include "harness/core/state.h"
#include "harness/model/context.h"

namespace gpubench {

struct WorkerJob {
  RunSettings settings;
  Context context;
  std::vector<Instance> instances;
};

nlohmann::json job_to_json(const WorkerJob& job);
// Throws std::runtime_error naming what does not fit (an unknown family, a malformed field).
WorkerJob job_from_json(const nlohmann::json& json);

nlohmann::json settings_to_json(const RunSettings& settings);
RunSettings settings_from_json(const nlohmann::json& json);

// The result document's context plus what it leaves out and benchmarks read (peer access,
// the reason no GPU is usable, NVLinks in total, throttle reasons at capture).
nlohmann::json context_to_job_json(const Context& context);
Context context_from_job_json(const nlohmann::json& json);

nlohmann::json instance_to_json(const Instance& instance);
Instance instance_from_json(const nlohmann::json& json);

}  // namespace gpubench
