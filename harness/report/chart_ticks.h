#pragma once
// Axis ticks and their text for the report's charts (svg_chart.h): ticks that cover the data,
// so that an axis drawn from its first tick to its last shows every figure.
#include <string>
#include <vector>

#include "harness/model/suite.h"

namespace gpubench {

// Tick positions: "nice" steps (1, 2, 5 x 10^k) covering [lo, hi], about `target` of them.
std::vector<double> linear_ticks(double lo, double hi, int target);
// Log-axis ticks from the last at or below lo to the first at or above hi: powers of two for
// bytes (every 2nd, 4th, 5th or 10th power, so that at most about seven labels fit), else
// powers of ten with 2 and 5 between them when under two decades. At least two; none when lo
// is not positive.
std::vector<double> log_ticks(double lo, double hi, AxisFormat format);
// A tick's text: "4 KiB", "1 GiB" for bytes; "0", "2.5", "1000", "1.5e+06" for numbers.
std::string tick_text(double value, AxisFormat format);

}  // namespace gpubench
