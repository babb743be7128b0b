#include "harness/model/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gpubench {
namespace {

// The order std::nth_element and std::minmax_element rely on does not hold with a NaN.
bool has_nan(const std::vector<double>& values) {
  return std::any_of(values.begin(), values.end(), [](double v) { return std::isnan(v); });
}

}  // namespace

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  if (has_nan(values)) return NAN;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + mid);
  return 0.5 * lower + 0.5 * upper;  // as 0.5 * (lower + upper), without its overflow
}

Summary summarize(const std::vector<double>& values) {
  Summary s;
  s.samples = values.size();
  if (values.empty()) return s;
  if (has_nan(values)) {
    s.median = s.mean = s.min = s.max = s.stddev = s.cv_pct = NAN;
    return s;
  }
  s.median = median_of(values);
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  s.min = *lo;
  s.max = *hi;
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  if (values.size() > 1) {
    double sq = 0;
    for (double v : values) sq += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(sq / static_cast<double>(values.size() - 1));
  }
  s.cv_pct = s.mean != 0 ? 100.0 * s.stddev / std::fabs(s.mean) : 0;
  return s;
}

double median_noise_pct(const std::vector<double>& values) {
  if (values.size() < 2) return INFINITY;
  const double median = median_of(values);
  if (median == 0) return INFINITY;
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double v : values) deviations.push_back(std::fabs(v - median));
  const double robust_sigma = 1.4826 * median_of(std::move(deviations));
  return 100.0 * 1.2533 * robust_sigma / std::sqrt(static_cast<double>(values.size())) /
         std::fabs(median);
}

double halves_apart_pct(const std::vector<double>& values) {
  if (values.size() < 4) return 0;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  const double median = median_of(values);
  const double first = median_of(std::vector<double>(values.begin(), middle));
  const double second = median_of(std::vector<double>(middle, values.end()));
  if (median == 0) return first == second ? 0 : INFINITY;
  return 100.0 * std::fabs(first - second) / std::fabs(median);
}

StopReason should_stop(const StopRule& rule, const StopState& state) {
  const int n = static_cast<int>(state.samples.size());
  if (n >= rule.max_samples) return StopReason::kSampleLimit;
  if (n >= rule.min_samples && state.elapsed_s >= rule.max_time_s) return StopReason::kTimeLimit;
  if (n < rule.min_samples || state.measured_s < rule.min_time_s) return StopReason::kContinue;
  if (!(median_noise_pct(state.samples) <= rule.max_noise_pct)) return StopReason::kContinue;
  const bool settling = rule.max_halves_apart_pct > 0 && state.elapsed_s < rule.steady_window_s;
  if (settling && !(halves_apart_pct(state.samples) <= rule.max_halves_apart_pct)) return StopReason::kContinue;
  return StopReason::kNoiseReached;
}

const char* to_string(StopReason reason) {
  switch (reason) {
    case StopReason::kContinue: return "continue";
    case StopReason::kNoiseReached: return "noise_target";
    case StopReason::kTimeLimit: return "time_limit";
    case StopReason::kSampleLimit: return "sample_limit";
  }
  return "?";
}

}  // namespace gpubench
