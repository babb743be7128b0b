// selftest: a family that needs a run-time library no machine has, so that the path of a node
// without cuDNN or NCCL (every family needing it skipped with the loader's reason, the rest
// running) is tested on any machine.
#include <chrono>
#include <thread>

#include "harness/core/gpubench.h"
#include "harness/system/library.h"

namespace {

const bool registered = (gpubench::register_library("selftest_absent", {"libgpubench_selftest_absent.so.1"}), true);

const auto& needs_absent = gpubench::family("selftest/missing_library")
                               .describe("Needs a library that is never installed: always skipped with the reason")
                               .axis_str("case", {"only"})
                               .needs_library("selftest_absent")
                               .cpu_only()
                               .hidden()
                               .run([](gpubench::State& s) {
                                 s.measure_host([] { std::this_thread::sleep_for(std::chrono::microseconds(10)); });
                                 s.verify(true, "never runs");
                               });

}  // namespace
