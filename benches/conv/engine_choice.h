#pragma once
// A cuDNN engine configuration as gpubench records it (gpubench.choice): the engine's global
// index, its knob settings and its notes, and the rule for which engines each precision admits.
#include <cudnn.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "benches/conv/conv_layer.h"

namespace gpubench::conv {

struct EngineChoice {
  std::int64_t engine = -1;
  std::vector<std::pair<int, std::int64_t>> knobs;  // cudnnBackendKnobType_t value -> setting
  std::vector<cudnnBackendNumericalNote_t> numerical_notes;
  std::vector<cudnnBackendBehaviorNote_t> behavior_notes;
  std::int64_t workspace_bytes = 0;
  bool heuristic = false;  // came from CUDNN_HEUR_MODE_A (else from the fallback list)

  bool same_config(const EngineChoice& other) const { return engine == other.engine && knobs == other.knobs; }
  bool has(cudnnBackendNumericalNote_t note) const;
  // {"engine", "knobs": {"<knob type>": value}, "numerical_notes": [...], "workspace_bytes"}.
  nlohmann::json identity() const;
  std::string label() const;  // "engine 12 (tensor_core) knobs 2=3 17=1"
};

const char* numerical_note_name(cudnnBackendNumericalNote_t note);

// Whether `precision` admits an engine with these notes. fp32 is strict: no tensor cores
// (TF32) and no down-converted inputs. tf32 admits tensor-core engines, as
// torch.backends.cudnn.allow_tf32 does. fp16 and bf16 need FP32 accumulation: no
// reduced-precision reduction.
bool engine_allowed(Precision precision, const std::vector<cudnnBackendNumericalNote_t>& notes);

}  // namespace gpubench::conv
