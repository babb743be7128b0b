#pragma once
// The compute of scenarios/host_feed: a kernel that consumes a batch of floats copied from the
// host with an adjustable number of FP32 FMAs per byte, and its check on the CPU.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gpubench::kernels {

// Each 16-byte element (four floats v) is worked by four independent chains of `chain` FMAs,
// acc = acc * v + c from 0: 8 x chain FLOP per element, chain / 2 FLOP per byte (the four adds
// that fold an element into the thread's sum are not counted). The thread's sum over its
// elements (grid-stride) is written to out[thread], so the work depends on every byte copied.
constexpr float kFeedC = 0.25f;
inline double feed_flop_per_element(int chain) { return 8.0 * chain; }

class FeedConsumer {
 public:
  explicit FeedConsumer(int device);  // one full wave of the kernel on `device`
  std::size_t threads() const { return static_cast<std::size_t>(grid_) * kBlock; }
  void launch(const float* batch, std::size_t elements, int chain, float* out, cudaStream_t stream) const;

 private:
  static constexpr int kBlock = 256;
  int grid_ = 0;
};

// Values in [0.5, 1): the chains settle without overflow, and no element is zero.
void fill_feed_batch_host(float* data, std::size_t floats, std::uint64_t seed);
// The sampled threads of `out` (device memory, `threads` of them) whose sum differs from the
// CPU's over `batch` (host memory); the CPU's fmaf rounds as the GPU's, so they match exactly.
std::size_t count_feed_mismatches(const float* out, std::size_t threads, const float* batch, std::size_t elements,
                                  int chain, std::size_t samples);

}  // namespace gpubench::kernels
