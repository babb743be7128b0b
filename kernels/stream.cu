#include "kernels/stream.cuh"

#include <cmath>
#include <stdexcept>

#include "kernels/random_fill.cuh"

namespace gpubench::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;  // reductions: independent 16-byte loads in flight per thread
constexpr std::uint64_t kSeedA = 0xA11CE, kSeedB = 0xB0B, kSeedC = 0xC0FFEE;
constexpr double kScalar = 0.4;

template <typename T> struct Vector;
template <> struct Vector<float> { using type = float4; };
template <> struct Vector<double> { using type = double2; };
template <typename T> using vec_t = typename Vector<T>::type;

__device__ inline float4 vscale(float s, float4 x) { return {s * x.x, s * x.y, s * x.z, s * x.w}; }
__device__ inline double2 vscale(double s, double2 x) { return {s * x.x, s * x.y}; }
__device__ inline float4 vadd(float4 x, float4 y) { return {x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w}; }
__device__ inline double2 vadd(double2 x, double2 y) { return {x.x + y.x, x.y + y.y}; }
__device__ inline float4 vtriad(float s, float4 x, float4 y) {
  return {fmaf(s, y.x, x.x), fmaf(s, y.y, x.y), fmaf(s, y.z, x.z), fmaf(s, y.w, x.w)};
}
__device__ inline double2 vtriad(double s, double2 x, double2 y) { return {fma(s, y.x, x.x), fma(s, y.y, x.y)}; }
__device__ inline float4 vsplat(float s) { return {s, s, s, s}; }
__device__ inline double2 vsplat(double s) { return {s, s}; }
__device__ inline float vsum(float4 x) { return (x.x + x.y) + (x.z + x.w); }
__device__ inline double vsum(double2 x) { return x.x + x.y; }
__device__ inline float vdot(float4 x, float4 y) { return (x.x * y.x + x.y * y.y) + (x.z * y.z + x.w * y.w); }
__device__ inline double vdot(double2 x, double2 y) { return x.x * y.x + x.y * y.y; }

// The scalar form of each element-wise op: what the verification recomputes.
template <typename T>
__device__ inline T expected_element(StreamOp op, std::size_t i) {
  const T s = static_cast<T>(kScalar);
  switch (op) {
    case StreamOp::kCopy: return random_value<T>(kSeedA, i);
    case StreamOp::kScale: return s * random_value<T>(kSeedC, i);
    case StreamOp::kAdd: return random_value<T>(kSeedA, i) + random_value<T>(kSeedB, i);
    case StreamOp::kTriad: return fma(s, random_value<T>(kSeedC, i), random_value<T>(kSeedB, i));
    default: return s;  // write
  }
}

// Element-wise ops, one 16-byte vector per thread and a grid that covers the arrays once. On
// the H200 this beat persistent grid-stride loops with 2-8 loads in flight per thread by 3-8 %
// (4 GiB fp64 triad 4397 GB/s against 4105-4371): each block streams one contiguous tile, which
// keeps the DRAM access stream close to sequential.
template <typename T, StreamOp Op>
__global__ void __launch_bounds__(kThreads) elementwise_kernel(vec_t<T>* __restrict__ a, vec_t<T>* __restrict__ b,
                                                               vec_t<T>* __restrict__ c, std::size_t vectors) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= vectors) return;
  const T s = static_cast<T>(kScalar);
  if constexpr (Op == StreamOp::kCopy) c[i] = a[i];
  if constexpr (Op == StreamOp::kScale) b[i] = vscale(s, c[i]);
  if constexpr (Op == StreamOp::kAdd) c[i] = vadd(a[i], b[i]);
  if constexpr (Op == StreamOp::kTriad) a[i] = vtriad(s, b[i], c[i]);
  if constexpr (Op == StreamOp::kWrite) c[i] = vsplat(s);
}

template <typename T>
__device__ T block_sum(T value) {
  __shared__ T warp_sums[kThreads / 32];
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = value;
  __syncthreads();
  value = threadIdx.x < kThreads / 32 ? warp_sums[threadIdx.x] : T(0);
  if (threadIdx.x < 32)
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
  return value;
}

