#pragma once
// The host clock every measured region, warm-up and wait reads: steady (never set back), in
// seconds from an arbitrary epoch. Only differences between two readings mean anything.
#include <chrono>

namespace gpubench {

inline double host_now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace gpubench
