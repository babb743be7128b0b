#include "kernels/pointer_chase.cuh"

#include <random>

#include "harness/core/cuda_check.h"

namespace gpubench::kernels {
namespace {

__global__ void pointer_chase_kernel(const std::uint64_t* __restrict__ chain, std::uint64_t steps,
                                     std::uint64_t* position) {
  std::uint64_t index = *position;
  for (std::uint64_t i = 0; i < steps; ++i) index = chain[index];
  *position = index;
}

}  // namespace

std::vector<std::uint64_t> make_chase_cycle(std::size_t working_set_bytes, std::uint64_t seed) {
  const std::size_t stride = kChaseNodeBytes / sizeof(std::uint64_t);
  const std::size_t nodes = working_set_bytes / kChaseNodeBytes;
  std::vector<std::uint64_t> order(nodes);
  for (std::size_t i = 0; i < nodes; ++i) order[i] = i;
  std::mt19937_64 random(seed);
  for (std::size_t i = nodes - 1; i > 0; --i) {  // Sattolo: one cycle through every node
    std::uniform_int_distribution<std::size_t> pick(0, i - 1);
    std::swap(order[i], order[pick(random)]);
  }
  // Fill the rest of each line with non-zero junk rather than leaving zeros.
  std::vector<std::uint64_t> chain(working_set_bytes / sizeof(std::uint64_t), 0x5A5A5A5A5A5A5A5Aull);
  for (std::size_t i = 0; i < nodes; ++i) chain[i * stride] = order[i] * stride;
  return chain;
}

std::uint64_t chase_on_host(const std::vector<std::uint64_t>& chain, std::uint64_t steps) {
  std::uint64_t index = 0;
  for (std::uint64_t i = 0; i < steps; ++i) index = chain[index];
  return index;
}

void launch_pointer_chase(const std::uint64_t* chain, std::uint64_t steps, std::uint64_t* position,
                          cudaStream_t stream) {
  pointer_chase_kernel<<<1, 1, 0, stream>>>(chain, steps, position);
  GPUBENCH_CHECK_LAUNCH();
}

}  // namespace gpubench::kernels
