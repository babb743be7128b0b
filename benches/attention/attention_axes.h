#pragma once
// The axes the attention families share, in one place: type, model (from the presets), batch,
// seq and causal.
#include <vector>

#include "harness/core/family.h"

namespace gpubench::attention {

// The model axis's values: the names of the presets in the sweep (`in_sweep`) or of those that
// only --config runs, of head dim `head_dim` (0: any). A bad preset file fails the family's
// expansion with exit 2, naming the file and the entry.
std::vector<std::string> model_axis_values(bool in_sweep, std::int64_t head_dim = 0);
// type (`types`, the last under --quick), model (of head dim `head_dim`, 0: any), batch (`batch`),
// seq (`seq`, `quick_seq` under --quick), causal (0 1); under --quick llama3_8b (else the first
// model), the first batch and causal 1.
Family& add_shape_axes(Family& family, std::vector<std::int64_t> seq, std::vector<std::int64_t> quick_seq,
                       std::vector<std::int64_t> batch = {4}, std::vector<std::string> types = {"fp16", "bf16"},
                       std::int64_t head_dim = 0);

// The settings of the forward families: 300 s a benchmark, sampling up to 1 s, as a family that
// loads the GPU to its power limit (power_limited: samples after 0.15 s of load, over at least
// 0.2 s, as DESIGN.md's measurement rules have compute figures; no rest after tune's ranking, as
// conv's). A long sequence's forward holds an H200 at its power
// cap as a GEMM does; unsettled, a figure measured after a ranking ran at the clock the ranking's
// load left (on an H200, 9 % under its own ranked median for calls of 250 us and more) and one
// measured without a ranking at the boost clock.
FamilySettings forward_settings();

}  // namespace gpubench::attention
