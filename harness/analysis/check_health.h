#pragma once
// The health lines of a check (check_health.cpp), what check_run adds to the baseline's lines.
#include <vector>

#include "harness/analysis/check.h"

namespace gpubench {

// The node's GPU count against check --gpus, when given: fewer is a failure.
void gpu_count_line(const ResultFile& run, const CheckOptions& options, std::vector<CheckLine>& lines);
// Every health rule for every GPU of the run under the baseline's policy (passes folded into
// one line per rule), the error counters not recorded, and the benchmarks measured throttled.
void health_lines(const Baseline& baseline, const ResultFile& run, std::vector<CheckLine>& lines);

}  // namespace gpubench
