// selftest: families that misbehave on purpose, to test fault isolation. Hidden from `all`.
#include <chrono>
#include <csignal>
#include <thread>

#include "harness/core/gpubench.h"

namespace {

__global__ void spin_forever_kernel(volatile int* flag) {
  while (*flag == 0) {
  }
}

__global__ void write_out_of_bounds_kernel(int* data) {
  // Far beyond any allocation: an illegal address, which poisons the context.
  data[std::size_t{1} << 40] = 1;
}

void pass(gpubench::State& s) {
  s.measure_host([] { std::this_thread::sleep_for(std::chrono::microseconds(100)); });
  s.verify(true, "nothing to check");
}

const auto& cpu_faults = gpubench::family("selftest/cpu_faults")
                             .describe("CPU-only: one healthy case, one that hangs, one that crashes, one healthy after")
                             .axis_str("fault", {"none", "hang", "crash", "none_after"})
                             .cpu_only()
                             .hidden()
                             .run([](gpubench::State& s) {
                               const std::string fault = s.get_str("fault");
                               if (fault == "hang") std::this_thread::sleep_for(std::chrono::hours(1));
                               if (fault == "crash") std::raise(SIGSEGV);
                               pass(s);
                             });

// Benchmarks that take a while without misbehaving: what a signal interrupts in the tests.
const auto& cpu_sleep = gpubench::family("selftest/cpu_sleep")
                            .describe("CPU-only: sleeps `seconds`, then measures like the healthy case")
                            .axis_int("seconds", {1, 60})
                            .axis_str("copy", {"a", "b", "c"})
                            .cpu_only()
                            .hidden()
                            .run([](gpubench::State& s) {
                              std::this_thread::sleep_for(std::chrono::seconds(s.get_int("seconds")));
                              pass(s);
                            });

const auto& gpu_faults =
    gpubench::family("selftest/gpu_faults")
        .describe("A healthy kernel, one that spins forever, one that writes out of bounds, a healthy one after")
        .axis_str("fault", {"none", "spin", "oob_write", "none_after"})
        .hidden()
        .run([](gpubench::State& s) {
          const std::string fault = s.get_str("fault");
          gpubench::DeviceBuffer flag(sizeof(int));
          GPUBENCH_CUDA(cudaMemsetAsync(flag.get(), 0, sizeof(int), s.stream()));
          if (fault == "spin") {
            spin_forever_kernel<<<1, 1, 0, s.stream()>>>(flag.as<int>());
            GPUBENCH_CHECK_LAUNCH();
          }
          if (fault == "oob_write") {
            write_out_of_bounds_kernel<<<1, 1, 0, s.stream()>>>(flag.as<int>());
            GPUBENCH_CHECK_LAUNCH();
          }
          GPUBENCH_CUDA(cudaStreamSynchronize(s.stream()));
          s.measure([&](cudaStream_t stream) { GPUBENCH_CUDA(cudaMemsetAsync(flag.get(), 1, sizeof(int), stream)); });
          int value = 0;
          GPUBENCH_CUDA(cudaMemcpy(&value, flag.get(), sizeof value, cudaMemcpyDeviceToHost));
          s.verify(value == 0x01010101, "memset result");
        });

}  // namespace