// Dot (a . b) or read (sum of a): per-block partial sums, then one block adds the partials.
template <typename T, bool kDot>
__global__ void __launch_bounds__(kThreads) reduce_kernel(const vec_t<T>* __restrict__ a,
                                                          const vec_t<T>* __restrict__ b, std::size_t vectors,
                                                          T* __restrict__ partials) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kThreads;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
  T sums[kUnroll] = {};
  for (; i + (kUnroll - 1) * stride < vectors; i += kUnroll * stride) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) sums[u] += kDot ? vdot(a[i + u * stride], b[i + u * stride]) : vsum(a[i + u * stride]);
  }
  for (; i < vectors; i += stride) sums[0] += kDot ? vdot(a[i], b[i]) : vsum(a[i]);
  T total = block_sum((sums[0] + sums[1]) + (sums[2] + sums[3]));
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

template <typename T>
__global__ void __launch_bounds__(kThreads) finish_sum_kernel(const T* __restrict__ partials, int count, T* result) {
  T sum = 0;
  for (int i = threadIdx.x; i < count; i += kThreads) sum += partials[i];
  sum = block_sum(sum);
  if (threadIdx.x == 0) *result = sum;
}

// Verification of element-wise outputs: counts elements that differ from the recomputation.
template <typename T>
__global__ void check_elementwise_kernel(StreamOp op, const T* out, std::size_t count, unsigned long long* bad) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long mismatches = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count; i += stride)
    mismatches += !(out[i] == expected_element<T>(op, i));
  if (mismatches) atomicAdd(bad, mismatches);
}

// Reference for dot/read in double precision from regenerated inputs, independent of the arrays.
template <typename T>
__global__ void reference_sum_kernel(bool dot, std::size_t count, double* sum) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  double local = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    const double x = random_value<T>(kSeedA, i);
    local += dot ? x * static_cast<double>(random_value<T>(kSeedB, i)) : x;
  }
  atomicAdd(sum, local);
}

// Resident blocks of the reduction kernel that fill the device once: its persistent grid.
template <typename T>
int reduce_blocks() {
  int device = 0, sms = 0, per_sm = 0;
  GPUBENCH_CUDA(cudaGetDevice(&device));
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  GPUBENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_kernel<T, true>, kThreads, 0));
  return sms * per_sm;
}

template <typename T, StreamOp Op>
void launch_elementwise(vec_t<T>* a, vec_t<T>* b, vec_t<T>* c, std::size_t vectors, cudaStream_t stream) {
  const auto blocks = static_cast<unsigned>((vectors + kThreads - 1) / kThreads);
  elementwise_kernel<T, Op><<<blocks, kThreads, 0, stream>>>(a, b, c, vectors);
}

}  // namespace

StreamOp parse_stream_op(const std::string& name) {
  if (name == "copy") return StreamOp::kCopy;
  if (name == "scale") return StreamOp::kScale;
  if (name == "add") return StreamOp::kAdd;
  if (name == "triad") return StreamOp::kTriad;
  if (name == "dot") return StreamOp::kDot;
  if (name == "read") return StreamOp::kRead;
  if (name == "write") return StreamOp::kWrite;
  throw std::invalid_argument("unknown stream op '" + name + "'");
}

int arrays_touched(StreamOp op) {
  switch (op) {
    case StreamOp::kAdd:
    case StreamOp::kTriad: return 3;
    case StreamOp::kRead:
    case StreamOp::kWrite: return 1;
    default: return 2;
  }
}

template <typename T>
StreamArrays<T>::StreamArrays(std::size_t bytes_per_array)
    : bytes_per_array_(bytes_per_array),
      elements_(bytes_per_array / sizeof(T)),
      a_(bytes_per_array),
      b_(bytes_per_array),
      c_(bytes_per_array),
      result_(sizeof(T)),
      scratch_(sizeof(double) + sizeof(unsigned long long)) {
  if (bytes_per_array % 16 != 0) throw std::invalid_argument("array bytes must be a multiple of 16");
  blocks_ = reduce_blocks<T>();
  partials_ = DeviceBuffer(static_cast<std::size_t>(blocks_) * sizeof(T));
}

