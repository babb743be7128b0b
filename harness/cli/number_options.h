#pragma once
// The validator of every numeric option of every command (the run options, compare, check,
// baseline): a rule of harness/model/number_rules.h, checked as the command line is parsed, so
// that a refused value is exit 2 with one line naming the option:
//   gpubench: --threshold: expected a number from 0 to 1000 (got nan) (see gpubench --help)
#include <functional>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace gpubench {

// Text that is not a number, or a number the rule refuses (NaN, inf, out of range), is refused.
CLI::Validator checked_number(std::function<std::optional<std::string>(double)> rule);
// Text that is not an integer, or an integer the rule refuses, is refused.
CLI::Validator checked_count(std::function<std::optional<std::string>(long long)> rule);

}  // namespace gpubench
