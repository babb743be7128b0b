#include "benches/conv/engine_choice.h"

#include <algorithm>

namespace gpubench::conv {

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

bool engine_allowed(Precision precision, const std::vector<cudnnBackendNumericalNote_t>& notes) {
  auto has = [&](cudnnBackendNumericalNote_t note) { return std::find(notes.begin(), notes.end(), note) != notes.end(); };
  if (has(CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS)) return false;
  switch (precision) {
    case Precision::kFp32: return !has(CUDNN_NUMERICAL_NOTE_TENSOR_CORE);
    case Precision::kTf32: return true;
    case Precision::kFp16:
    case Precision::kBf16: return !has(CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION);
  }
  return false;
}

}  // namespace gpubench::conv
