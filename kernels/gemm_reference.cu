#include "kernels/gemm_reference.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "harness/core/cuda_check.h"
#include "kernels/random_fill.cuh"

namespace gpubench::kernels {
namespace {

constexpr int kThreads = 256;

struct CheckCounters {
  unsigned long long checked, bad, max_error_bits, first_bad;  // first_bad: lowest linear index
};

__device__ double load(const void* data, GemmElement type, std::int64_t i) {
  switch (type) {
    case GemmElement::kFp32: return static_cast<const float*>(data)[i];
    case GemmElement::kFp16: return __half2float(static_cast<const __half*>(data)[i]);
    case GemmElement::kBf16: return __bfloat162float(static_cast<const __nv_bfloat16*>(data)[i]);
    case GemmElement::kFp8E4M3: return static_cast<float>(static_cast<const __nv_fp8_e4m3*>(data)[i]);
    case GemmElement::kFp8E5M2: return static_cast<float>(static_cast<const __nv_fp8_e5m2*>(data)[i]);
  }
  return NAN;
}

// Checks D(i, j) of one batch for every i of `lines` sampled rows (by_rows) or columns, each
// thread one element. line index s of `lines` over a dimension of `extent` is s * (extent-1) /
// (lines-1), which with lines == extent is every row.
__global__ void check_lines_kernel(GemmOperands g, std::int64_t batch, bool by_rows, std::int64_t lines,
                                   double tolerance, CheckCounters* counters) {
  const std::int64_t across = by_rows ? g.n : g.m;
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (t >= lines * across) return;
  const std::int64_t line = t / across, other = t % across;
  const std::int64_t extent = by_rows ? g.m : g.n;
  const std::int64_t picked = lines == 1 ? 0 : line * (extent - 1) / (lines - 1);
  const std::int64_t i = by_rows ? picked : other, j = by_rows ? other : picked;
  const std::int64_t a0 = batch * g.stride_a, b0 = batch * g.stride_b + j * g.ldb;
  double sum = 0;
  for (std::int64_t kk = 0; kk < g.k; ++kk) {
    const std::int64_t ai = a0 + (g.a_transposed ? i * g.lda + kk : kk * g.lda + i);
    sum = fma(load(g.a, g.a_type, ai), load(g.b, g.b_type, b0 + kk), sum);
  }
  const double expected = g.scale * sum;
  const double got = load(g.d, g.d_type, batch * g.stride_d + j * g.ldd + i);
  double error = fabs(got - expected) / fabs(expected);
  if (isnan(error)) error = INFINITY;
  atomicAdd(&counters->checked, 1ull);
  if (!(error <= tolerance)) {
    atomicAdd(&counters->bad, 1ull);
    atomicMin(&counters->first_bad, static_cast<unsigned long long>((batch * g.n + j) * g.m + i));
  }
  // Non-negative doubles order as their bit patterns do.
  atomicMax(&counters->max_error_bits, static_cast<unsigned long long>(__double_as_longlong(error)));
}

void launch_lines(const GemmOperands& g, std::int64_t batch, bool by_rows, std::int64_t lines, double tolerance,
                  CheckCounters* counters, cudaStream_t stream) {
  const std::int64_t threads = lines * (by_rows ? g.n : g.m);
  const auto blocks = static_cast<unsigned>((threads + kThreads - 1) / kThreads);
  check_lines_kernel<<<blocks, kThreads, 0, stream>>>(g, batch, by_rows, lines, tolerance, counters);
  GPUBENCH_CHECK_LAUNCH();
}

template <typename T>
__global__ void fill_kernel(T* data, std::size_t count, std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count; i += stride)
    data[i] = T(random_value<float>(seed, i));
}

template <typename T>
void fill(void* data, std::size_t count, std::uint64_t seed, cudaStream_t stream) {
  fill_kernel<T><<<1024, kThreads, 0, stream>>>(static_cast<T*>(data), count, seed);
  GPUBENCH_CHECK_LAUNCH();
}

}  // namespace

std::string GemmCheck::summary() const {
  std::string text = std::to_string(bad) + " of " + std::to_string(checked) + " checked elements wrong (max relative error " +
                     std::to_string(max_rel_error) + ")";
  if (bad > 0)
    text += ", first at batch " + std::to_string(first_bad_batch) + " row " + std::to_string(first_bad_row) + " column " +
            std::to_string(first_bad_col);
  return text;
}

GemmCheck check_gemm(const GemmOperands& operands, double tolerance, cudaStream_t stream) {
  DeviceBuffer scratch(sizeof(CheckCounters));
  auto* counters = scratch.as<CheckCounters>();
  const CheckCounters initial{0, 0, 0, ~0ull};
  GPUBENCH_CUDA(cudaMemcpyAsync(counters, &initial, sizeof initial, cudaMemcpyHostToDevice, stream));
  const bool whole = operands.m * operands.n <= kFullCheckElements;
  for (std::int64_t batch : {std::int64_t{0}, operands.batch - 1}) {
    if (whole) {
      launch_lines(operands, batch, true, operands.m, tolerance, counters, stream);
    } else {
      launch_lines(operands, batch, true, std::min(kSampledLines, operands.m), tolerance, counters, stream);
      launch_lines(operands, batch, false, std::min(kSampledLines, operands.n), tolerance, counters, stream);
    }
    if (operands.batch == 1) break;
  }
  CheckCounters result{};
  GPUBENCH_CUDA(cudaMemcpyAsync(&result, counters, sizeof result, cudaMemcpyDeviceToHost, stream));
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  GemmCheck check;
  check.checked = result.checked;
  check.bad = result.bad;
  std::memcpy(&check.max_rel_error, &result.max_error_bits, sizeof check.max_rel_error);
  if (result.bad > 0) {
    const auto index = static_cast<std::int64_t>(result.first_bad);
    check.first_bad_row = index % operands.m;
    check.first_bad_col = index / operands.m % operands.n;
    check.first_bad_batch = index / operands.m / operands.n;
  }
  return check;
}

void fill_gemm_operand(void* data, GemmElement type, std::size_t count, std::uint64_t seed, cudaStream_t stream) {
  switch (type) {
    case GemmElement::kFp32: fill<float>(data, count, seed, stream); break;
    case GemmElement::kFp16: fill<__half>(data, count, seed, stream); break;
    case GemmElement::kBf16: fill<__nv_bfloat16>(data, count, seed, stream); break;
    case GemmElement::kFp8E4M3: fill<__nv_fp8_e4m3>(data, count, seed, stream); break;
    case GemmElement::kFp8E5M2: fill<__nv_fp8_e5m2>(data, count, seed, stream); break;
  }
}

}  // namespace gpubench::kernels
