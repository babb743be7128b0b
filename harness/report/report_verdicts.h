#pragma once
// compare's and check's verdicts as the HTML report shows them (html_report.h): the lines worth
// a look, worst first, each with its tone, and the benchmarks whose figures moved, which the
// table and the charts mark.
#include <optional>
#include <map>
#include <string>

#include "harness/analysis/check.h"
#include "harness/analysis/compare.h"
#include "harness/report/html_report.h"

namespace gpubench {

VerdictTable verdict_table(const Comparison& comparison);
VerdictTable verdict_table(const CheckReport& report);
// A run reported alone is judged only on whether it can be (judgeable.h): a failed table that
// names why, or nullopt when it can.
std::optional<VerdictTable> unjudgeable_table(const ResultFile& run);

// Benchmarks of NEW with a line whose verdict is not "same", each with its worst verdict
// ("regressed", "improved", "noisy", "not ok"): what the report's table and charts mark.
std::map<std::string, std::string> changed_benchmarks(const Comparison& comparison);

}  // namespace gpubench
