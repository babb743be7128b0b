#pragma once
// The physical peak a family's primary figure is held against (% of peak, and the plausibility
// bound above which a figure is a bug): HBM bandwidth from the memory clock and bus, TFLOP/s
// from the datasheet rates of configs/peaks.json.
#include <string>

#include "harness/core/state.h"

namespace gpubench {

// Sets the HBM peak (2 x memory clock x bus width) when `working_set_bytes` is at least twice
// the L2, and otherwise records that the data was cache-resident, so that an L2 figure is never
// shown as a percentage of HBM.
void set_hbm_peak(State& s, double working_set_bytes);

// The datasheet's dense rate for `key` ("fp32", "tf32", "fp16", "bf16", ...) of the benchmark's
// GPU, or a peak of 0 with the reason where the model or the key is not in the file.
void set_datasheet_tflops_peak(State& s, const std::string& key);

}  // namespace gpubench
