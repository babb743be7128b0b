#pragma once
// The axes and settings the conv families share, in one place: net and layer from the layer
// sets, then n, type, layout and the workspace limit.
#include "harness/core/family.h"

namespace gpubench::conv {

// `net` (the layer sets; only whole networks when `networks_only`) and, with `layers`, `layer`
// (only the 3x3 layers when `three_by_three_only`), paired by a where() so a name never joins
// a set with another set's layer. A bad layer file fails expansion with exit 2, naming the layer.
// --quick runs one pair: quick_layer() of layer_sets.h.
Family& add_layer_axes(Family& family, bool networks_only, bool layers, bool three_by_three_only);
// n (batch, 128), type (fp32 tf32 fp16 bf16; fp16 under --quick), layout (nhwc; nchw by --config).
Family& add_problem_axes(Family& family);
// The default limit on an engine's cuDNN workspace: torch.backends.cudnn.benchmark lets an
// engine take the largest free block of the caching allocator, so the limit is set high enough
// that the candidates include the FFT and Winograd engines torch can pick at batch 128.
constexpr std::int64_t kDefaultWorkspaceMib = 4096;
// workspace_mib: the largest cuDNN workspace an engine may use (kDefaultWorkspaceMib).
Family& add_workspace_axis(Family& family);
// A conv family's settings: power_limited, a 300 s timeout and `max_time_s` of sampling. Its
// samples span 0.1 s, not the default 0.2: ResNet-50's 180 convolutions then fit the 3 minutes
// of the default sweep, and a layer of under 1 ms still gives 100 samples or more.
FamilySettings conv_settings(double max_time_s);

}  // namespace gpubench::conv
