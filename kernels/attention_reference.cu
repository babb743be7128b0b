#include "kernels/attention_reference.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "harness/core/cuda_check.h"
#include "kernels/attention_device.cuh"
#include "kernels/random_fill.cuh"

namespace gpubench::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxHeadDim = 256;

// One block per sampled row. `scratch` holds seq floats per sample (the row's scores, then its
// unnormalised probabilities); `out` receives, per sample, head_dim triples (got, ref, Σ p|v|).
template <typename T>
__global__ void reference_rows_kernel(AttentionProblem p, const T* q, const T* k, const T* v, const T* o,
                                      const std::int64_t* rows, float* scratch, float* out) {
  __shared__ float q_row[kMaxHeadDim];
  const std::int64_t row = rows[blockIdx.x];
  const std::int64_t head = row / p.seq, i = row % p.seq;
  const std::int64_t kept = p.causal ? i + 1 : p.seq;
  const T* k_head = k + head * p.seq * p.head_dim;
  const T* v_head = v + head * p.seq * p.head_dim;
  float* scores = scratch + static_cast<std::int64_t>(blockIdx.x) * p.seq;
  for (std::int64_t d = threadIdx.x; d < p.head_dim; d += kThreads) q_row[d] = to_float(q[row * p.head_dim + d]);
  __syncthreads();
  float local_max = -INFINITY;
  for (std::int64_t j = threadIdx.x; j < kept; j += kThreads) {
    float dot = 0;
    for (std::int64_t d = 0; d < p.head_dim; ++d) dot += q_row[d] * to_float(k_head[j * p.head_dim + d]);
    scores[j] = dot * p.scale;
    local_max = fmaxf(local_max, scores[j]);
  }
  const float row_max = block_reduce<kThreads>(local_max, true);
  float local_sum = 0;
  for (std::int64_t j = threadIdx.x; j < kept; j += kThreads) {
    scores[j] = expf(scores[j] - row_max);
    local_sum += scores[j];
  }
  const float sum = block_reduce<kThreads>(local_sum, false);  // its __syncthreads also publishes scores
  for (std::int64_t d = threadIdx.x; d < p.head_dim; d += kThreads) {
    float acc = 0, magnitude = 0;
    for (std::int64_t j = 0; j < kept; ++j) {
      const float value = to_float(v_head[j * p.head_dim + d]);
      acc += scores[j] * value;
      magnitude += scores[j] * fabsf(value);
    }
    float* triple = out + (static_cast<std::int64_t>(blockIdx.x) * p.head_dim + d) * 3;
    triple[0] = to_float(o[row * p.head_dim + d]);
    triple[1] = acc / sum;
    triple[2] = magnitude / sum;
  }
}

}  // namespace

bool row_passes(const float* triples, std::int64_t head_dim, const AttentionTolerance& tolerance, double& row_l2,
                std::string& why) {
  double error2 = 0, ref2 = 0;
  for (std::int64_t d = 0; d < head_dim; ++d) {
    const double got = triples[3 * d], ref = triples[3 * d + 1], magnitude = triples[3 * d + 2];
    const double error = std::fabs(got - ref);
    if (!(error <= tolerance.element * magnitude)) {  // NaN fails here
      why = "d " + std::to_string(d) + ": got " + std::to_string(got) + ", reference " + std::to_string(ref);
      row_l2 = std::isfinite(error) ? error : INFINITY;
      return false;
    }
    error2 += error * error;
    ref2 += ref * ref;
  }
  row_l2 = ref2 > 0 ? std::sqrt(error2 / ref2) : std::sqrt(error2);
  if (row_l2 <= tolerance.row_l2) return true;
  why = "relative L2 error " + std::to_string(row_l2);
  return false;
}

AttentionCheck check_attention_sampled(const AttentionProblem& problem, const void* q, const void* k, const void* v,
                                       const void* o, const AttentionTolerance& tolerance, std::int64_t samples,
                                       std::uint64_t seed, cudaStream_t stream) {
  if (problem.head_dim > kMaxHeadDim) throw std::invalid_argument("check_attention_sampled: head_dim over 256");
  const std::int64_t total_rows = problem.heads_total * problem.seq;
  samples = std::min(samples, total_rows);
  std::vector<std::int64_t> rows(static_cast<std::size_t>(samples));
  for (std::int64_t s = 0; s < samples; ++s) rows[s] = static_cast<std::int64_t>(hash32(seed, s) % total_rows);
  if (samples > 1) rows[1] = total_rows - 1;  // the last row: the longest causal row of the last head
  if (samples > 0) rows[0] = 0;               // the first row: one unmasked key when causal
  DeviceBuffer device_rows(sizeof(std::int64_t) * rows.size());
  DeviceBuffer scratch(sizeof(float) * samples * problem.seq);
  DeviceBuffer out(sizeof(float) * samples * problem.head_dim * 3);
  GPUBENCH_CUDA(cudaMemcpyAsync(device_rows.get(), rows.data(), device_rows.bytes(), cudaMemcpyHostToDevice, stream));
  const dim3 grid(static_cast<unsigned>(samples));
  if (problem.kind == Float16Kind::kHalf)
    reference_rows_kernel<<<grid, kThreads, 0, stream>>>(
        problem, static_cast<const __half*>(q), static_cast<const __half*>(k), static_cast<const __half*>(v),
        static_cast<const __half*>(o), device_rows.as<std::int64_t>(), scratch.as<float>(), out.as<float>());
  else
    reference_rows_kernel<<<grid, kThreads, 0, stream>>>(
        problem, static_cast<const __nv_bfloat16*>(q), static_cast<const __nv_bfloat16*>(k),
        static_cast<const __nv_bfloat16*>(v), static_cast<const __nv_bfloat16*>(o), device_rows.as<std::int64_t>(),
        scratch.as<float>(), out.as<float>());
  GPUBENCH_CUDA(cudaGetLastError());
  std::vector<float> triples(static_cast<std::size_t>(samples * problem.head_dim * 3));
  GPUBENCH_CUDA(cudaMemcpyAsync(triples.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost, stream));
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  AttentionCheck check;
  for (std::int64_t s = 0; s < samples; ++s) {
    double row_l2 = 0;
    std::string why;
    const bool ok = row_passes(triples.data() + s * problem.head_dim * 3, problem.head_dim, tolerance, row_l2, why);
    ++check.rows_checked;
    check.worst_row_l2 = std::max(check.worst_row_l2, row_l2);
    if (!ok && check.rows_failed++ == 0)
      check.first_failure = "row " + std::to_string(rows[s] % problem.seq) + " of head " +
                            std::to_string(rows[s] / problem.seq) + ", " + why;
  }
  return check;
}

}  // namespace gpubench::kernels