template <typename T>
void StreamArrays<T>::prepare(StreamOp op, cudaStream_t stream) {
  fill_random(a_.as<T>(), elements_, kSeedA, stream);
  fill_random(b_.as<T>(), elements_, kSeedB, stream);
  fill_random(c_.as<T>(), elements_, kSeedC, stream);
  switch (op) {
    case StreamOp::kCopy:
    case StreamOp::kAdd:
    case StreamOp::kWrite: poison(c_.get(), bytes_per_array_, stream); break;
    case StreamOp::kScale: poison(b_.get(), bytes_per_array_, stream); break;
    case StreamOp::kTriad: poison(a_.get(), bytes_per_array_, stream); break;
    default: poison(result_.get(), sizeof(T), stream); break;
  }
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
}

template <typename T>
void StreamArrays<T>::run(StreamOp op, cudaStream_t stream) const {
  using V = vec_t<T>;
  const std::size_t vectors = bytes_per_array_ / sizeof(V);
  V *a = a_.as<V>(), *b = b_.as<V>(), *c = c_.as<V>();
  switch (op) {
    case StreamOp::kCopy: launch_elementwise<T, StreamOp::kCopy>(a, b, c, vectors, stream); break;
    case StreamOp::kScale: launch_elementwise<T, StreamOp::kScale>(a, b, c, vectors, stream); break;
    case StreamOp::kAdd: launch_elementwise<T, StreamOp::kAdd>(a, b, c, vectors, stream); break;
    case StreamOp::kTriad: launch_elementwise<T, StreamOp::kTriad>(a, b, c, vectors, stream); break;
    case StreamOp::kWrite: launch_elementwise<T, StreamOp::kWrite>(a, b, c, vectors, stream); break;
    case StreamOp::kDot:
    case StreamOp::kRead:
      if (op == StreamOp::kDot)
        reduce_kernel<T, true><<<blocks_, kThreads, 0, stream>>>(a, b, vectors, partials_.as<T>());
      else
        reduce_kernel<T, false><<<blocks_, kThreads, 0, stream>>>(a, b, vectors, partials_.as<T>());
      GPUBENCH_CHECK_LAUNCH();
      finish_sum_kernel<T><<<1, kThreads, 0, stream>>>(partials_.as<T>(), blocks_, result_.as<T>());
      break;
  }
  GPUBENCH_CHECK_LAUNCH();
}

template <typename T>
std::string StreamArrays<T>::check(StreamOp op, cudaStream_t stream) const {
  auto* reference = scratch_.as<double>();
  auto* bad = reinterpret_cast<unsigned long long*>(reference + 1);
  GPUBENCH_CUDA(cudaMemsetAsync(scratch_.get(), 0, scratch_.bytes(), stream));
  if (op == StreamOp::kDot || op == StreamOp::kRead) {
    reference_sum_kernel<T><<<1024, 256, 0, stream>>>(op == StreamOp::kDot, elements_, reference);
    GPUBENCH_CHECK_LAUNCH();
    double expected = 0;
    T got = 0;
    GPUBENCH_CUDA(cudaMemcpyAsync(&expected, reference, sizeof expected, cudaMemcpyDeviceToHost, stream));
    GPUBENCH_CUDA(cudaMemcpyAsync(&got, result_.get(), sizeof got, cudaMemcpyDeviceToHost, stream));
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));
    // fp32 accumulates thousands of terms per thread before the tree: allow for that rounding.
    const double tolerance = sizeof(T) == 4 ? 1e-4 : 1e-10;
    const double error = std::fabs(static_cast<double>(got) - expected) / std::fabs(expected);
    if (!(error <= tolerance))
      return "sum " + std::to_string(static_cast<double>(got)) + " differs from reference " +
             std::to_string(expected) + " by relative " + std::to_string(error);
    return {};
  }
  const T* out = op == StreamOp::kScale ? b_.as<T>() : op == StreamOp::kTriad ? a_.as<T>() : c_.as<T>();
  check_elementwise_kernel<T><<<4096, 256, 0, stream>>>(op, out, elements_, bad);
  GPUBENCH_CHECK_LAUNCH();
  unsigned long long mismatches = 0;
  GPUBENCH_CUDA(cudaMemcpyAsync(&mismatches, bad, sizeof mismatches, cudaMemcpyDeviceToHost, stream));
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  if (mismatches) return std::to_string(mismatches) + " of " + std::to_string(elements_) + " elements wrong";
  return {};
}

template class StreamArrays<float>;
template class StreamArrays<double>;

}  // namespace gpubench::kernels
