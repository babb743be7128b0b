#pragma once
// Reference convolution on a random sample of output points, for verifying cuDNN: each sampled
// point is recomputed in FP64 from the very inputs cuDNN read, and compared with tolerance x
// (sum of |terms|), so the bound scales with the terms rather than with a result that
// cancellation may have made small. NaN or infinity never passes.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace gpubench::kernels {

enum class ConvDirection { kForward, kBackwardData, kBackwardFilter };
enum class ConvElement { kFloat, kHalf, kBfloat16 };

// Shapes in 3-D (a 2-D convolution has depth 1); tensors NCDHW or NDHWC, filters KCTRS or KTRSC.
struct ConvGeometry {
  std::int64_t n = 1, c = 1, k = 1, groups = 1;
  std::int64_t in[3] = {1, 1, 1}, filter[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  std::int64_t stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dilation[3] = {1, 1, 1};
  bool channels_last = false;
};

// The three buffers of a convolution: x (or dx), w (or dw), y (or dy); the direction says which
// one was written.
struct ConvBuffers {
  const void* x = nullptr;
  const void* w = nullptr;
  const void* y = nullptr;
};

struct ConvCheck {
  std::int64_t checked = 0, failed = 0;
  double worst_ratio = 0;  // max |got - ref| / (tolerance x sum |terms|); above 1 fails
  std::string first_failure;
};

// Elements in each buffer.
std::int64_t conv_x_elements(const ConvGeometry& g);
std::int64_t conv_w_elements(const ConvGeometry& g);
std::int64_t conv_y_elements(const ConvGeometry& g);

// Fills `count` elements with values of magnitude [0.25, 1) and random sign, from (seed, index).
void fill_conv_signed(void* data, std::int64_t count, ConvElement element, std::uint64_t seed, cudaStream_t stream);

// Checks `samples` random points of the written buffer (all of them when it has fewer).
ConvCheck check_conv_sampled(ConvDirection direction, const ConvGeometry& g, const ConvBuffers& buffers,
                             ConvElement element, double tolerance, std::int64_t samples, std::uint64_t seed,
                             cudaStream_t stream);

}  // namespace gpubench::kernels
