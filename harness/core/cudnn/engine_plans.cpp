#include "harness/core/cudnn/engine_plans.h"

#include <algorithm>
#include <array>

namespace gpubench::cudnn {
namespace {

// Fills `choice` from a heuristic's engine configuration.
void describe(cudnnBackendDescriptor_t config, EngineChoice& choice) {
  const CudnnApi& api = CudnnApi::get();
  BackendDescriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  cudnnBackendDescriptor_t engine_raw = engine.get();
  std::int64_t count = 0;
  GPUBENCH_CUDNN(api.cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                              &count, &engine_raw));
  choice.engine = engine.get_int64(CUDNN_ATTR_ENGINE_GLOBAL_INDEX);
  // Arrays sized by this header's counts: an older library fills fewer, never more.
  std::array<cudnnBackendNumericalNote_t, CUDNN_NUMERICAL_NOTE_TYPE_COUNT> notes{};
  GPUBENCH_CUDNN(api.cudnnBackendGetAttribute(engine.get(), CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                              static_cast<std::int64_t>(notes.size()), &count, notes.data()));
  choice.numerical_notes.assign(notes.begin(), notes.begin() + count);
  std::array<cudnnBackendBehaviorNote_t, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT> behaviors{};
  GPUBENCH_CUDNN(api.cudnnBackendGetAttribute(engine.get(), CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE,
                                              static_cast<std::int64_t>(behaviors.size()), &count, behaviors.data()));
  choice.behavior_notes.assign(behaviors.begin(), behaviors.begin() + count);
  std::vector<BackendDescriptor> knobs;
  std::vector<cudnnBackendDescriptor_t> knob_raw;
  for (int i = 0; i < CUDNN_KNOB_TYPE_COUNTS; ++i) {
    knobs.emplace_back(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
    knob_raw.push_back(knobs.back().get());
  }
  GPUBENCH_CUDNN(api.cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                              static_cast<std::int64_t>(knob_raw.size()), &count, knob_raw.data()));
  for (std::int64_t i = 0; i < count; ++i) {
    cudnnBackendKnobType_t type{};
    std::int64_t got = 0;
    GPUBENCH_CUDNN(api.cudnnBackendGetAttribute(knob_raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1,
                                                &got, &type));
    choice.knobs.emplace_back(static_cast<int>(type), knobs[i].get_int64(CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE));
  }
}

// One heuristic mode's engine configurations, in its order, and the first not yet looked at.
struct HeuristicList {
  cudnnBackendHeurMode_t mode{};
  std::vector<BackendDescriptor> configs;
  std::size_t next = 0;
};

// `mode`'s configurations for `graph`; none (and the reason in out.why_none) where its heuristic
// does not finalize.
HeuristicList heuristic_list(const BackendDescriptor& graph, cudnnBackendHeurMode_t mode, EnginePlans& out) {
  const CudnnApi& api = CudnnApi::get();
  HeuristicList list{mode, {}, 0};
  BackendDescriptor heuristics(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  heuristics.set_descriptor(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph);
  heuristics.set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
  if (heuristics.try_finalize() != CUDNN_STATUS_SUCCESS) {
    if (out.why_none.empty()) out.why_none = "cuDNN heuristics: " + cudnn_last_error();
    return list;
  }
  std::int64_t count = 0;
  GPUBENCH_CUDNN(api.cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                              CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr));
  std::vector<cudnnBackendDescriptor_t> raw;
  for (std::int64_t i = 0; i < count; ++i) {
    list.configs.emplace_back(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    raw.push_back(list.configs.back().get());
  }
  GPUBENCH_CUDNN(api.cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                              CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &count, raw.data()));
  list.configs.resize(static_cast<std::size_t>(count));
  return list;
}

// Adds the plans of `list`'s configurations from where it stopped while `out` holds fewer than
// `up_to`. A configuration another list gave before (`looked_at`) is skipped, so each is
// admitted, or counted among the rejected, once.
void add_candidates(cudnnHandle_t handle, HeuristicList& list, const PlanLimits& limits, std::size_t up_to,
                    std::vector<EngineChoice>& looked_at, EnginePlans& out) {
  for (; list.next < list.configs.size() && out.plans.size() < up_to; ++list.next) {
    cudnnBackendDescriptor_t config = list.configs[list.next].get();
    EnginePlan candidate;
    describe(config, candidate.choice);
    candidate.choice.heuristic = list.mode == CUDNN_HEUR_MODE_A;
    bool seen = false;
    for (const auto& choice : looked_at) seen = seen || choice.same_config(candidate.choice);
    if (seen) continue;
    looked_at.push_back(candidate.choice);
    if (limits.allowed && !limits.allowed(candidate.choice.numerical_notes)) {
      ++out.rejected_by_notes;
      continue;
    }
    candidate.plan = BackendDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    candidate.plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
    candidate.plan.set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &config);
    if (candidate.plan.try_finalize() != CUDNN_STATUS_SUCCESS) {
      ++out.failed_to_finalize;
      if (out.why_none.empty()) out.why_none = "cuDNN execution plan: " + cudnn_last_error();
      continue;
    }
    candidate.choice.workspace_bytes = candidate.plan.get_int64(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE);
    if (candidate.choice.workspace_bytes > limits.workspace_bytes) {
      ++out.rejected_by_workspace;
      continue;
    }
    out.plans.push_back(std::move(candidate));
  }
}

}  // namespace

bool EngineChoice::has(cudnnBackendNumericalNote_t note) const {
  return std::find(numerical_notes.begin(), numerical_notes.end(), note) != numerical_notes.end();
}

