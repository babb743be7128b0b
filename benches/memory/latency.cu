// memory/latency: dependent-load latency across working-set sizes, showing L1, L2 and HBM.
#include "harness/core/gpubench.h"
#include "kernels/pointer_chase.cuh"

namespace {

// Enough loads that a sample lasts well beyond the kernel's start-up even at L1 latency.
constexpr std::uint64_t kLoadsPerSample = 1 << 16;

const auto& latency_family =
    gpubench::family("memory/latency")
        .describe("Pointer chase by one thread over a random cycle of 128-byte-spaced nodes in device memory: "
                  "ns per dependent load. Small working sets stay in L1, middling ones in L2, large ones show "
                  "HBM latency including TLB misses, as random access does")
        .axis_pow2("working_set_bytes", 12, 30, 2, {1 << 28})
        .per_device()
        .run([](gpubench::State& s) {
          const auto bytes = static_cast<std::size_t>(s.get_int("working_set_bytes"));
          const auto chain = gpubench::kernels::make_chase_cycle(bytes, 42);
          gpubench::DeviceBuffer device_chain(bytes), position(sizeof(std::uint64_t));
          auto* index = position.as<std::uint64_t>();
          GPUBENCH_CUDA(cudaMemcpyAsync(device_chain.get(), chain.data(), bytes, cudaMemcpyHostToDevice, s.stream()));
          GPUBENCH_CUDA(cudaMemsetAsync(index, 0, sizeof(std::uint64_t), s.stream()));
          s.report_time_as("latency_ns", "ns", 1e9 / kLoadsPerSample);
          s.measure([&](cudaStream_t stream) {
            gpubench::kernels::launch_pointer_chase(device_chain.as<std::uint64_t>(), kLoadsPerSample, index, stream);
          });
          // Verify with a fresh walk from the start of the cycle, checked against the host.
          GPUBENCH_CUDA(cudaMemsetAsync(index, 0, sizeof(std::uint64_t), s.stream()));
          gpubench::kernels::launch_pointer_chase(device_chain.as<std::uint64_t>(), kLoadsPerSample, index, s.stream());
          std::uint64_t got = ~0ull;
          GPUBENCH_CUDA(cudaMemcpyAsync(&got, index, sizeof got, cudaMemcpyDeviceToHost, s.stream()));
          GPUBENCH_CUDA(cudaStreamSynchronize(s.stream()));
          const std::uint64_t expected = gpubench::kernels::chase_on_host(chain, kLoadsPerSample);
          s.verify(got == expected, "chase ended at element " + std::to_string(got) + ", expected " +
                                        std::to_string(expected));
        });

}  // namespace
