#pragma once
// The axes the attention families share, in one place: type, model (from the presets), batch,
// seq and causal.
#include <vector>

#include "harness/core/family.h"

namespace gpubench::attention {

// The model axis's values: the names of the presets in the sweep (`in_sweep`) or of those that
// only --config runs. A bad preset file fails the family's expansion with exit 2, naming the
// file and the entry.
std::vector<std::string> model_axis_values(bool in_sweep);
// type (fp16 bf16), model, batch (`batch`), seq (`seq`, `quick_seq` under --quick), causal (0 1);
// under --quick bf16, llama3_8b (else the first model), the first batch and causal 1.
Family& add_shape_axes(Family& family, std::vector<std::int64_t> seq, std::vector<std::int64_t> quick_seq,
                       std::vector<std::int64_t> batch = {4});

}  // namespace gpubench::attention
