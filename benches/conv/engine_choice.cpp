#include "benches/conv/engine_choice.h"

#include <algorithm>

namespace gpubench::conv {

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
