// selftest: a per-GPU family that misbehaves on purpose in node mode (--concurrent), to test
// that a lane that crashes or hangs stops its node group and the run goes on. Hidden from `all`.
#include <chrono>
#include <csignal>
#include <thread>

#include "harness/core/gpubench.h"

namespace {

// fault: none, hang, crash, none_after misbehave on every GPU before sampling; the gpu1_ ones
// on gpu1 alone, its lane's 5th sample in (crash_mid, hang_mid), so that the other lanes are
// sampling beside it when its worker dies or stops answering.
const auto& cpu_node_faults =
    gpubench::family("selftest/cpu_node_faults")
        .describe("CPU-only, once per selected GPU: healthy, hangs, crashes, healthy after, and gpu1 crashing or "
                  "hanging in the middle of its samples; for node mode's tests")
        .axis_str("fault", {"none", "hang", "crash", "gpu1_crash_mid", "gpu1_hang_mid", "none_after"})
        .per_device()
        .cpu_only()
        .hidden()
        .run([](gpubench::State& s) {
          const std::string fault = s.get_str("fault");
          if (fault == "hang") std::this_thread::sleep_for(std::chrono::hours(1));
          if (fault == "crash") std::raise(SIGSEGV);
          const bool misbehaves_mid = s.device() == 1 && fault.rfind("gpu1_", 0) == 0;
          int samples = 0;
          s.measure_host([&] {
            std::this_thread::sleep_for(std::chrono::microseconds(100));
            if (!misbehaves_mid || ++samples != 5) return;
            if (fault == "gpu1_crash_mid") std::raise(SIGSEGV);
            std::this_thread::sleep_for(std::chrono::hours(1));
          });
          s.verify(true, "nothing to check");
        });

}  // namespace
