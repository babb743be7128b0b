#include "harness/model/plausibility.h"

#include <cmath>
#include <cstdio>

namespace gpubench {

std::optional<std::string> implausible_figure(double value, double peak, bool higher_is_better) {
  if (!higher_is_better || !(peak > 0) || !std::isfinite(value)) return std::nullopt;
  if (value <= kPlausiblePeakFraction * peak) return std::nullopt;
  char text[160];
  std::snprintf(text, sizeof text, "exceeds the physical peak (%.0f %% of %.4g): the measurement is wrong",
                100.0 * value / peak, peak);
  return std::string(text);
}

}  // namespace gpubench
