#include "kernels/conv_reference.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <vector>

#include "harness/core/cuda_check.h"
#include "kernels/random_fill.cuh"

namespace gpubench::kernels {
namespace {

constexpr int kThreads = 256;

__device__ double to_double(float v) { return v; }
__device__ double to_double(__half v) { return __half2float(v); }
__device__ double to_double(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__device__ T from_float(float v);
template <>
__device__ float from_float<float>(float v) { return v; }
template <>
__device__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

// Physical index of logical element (outer, channel, s0, s1, s2) of a tensor with `channels`
// channels and spatial `extent`, channels first or last.
__device__ std::int64_t tensor_index(bool channels_last, std::int64_t outer, std::int64_t channel,
                                     std::int64_t channels, const std::int64_t* s, const std::int64_t* extent) {
  if (channels_last) return (((outer * extent[0] + s[0]) * extent[1] + s[1]) * extent[2] + s[2]) * channels + channel;
  return (((outer * channels + channel) * extent[0] + s[0]) * extent[1] + s[1]) * extent[2] + s[2];
}

// Logical element `index` of an (outer, channels, extent) tensor, in that order.
__device__ void split_index(std::int64_t index, std::int64_t channels, const std::int64_t* extent, std::int64_t* outer,
                            std::int64_t* channel, std::int64_t* s) {
  s[2] = index % extent[2];
  index /= extent[2];
  s[1] = index % extent[1];
  index /= extent[1];
  s[0] = index % extent[0];
  index /= extent[0];
  *channel = index % channels;
  *outer = index / channels;
}

struct SampleOutcome {
  double got, ref, ratio;
  std::int64_t element;
  int ok;
};

template <typename T>
struct ConvTerms {
  const ConvGeometry& g;
  const T* x;
  const T* w;
  const T* y;
  std::int64_t cg, kg;

  __device__ double x_at(std::int64_t n, std::int64_t c, const std::int64_t* s) const {
    return to_double(x[tensor_index(g.channels_last, n, c, g.c, s, g.in)]);
  }
  __device__ double w_at(std::int64_t k, std::int64_t c, const std::int64_t* s) const {
    return to_double(w[tensor_index(g.channels_last, k, c, cg, s, g.filter)]);
  }
  __device__ double y_at(std::int64_t n, std::int64_t k, const std::int64_t* s) const {
    return to_double(y[tensor_index(g.channels_last, n, k, g.k, s, g.out)]);
  }
};

// One block per sampled point: the block's threads share the point's reduction.
template <typename T>
__global__ void conv_reference_kernel(ConvDirection direction, ConvGeometry g, const T* x, const T* w, const T* y,
                                      double tolerance, std::int64_t samples, std::uint64_t seed,
                                      SampleOutcome* outcomes) {
  __shared__ double sums[kThreads], magnitudes[kThreads];
  const ConvTerms<T> terms{g, x, w, y, g.c / g.groups, g.k / g.groups};
  const std::int64_t sample = blockIdx.x;
  // The written buffer and its logical shape.
  const std::int64_t* extent = direction == ConvDirection::kForward ? g.out
                               : direction == ConvDirection::kBackwardData ? g.in : g.filter;
  const std::int64_t channels = direction == ConvDirection::kForward ? g.k
                                : direction == ConvDirection::kBackwardData ? g.c : terms.cg;
  const std::int64_t outers = direction == ConvDirection::kBackwardFilter ? g.k : g.n;
  const std::int64_t total = outers * channels * extent[0] * extent[1] * extent[2];
  const std::uint64_t draw = (std::uint64_t{hash32(seed, 2 * sample)} << 32) | hash32(seed, 2 * sample + 1);
  const std::int64_t element = total <= samples ? sample : static_cast<std::int64_t>(draw % total);
  std::int64_t outer, channel, point[3];
  split_index(element, channels, extent, &outer, &channel, point);

  const std::int64_t filter_volume = g.filter[0] * g.filter[1] * g.filter[2];
  const std::int64_t out_volume = g.out[0] * g.out[1] * g.out[2];
  const std::int64_t domain = direction == ConvDirection::kForward ? terms.cg * filter_volume
                              : direction == ConvDirection::kBackwardData ? terms.kg * filter_volume
                                                                          : g.n * out_volume;
  double sum = 0, magnitude = 0;
  for (std::int64_t i = threadIdx.x; i < domain; i += blockDim.x) {
    std::int64_t a, b, s[3], other[3];  // a: the reduced channel or image; s: filter or output point
    split_index(i, direction == ConvDirection::kBackwardFilter ? 1 : (direction == ConvDirection::kForward ? terms.cg : terms.kg),
                direction == ConvDirection::kBackwardFilter ? g.out : g.filter, &a, &b, s);
    const std::int64_t reduced = direction == ConvDirection::kBackwardFilter ? a : b;
    bool inside = true;
    double term = 0;
    if (direction == ConvDirection::kForward) {  // y(n, k, p) = sum x(n, c, p*stride - pad + f*dil) w(k, c', f)
      for (int d = 0; d < 3; ++d) {
        other[d] = point[d] * g.stride[d] - g.pad[d] + s[d] * g.dilation[d];
        inside = inside && other[d] >= 0 && other[d] < g.in[d];
      }
      if (inside) term = terms.x_at(outer, channel / terms.kg * terms.cg + reduced, other) * terms.w_at(channel, reduced, s);
    } else if (direction == ConvDirection::kBackwardData) {  // dx(n, c, h) = sum dy(n, k, p) w(k, c', f), h = p*stride - pad + f*dil
      for (int d = 0; d < 3; ++d) {
        const std::int64_t offset = point[d] + g.pad[d] - s[d] * g.dilation[d];
        other[d] = offset / g.stride[d];
        inside = inside && offset >= 0 && offset % g.stride[d] == 0 && other[d] < g.out[d];
      }
      const std::int64_t k = channel / terms.cg * terms.kg + reduced;
      if (inside) term = terms.y_at(outer, k, other) * terms.w_at(k, channel % terms.cg, s);
    } else {  // dw(k, c', f) = sum over n, p of dy(n, k, p) x(n, c, p*stride - pad + f*dil)
      for (int d = 0; d < 3; ++d) {
        other[d] = s[d] * g.stride[d] - g.pad[d] + point[d] * g.dilation[d];
        inside = inside && other[d] >= 0 && other[d] < g.in[d];
      }
      if (inside) term = terms.y_at(reduced, outer, s) * terms.x_at(reduced, outer / terms.kg * terms.cg + channel, other);
    }
    sum += term;
    magnitude += fabs(term);
  }
  sums[threadIdx.x] = sum;
  magnitudes[threadIdx.x] = magnitude;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      sums[threadIdx.x] += sums[threadIdx.x + half];
      magnitudes[threadIdx.x] += magnitudes[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  const T* written = direction == ConvDirection::kForward ? y : direction == ConvDirection::kBackwardData ? x : w;
  const std::int64_t physical = tensor_index(g.channels_last, outer, channel, channels, point, extent);
  const double got = to_double(written[physical]);
  const double error = fabs(got - sums[0]);
  const double bound = tolerance * magnitudes[0];
  SampleOutcome& out = outcomes[sample];
  out.got = got;
  out.ref = sums[0];
  out.element = element;
  out.ok = isfinite(got) && error <= bound;
  out.ratio = bound > 0 ? error / bound : (error == 0 ? 0.0 : INFINITY);
}

template <typename T>
__global__ void fill_signed_kernel(T* data, std::int64_t count, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::uint32_t bits = hash32(seed, static_cast<std::uint64_t>(i));
    const float magnitude = 0.25f + 0.75f * static_cast<float>(bits >> 1) * 4.656612873077393e-10f;
    data[i] = from_float<T>((bits & 1) ? -magnitude : magnitude);
  }
}

template <typename T>
void launch_check(ConvDirection direction, const ConvGeometry& g, const ConvBuffers& b, double tolerance,
                  std::int64_t samples, std::uint64_t seed, SampleOutcome* outcomes, cudaStream_t stream) {
  conv_reference_kernel<T><<<static_cast<unsigned>(samples), kThreads, 0, stream>>>(
      direction, g, static_cast<const T*>(b.x), static_cast<const T*>(b.w), static_cast<const T*>(b.y), tolerance,
      samples, seed, outcomes);
  GPUBENCH_CUDA(cudaGetLastError());
}

std::int64_t volume(const std::int64_t* extent) { return extent[0] * extent[1] * extent[2]; }

}  // namespace

std::int64_t conv_x_elements(const ConvGeometry& g) { return g.n * g.c * volume(g.in); }
std::int64_t conv_w_elements(const ConvGeometry& g) { return g.k * (g.c / g.groups) * volume(g.filter); }
std::int64_t conv_y_elements(const ConvGeometry& g) { return g.n * g.k * volume(g.out); }

void fill_conv_signed(void* data, std::int64_t count, ConvElement element, std::uint64_t seed, cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>(std::min<std::int64_t>((count + 255) / 256, 65536));
  switch (element) {
    case ConvElement::kFloat: fill_signed_kernel<<<blocks, 256, 0, stream>>>(static_cast<float*>(data), count, seed); break;
    case ConvElement::kHalf: fill_signed_kernel<<<blocks, 256, 0, stream>>>(static_cast<__half*>(data), count, seed); break;
    case ConvElement::kBfloat16:
      fill_signed_kernel<<<blocks, 256, 0, stream>>>(static_cast<__nv_bfloat16*>(data), count, seed);
      break;
  }
  GPUBENCH_CUDA(cudaGetLastError());
}

ConvCheck check_conv_sampled(ConvDirection direction, const ConvGeometry& g, const ConvBuffers& buffers,
                             ConvElement element, double tolerance, std::int64_t samples, std::uint64_t seed,
                             cudaStream_t stream) {
  const std::int64_t written = direction == ConvDirection::kForward        ? conv_y_elements(g)
                               : direction == ConvDirection::kBackwardData ? conv_x_elements(g)
                                                                           : conv_w_elements(g);
  samples = std::min(samples, written);
  SampleOutcome* device_outcomes = nullptr;
  GPUBENCH_CUDA(cudaMallocAsync(&device_outcomes, sizeof(SampleOutcome) * samples, stream));
  switch (element) {
    case ConvElement::kFloat: launch_check<float>(direction, g, buffers, tolerance, samples, seed, device_outcomes, stream); break;
    case ConvElement::kHalf: launch_check<__half>(direction, g, buffers, tolerance, samples, seed, device_outcomes, stream); break;
    case ConvElement::kBfloat16:
      launch_check<__nv_bfloat16>(direction, g, buffers, tolerance, samples, seed, device_outcomes, stream);
      break;
  }
  std::vector<SampleOutcome> outcomes(static_cast<std::size_t>(samples));
  GPUBENCH_CUDA(cudaMemcpyAsync(outcomes.data(), device_outcomes, sizeof(SampleOutcome) * samples,
                                cudaMemcpyDeviceToHost, stream));
  GPUBENCH_CUDA(cudaFreeAsync(device_outcomes, stream));
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  ConvCheck check;
  check.checked = samples;
  for (const auto& o : outcomes) {
    check.worst_ratio = std::isnan(o.ratio) ? INFINITY : std::max(check.worst_ratio, o.ratio);
    if (o.ok) continue;
    if (check.failed++ == 0)
      check.first_failure = "element " + std::to_string(o.element) + ": got " + std::to_string(o.got) +
                            ", reference " + std::to_string(o.ref);
  }
  return check;
}

}  // namespace gpubench::kernels
