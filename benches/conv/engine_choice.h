#pragma once
// Which cuDNN engines each conv precision admits, by the engines' numerical notes, and which of
// the admitted plans a quick screening sends on to tuning.
#include <cudnn.h>

#include <cstddef>
#include <optional>
#include <vector>

#include "benches/conv/conv_layer.h"

namespace gpubench::conv {

// Whether `precision` admits an engine with these notes. The rule is PyTorch's for its cuDNN
// convolutions (aten/src/ATen/native/cudnn/Conv_v8.cpp, filterEngineConfigs), so that the
// candidates are a superset of what torch.backends.cudnn.benchmark times under the same math
// settings: never an engine that down-converts its inputs; for fp32 (allow_tf32 off) no
// tensor-core engine, since on FP32 data those compute in TF32; tf32 admits them. fp16 and bf16
// admit reduced-precision reductions as torch does: the sampled verification bounds their
// error like any other engine's.
bool engine_allowed(Precision precision, const std::vector<cudnnBackendNumericalNote_t>& notes);

// The plans that go on to tuning, in their original order: the `count` fastest by `seconds`
// (one screening time per plan) and `also` (the heuristic's pick, so that the choice can
// record it) when it is not among them. A plan that failed to run (infinite time) never goes on.
std::vector<std::size_t> fastest_plans(const std::vector<double>& seconds, std::size_t count,
                                       std::optional<std::size_t> also);

}  // namespace gpubench::conv
