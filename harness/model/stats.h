#pragma once
// Sample statistics and the stopping rule of DESIGN.md ("Measurement rules").
#include <cstddef>
#include <vector>

namespace gpubench {

struct Summary {
  double median = 0, mean = 0, min = 0, max = 0, stddev = 0, cv_pct = 0;
  std::size_t samples = 0;
};

// Total on every input: a NaN among the values makes every figure of the summary NaN (samples
// still counts it), since a NaN has no place in an order; infinities are ordered, so the median
// and extremes stay defined while the mean and spread follow IEEE arithmetic (inf or NaN), as
// they do for finite values whose sum or squares overflow. No values: every figure 0.
Summary summarize(const std::vector<double>& values);
double median_of(std::vector<double> values);  // NaN when a value is NaN, 0 when there is none

// Relative standard error of the median, in percent: 1.2533 * robust sigma / sqrt(n) / median,
// with sigma taken from the median absolute deviation so that one outlier (a preempted sample)
// does not hold the run open. This is the "noise" the stopping rule drives under its target.
// Infinite with fewer than two values or a median of 0; NaN when a value is NaN.
double median_noise_pct(const std::vector<double>& values);

// How far apart the medians of the first and the second half of the values are, in percent of
// the median of all: a rate still moving while the samples were taken (a power-capped GPU's clock
// dithering around its limit, slower than the samples) shows here and not in the noise, which
// takes the samples as independent. 0 with fewer than four values, NaN when a value is NaN.
double halves_apart_pct(const std::vector<double>& values);

struct StopRule {
  int min_samples = 10;
  int max_samples = 1000;
  double min_time_s = 0.0;      // measured (device) time to accumulate before stopping
  double max_noise_pct = 0.5;   // stop once the median's noise is under this
  double max_time_s = 5.0;      // soft limit on wall time spent sampling one benchmark
  // Where above 0: for the first steady_window_s of sampling, the noise target stops it only
  // once the halves' medians are within this many percent (halves_apart_pct).
  double max_halves_apart_pct = 0.0;
  double steady_window_s = 0.0;
};

struct StopState {
  std::vector<double> samples;  // seconds per sample
  double measured_s = 0;        // sum of samples
  double elapsed_s = 0;         // wall time since sampling began
};

enum class StopReason { kContinue, kNoiseReached, kTimeLimit, kSampleLimit };
StopReason should_stop(const StopRule& rule, const StopState& state);
const char* to_string(StopReason reason);

}  // namespace gpubench
