#pragma once
// The host clock every measured region, warm-up and wait reads: steady (never set back), in
// seconds from an arbitrary epoch. Only differences between two readings mean anything.
#include <time.h>

#include <chrono>
#include <limits>

namespace gpubench {

inline double host_now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The CPU time every thread of this process has used (CLOCK_PROCESS_CPUTIME_ID), in seconds;
// NaN where the clock cannot be read, so that no made-up figure passes for it.
inline double process_cpu_s() {
  timespec now{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now) != 0) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

}  // namespace gpubench
