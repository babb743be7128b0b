#pragma once
// The rules a number a person gives obeys, one definition for the options of every command
// (harness/cli/number_options.h) and the settings of a --config file (harness/run/config.h):
// what is wrong with `value` ("expected a positive number"), or nothing when it is acceptable.
// Every rule refuses NaN and the infinities: no setting of gpubench means anything at either.
#include <optional>
#include <string>

namespace gpubench {

std::optional<std::string> positive_number_problem(double value);      // finite and above 0
std::optional<std::string> non_negative_number_problem(double value);  // finite and >= 0
// Finite and in [min, max], or in (min, max) when `exclusive` (a percentage of 0 or 100 that
// would mean nothing).
std::optional<std::string> number_range_problem(double value, double min, double max, bool exclusive = false);
std::optional<std::string> positive_count_problem(long long value);    // 1 .. 1000000
std::optional<std::string> count_range_problem(long long value, long long min, long long max);

}  // namespace gpubench
