#pragma once
// Which results of a run a chart rule (chart_rules.h) draws from, for chart_data.cpp and
// chart_bars.cpp.
#include <map>
#include <string>
#include <vector>

#include "harness/model/result_file.h"

namespace gpubench {

// Files name a family "suite/family" (or, older ones, "family" beside the suite).
bool in_family(const std::string& suite, const std::string& family, const std::string& wanted);
// Every axis of `fixed` that the result has holds its value.
bool holds_fixed(const BenchmarkResult& b, const std::map<std::string, std::string>& fixed);
std::string param_or(const BenchmarkResult& b, const std::string& axis);  // "" when absent

// The results of `file` a rule draws from (none when the file is absent): its ok ones, and
// with `with_failed` those that ran and gave no figure, drawn as crosses.
std::vector<const BenchmarkResult*> select(const ResultFile* file, const std::string& family,
                                           const std::map<std::string, std::string>& fixed,
                                           const std::string& needed_axis, bool with_failed = false);

// The benchmark's compare verdict in `verdicts` (may be null), or "".
std::string verdict_of(const std::map<std::string, std::string>* verdicts, const std::string& name);

}  // namespace gpubench
