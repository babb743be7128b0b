#pragma once
// DESIGN.md, "Measurement rules": no ok figure exceeds the physical peak it is measured against.
// A rate above 1.05 x its peak is a measurement error (a cache serving what should come over a
// link, bytes miscounted, a timer around the wrong work), never a result. The run applies this
// when a benchmark finishes; every verdict applies it again to every file it reads
// (harness/analysis/judgeable.h), so an impossible figure in an older file is failed there too.
#include <optional>
#include <string>

namespace gpubench {

// Above this fraction of its peak a figure is impossible (5 % covers the datasheet's rounding
// and clock boost over the nominal rate).
constexpr double kPlausiblePeakFraction = 1.05;

// Why `value` cannot be a measurement of something whose peak is `peak` (same unit), or nullopt
// when it can (or when no peak is known: peak <= 0). Only rates are checked: a figure where
// lower is better has no such ceiling.
std::optional<std::string> implausible_figure(double value, double peak, bool higher_is_better = true);

}  // namespace gpubench
