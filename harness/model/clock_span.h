#pragma once

namespace gpubench {

// A stretch of the host's steady clock in seconds (harness/core/host_clock.h): one sample's
// timed region in node mode. Every thread of a process reads the same clock, so the spans of
// different GPUs' threads compare directly.
struct ClockSpan {
  double start_s = 0, end_s = 0;
};

}  // namespace gpubench
