#pragma once
// Dependent-load latency: one thread follows a random cycle through a buffer, so each load's
// address comes from the previous load and nothing can overlap or prefetch it.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpubench::kernels {

// Node spacing: one node per 128-byte line, so consecutive loads never share a cache line.
constexpr std::size_t kChaseNodeBytes = 128;

// A random single cycle (Sattolo's algorithm) over the nodes of a `working_set_bytes` buffer,
// as the buffer's contents: at each node's first 8 bytes, the element index of the next node.
std::vector<std::uint64_t> make_chase_cycle(std::size_t working_set_bytes, std::uint64_t seed);
// Where `steps` loads starting at element 0 end, computed on the host.
std::uint64_t chase_on_host(const std::vector<std::uint64_t>& chain, std::uint64_t steps);

// One thread does `steps` dependent loads starting at the element index in *position (device
// memory) and leaves the index it reached there. Successive launches thus walk on around the
// cycle instead of re-walking its first `steps` nodes, which would fit in a cache however
// large the working set. `chain` may be device, pinned host or peer memory.
void launch_pointer_chase(const std::uint64_t* chain, std::uint64_t steps, std::uint64_t* position,
                          cudaStream_t stream);

}  // namespace gpubench::kernels
