// selftest: a per-GPU family that misbehaves on purpose in node mode (--concurrent), to test
// that a lane that crashes or hangs stops its node group and the run goes on. Hidden from `all`.
#include <chrono>
#include <csignal>
#include <thread>

#include "harness/core/gpubench.h"

namespace {

const auto& cpu_node_faults =
    gpubench::family("selftest/cpu_node_faults")
        .describe("CPU-only, once per selected GPU: healthy, hangs, crashes, healthy after; for node mode's tests")
        .axis_str("fault", {"none", "hang", "crash", "none_after"})
        .per_device()
        .cpu_only()
        .hidden()
        .run([](gpubench::State& s) {
          const std::string fault = s.get_str("fault");
          if (fault == "hang") std::this_thread::sleep_for(std::chrono::hours(1));
          if (fault == "crash") std::raise(SIGSEGV);
          s.measure_host([] { std::this_thread::sleep_for(std::chrono::microseconds(100)); });
          s.verify(true, "nothing to check");
        });

}  // namespace