const char* numerical_note_name(cudnnBackendNumericalNote_t note) {
  switch (note) {
    case CUDNN_NUMERICAL_NOTE_TENSOR_CORE: return "tensor_core";
    case CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS: return "down_convert_inputs";
    case CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION: return "reduced_precision_reduction";
    case CUDNN_NUMERICAL_NOTE_FFT: return "fft";
    case CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC: return "nondeterministic";
    case CUDNN_NUMERICAL_NOTE_WINOGRAD: return "winograd";
    case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4: return "winograd_4x4";
    case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_6x6: return "winograd_6x6";
    case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13: return "winograd_13x13";
    case CUDNN_NUMERICAL_NOTE_STRICT_NAN_PROP: return "strict_nan_prop";
    default: return "other";
  }
}

nlohmann::json EngineChoice::identity() const {
  nlohmann::json knob_settings = nlohmann::json::object();
  for (const auto& [type, value] : knobs) knob_settings[std::to_string(type)] = value;
  nlohmann::json notes = nlohmann::json::array();
  for (auto note : numerical_notes) notes.push_back(numerical_note_name(note));
  return {{"engine", engine}, {"knobs", knob_settings}, {"numerical_notes", notes}, {"workspace_bytes", workspace_bytes}};
}

std::string EngineChoice::label() const {
  std::string text = "engine " + std::to_string(engine);
  std::string notes;
  for (auto note : numerical_notes) notes += (notes.empty() ? "" : ",") + std::string(numerical_note_name(note));
  if (!notes.empty()) text += " (" + notes + ")";
  if (!knobs.empty()) text += " knobs";
  for (const auto& [type, value] : knobs) text += " " + std::to_string(type) + "=" + std::to_string(value);
  return text;
}

std::int64_t largest_workspace(const EnginePlans& plans) {
  std::int64_t largest = 0;
  for (const auto& p : plans.plans) largest = std::max(largest, p.choice.workspace_bytes);
  return largest;
}

std::vector<TuneCandidate> tune_candidates(const EnginePlans& plans,
                                           const std::function<void(std::size_t, cudaStream_t)>& run) {
  std::vector<TuneCandidate> out;
  for (std::size_t i = 0; i < plans.plans.size(); ++i)
    out.push_back({plans.plans[i].choice.label(), plans.plans[i].choice.identity(),
                   [run, i](cudaStream_t stream) { run(i, stream); }});
  return out;
}

std::size_t heuristic_index(const EnginePlans& plans) {
  for (std::size_t i = 0; i < plans.plans.size(); ++i)
    if (plans.plans[i].choice.heuristic) return i;
  return 0;
}

BackendDescriptor operation_graph(cudnnHandle_t handle, const std::vector<const BackendDescriptor*>& operations) {
  BackendDescriptor graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  graph.set_descriptors(CUDNN_ATTR_OPERATIONGRAPH_OPS, operations);
  // Deprecated in 9.19's header but required by the 9.14 library the nodes carry.
  graph.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
  graph.finalize();
  return graph;
}

EnginePlans engine_plans(cudnnHandle_t handle, const BackendDescriptor& graph, const PlanLimits& limits,
                         const std::string& what) {
  // With the instant heuristic, mode A's ranking fills half the plans (its first is cuDNN's
  // heuristic pick), the instant heuristic's and the fallback list's follow in torch's order, so
  // that whatever torch.backends.cudnn.benchmark can pick is screened too, then the rest of A's.
  EnginePlans out;
  std::vector<EngineChoice> looked_at;
  const std::size_t a_share =
      limits.instant_heuristic ? std::max<std::size_t>(1, limits.max_plans / 2) : limits.max_plans;
  HeuristicList mode_a = heuristic_list(graph, CUDNN_HEUR_MODE_A, out);
  add_candidates(handle, mode_a, limits, a_share, looked_at, out);
  if (limits.instant_heuristic) {
    HeuristicList instant = heuristic_list(graph, CUDNN_HEUR_MODE_INSTANT, out);
    add_candidates(handle, instant, limits, limits.max_plans, looked_at, out);
  }
  HeuristicList fallback = heuristic_list(graph, CUDNN_HEUR_MODE_FALLBACK, out);
  add_candidates(handle, fallback, limits, limits.max_plans, looked_at, out);
  add_candidates(handle, mode_a, limits, limits.max_plans, looked_at, out);
  if (out.plans.empty())
    out.why_none = "no cuDNN engine for " + what + " (" + std::to_string(out.rejected_by_notes) +
                   " excluded by the precision's numerical rule, " + std::to_string(out.rejected_by_workspace) +
                   " over the workspace limit, " + std::to_string(out.failed_to_finalize) + " not finalized)" +
                   (out.why_none.empty() ? "" : ": " + out.why_none);
  return out;
}

BackendDescriptor variant_pack(const std::vector<std::int64_t>& ids, const std::vector<void*>& pointers,
                               void* workspace) {
  BackendDescriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  pack.set_int64s(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, ids);
  pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, static_cast<std::int64_t>(pointers.size()),
           pointers.data());
  pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace);
  pack.finalize();
  return pack;
}

void execute(cudnnHandle_t handle, const EnginePlan& plan, const BackendDescriptor& variant_pack) {
  GPUBENCH_CUDNN(CudnnApi::get().cudnnBackendExecute(handle, plan.plan.get(), variant_pack.get()));
}

}  // namespace gpubench::cudnn
