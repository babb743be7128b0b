#include "harness/model/number_rules.h"

#include <cmath>

#include "harness/model/number_text.h"

namespace gpubench {
namespace {

std::string bound_text(double value) { return significant_text(value, 6); }

}  // namespace

std::optional<std::string> positive_number_problem(double value) {
  if (!std::isfinite(value) || value <= 0) return "expected a positive number";
  return std::nullopt;
}

std::optional<std::string> non_negative_number_problem(double value) {
  if (!std::isfinite(value) || value < 0) return "expected a number >= 0";
  return std::nullopt;
}

std::optional<std::string> number_range_problem(double value, double min, double max, bool exclusive) {
  const bool inside = exclusive ? value > min && value < max : value >= min && value <= max;
  if (std::isfinite(value) && inside) return std::nullopt;
  return exclusive ? "expected a number above " + bound_text(min) + " and below " + bound_text(max)
                   : "expected a number from " + bound_text(min) + " to " + bound_text(max);
}

std::optional<std::string> positive_count_problem(long long value) {
  if (value <= 0 || value > 1000000) return "expected a positive integer (at most 1000000)";
  return std::nullopt;
}

std::optional<std::string> count_range_problem(long long value, long long min, long long max) {
  if (value < min || value > max)
    return "expected an integer from " + std::to_string(min) + " to " + std::to_string(max);
  return std::nullopt;
}

}  // namespace gpubench
