#pragma once
// The engine configurations cuDNN's heuristics offer for a finalized operation graph, as
// finalized execution plans, and how gpubench records the one it ran (gpubench.choice): the
// engine's global index, its knob settings and its notes.
#include <cudnn.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/core/cudnn/cudnn_api.h"
#include "harness/core/state.h"

namespace gpubench::cudnn {

struct EngineChoice {
  std::int64_t engine = -1;
  std::vector<std::pair<int, std::int64_t>> knobs;  // cudnnBackendKnobType_t value -> setting
  std::vector<cudnnBackendNumericalNote_t> numerical_notes;
  std::vector<cudnnBackendBehaviorNote_t> behavior_notes;
  std::int64_t workspace_bytes = 0;
  bool heuristic = false;  // came from CUDNN_HEUR_MODE_A (else from the instant heuristic or the fallback list)

  bool same_config(const EngineChoice& other) const { return engine == other.engine && knobs == other.knobs; }
  bool has(cudnnBackendNumericalNote_t note) const;
  // {"engine", "knobs": {"<knob type>": value}, "numerical_notes": [...], "workspace_bytes"}.
  nlohmann::json identity() const;
  std::string label() const;  // "engine 12 (tensor_core) knobs 2=3 17=1"
};

const char* numerical_note_name(cudnnBackendNumericalNote_t note);

struct EnginePlan {
  BackendDescriptor plan;
  EngineChoice choice;
};

// The plans cuDNN offers, or why there are none (cuDNN's own words where it gave them).
struct EnginePlans {
  std::vector<EnginePlan> plans;  // in the order engine_plans() gives
  std::string why_none;
  // Distinct configurations, however many of the heuristic lists gave each.
  int rejected_by_notes = 0, rejected_by_workspace = 0, failed_to_finalize = 0;
};

struct PlanLimits {
  std::int64_t workspace_bytes = 0;  // the most workspace a plan may need
  std::size_t max_plans = 1;
  // Whether an engine with these numerical notes may run (the suite's precision rule).
  std::function<bool(const std::vector<cudnnBackendNumericalNote_t>&)> allowed;
  // Also the instant heuristic's plans: torch's source for convolutions beside the fallback list.
  bool instant_heuristic = false;
};

// The most workspace any of the plans needs.
std::int64_t largest_workspace(const EnginePlans& plans);
// The plans as State::tune candidates, `run(i, stream)` running plan i, and the index of the
// first plan of cuDNN's mode-A ranking (the heuristic's own pick).
std::vector<TuneCandidate> tune_candidates(const EnginePlans& plans,
                                           const std::function<void(std::size_t, cudaStream_t)>& run);
std::size_t heuristic_index(const EnginePlans& plans);

// A finalized operation graph of `operations` (in any order: cuDNN orders them by their tensors).
BackendDescriptor operation_graph(cudnnHandle_t handle, const std::vector<const BackendDescriptor*>& operations);
// At most limits.max_plans distinct plans for `graph`: heuristics mode A's ranking, then the
// fallback list's; with limits.instant_heuristic, the first half of mode A's, the instant
// heuristic's and the fallback list's (torch's), then the rest of mode A's. `what` names the
// graph in why_none ("this convolution").
EnginePlans engine_plans(cudnnHandle_t handle, const BackendDescriptor& graph, const PlanLimits& limits,
                         const std::string& what);
// A variant pack binding `pointers` to the tensors of unique ids `ids`, and the workspace.
BackendDescriptor variant_pack(const std::vector<std::int64_t>& ids, const std::vector<void*>& pointers,
                               void* workspace);
void execute(cudnnHandle_t handle, const EnginePlan& plan, const BackendDescriptor& variant_pack);

}  // namespace gpubench::cudnn
