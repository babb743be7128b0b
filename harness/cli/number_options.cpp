#include "harness/cli/number_options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace gpubench {
namespace {

std::string refusal(const std::optional<std::string>& problem, const std::string& text) {
  return problem ? *problem + " (got " + text + ")" : std::string();
}

}  // namespace

CLI::Validator checked_number(std::function<std::optional<std::string>(double)> rule) {
  return CLI::Validator(
      [rule](std::string& text) {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        const bool whole = !text.empty() && end == text.c_str() + text.size();
        // What is not a number gets the rule's own message: every rule refuses NaN.
        return refusal(rule(whole ? value : std::nan("")), text);
      },
      "");
}

CLI::Validator checked_count(std::function<std::optional<std::string>(long long)> rule) {
  return CLI::Validator(
      [rule](std::string& text) {
        char* end = nullptr;
        errno = 0;
        const long long value = std::strtoll(text.c_str(), &end, 10);
        const bool whole = !text.empty() && end == text.c_str() + text.size() && errno == 0;
        // What is not an integer gets the rule's own message: every rule refuses the lowest one.
        return refusal(rule(whole ? value : std::numeric_limits<long long>::min()), text);
      },
      "");
}

}  // namespace gpubench
