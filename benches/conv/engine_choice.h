#pragma once
// The rule for which cuDNN engines each conv precision admits, by the engines' numerical notes.
#include <cudnn.h>

#include <vector>

#include "benches/conv/conv_layer.h"

namespace gpubench::conv {

// Whether `precision` admits an engine with these notes. fp32 is strict: no tensor cores
// (TF32) and no down-converted inputs. tf32 admits tensor-core engines, as
// torch.backends.cudnn.allow_tf32 does. fp16 and bf16 need FP32 accumulation: no
// reduced-precision reduction.
bool engine_allowed(Precision precision, const std::vector<cudnnBackendNumericalNote_t>& notes);

}  // namespace gpubench::conv
