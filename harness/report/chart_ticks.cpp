#include "harness/report/chart_ticks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpubench {
namespace {

// The candidates from the last at or below lo to the first at or above hi, at least two.
std::vector<double> bracketing(const std::vector<double>& candidates, double lo, double hi) {
  const double slack = 1e-9;
  std::size_t first = 0, last = candidates.size() - 1;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i] <= lo * (1 + slack)) first = i;
  for (std::size_t i = candidates.size(); i-- > 0;)
    if (candidates[i] >= hi * (1 - slack)) last = i;
  if (last <= first) last = std::min(first + 1, candidates.size() - 1);
  return {candidates.begin() + static_cast<std::ptrdiff_t>(first), candidates.begin() + static_cast<std::ptrdiff_t>(last) + 1};
}

}  // namespace

std::vector<double> linear_ticks(double lo, double hi, int target) {
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / std::max(1, target);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * magnitude >= raw) {
      step = m * magnitude;
      break;
    }
  std::vector<double> ticks;
  for (double t = std::floor(lo / step) * step; t < hi + step * 0.999; t += step)
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  return ticks;
}

std::vector<double> log_ticks(double lo, double hi, AxisFormat format) {
  if (!(lo > 0) || !(hi >= lo)) return {};
  std::vector<double> candidates;
  if (format == AxisFormat::kBytes) {
    const int first = static_cast<int>(std::floor(std::log2(lo) + 1e-9));
    const int last = static_cast<int>(std::ceil(std::log2(hi) - 1e-9));
    int stride = 10;
    for (int s : {1, 2, 4, 5, 10})
      if ((last - first + s - 1) / s <= 7) {
        stride = s;
        break;
      }
    const int from = static_cast<int>(std::floor(static_cast<double>(first) / stride)) * stride;
    for (int e = from; e < last + stride; e += stride) candidates.push_back(std::ldexp(1.0, e));
    return bracketing(candidates, lo, hi);
  }
  const int first = static_cast<int>(std::floor(std::log10(lo))), last = static_cast<int>(std::ceil(std::log10(hi))) + 1;
  const std::vector<double> steps = std::log10(hi / lo) < 2 ? std::vector<double>{1, 2, 5} : std::vector<double>{1};
  for (int e = first; e <= last; ++e)
    for (double m : steps) candidates.push_back(m * std::pow(10.0, e));
  return bracketing(candidates, lo, hi);
}

std::string tick_text(double value, AxisFormat format) {
  char buffer[32];
  if (format == AxisFormat::kBytes && value >= 1) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (value >= 1024 && u < 4) value /= 1024, ++u;
    std::snprintf(buffer, sizeof buffer, "%g %s", value, units[u]);
    return buffer;
  }
  const bool whole = std::fabs(value) < 1e6 && value == std::floor(value);
  std::snprintf(buffer, sizeof buffer, whole ? "%.0f" : std::fabs(value) >= 1e6 ? "%.3g" : "%.4g", value);
  return buffer;
}

}  // namespace gpubench
