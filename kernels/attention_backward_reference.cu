#include "kernels/attention_backward_reference.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "harness/core/cuda_check.h"
#include "kernels/attention_device.cuh"
#include "kernels/random_fill.cuh"

namespace gpubench::kernels {
namespace {

constexpr int kThreads = 256;  // also the tile of the summed index
constexpr int kMaxHeadDim = kThreads;

template <typename T>
struct Tensors {
  const T *q, *k, *v, *d_o, *dq, *dk, *dv;
};

// Per-row statistics of the checked heads: log-sum-exp of the scaled, masked scores and D.
struct RowStatistics {
  const std::int64_t* heads;  // the checked heads' indices
  float *lse, *delta;         // seq values per checked head
};

template <typename T>
__device__ float dot(const float* row, const T* other, std::int64_t n) {
  float sum = 0;
  for (std::int64_t d = 0; d < n; ++d) sum += row[d] * to_float(other[d]);
  return sum;
}

template <typename T>
__device__ void load_row(float* shared, const T* row, std::int64_t n) {
  for (std::int64_t d = threadIdx.x; d < n; d += kThreads) shared[d] = to_float(row[d]);
}

// One block per (query row i, checked head): max, log Σ exp and D_i = Σ_j P_ij (dO_i·V_j).
template <typename T>
__global__ void row_statistics_kernel(AttentionProblem p, Tensors<T> t, RowStatistics stats) {
  __shared__ float q_row[kMaxHeadDim], do_row[kMaxHeadDim];
  const std::int64_t i = blockIdx.x, head = stats.heads[blockIdx.y], n = p.head_dim;
  const std::int64_t kept = p.causal ? i + 1 : p.seq;
  const T* k_head = t.k + head * p.seq * n;
  const T* v_head = t.v + head * p.seq * n;
  load_row(q_row, t.q + (head * p.seq + i) * n, n);
  load_row(do_row, t.d_o + (head * p.seq + i) * n, n);
  __syncthreads();
  float local_max = -INFINITY;
  for (std::int64_t j = threadIdx.x; j < kept; j += kThreads)
    local_max = fmaxf(local_max, dot(q_row, k_head + j * n, n) * p.scale);
  const float row_max = block_reduce<kThreads>(local_max, true);
  float local_sum = 0, local_weighted = 0;
  for (std::int64_t j = threadIdx.x; j < kept; j += kThreads) {
    const float e = expf(dot(q_row, k_head + j * n, n) * p.scale - row_max);
    local_sum += e;
    local_weighted += e * dot(do_row, v_head + j * n, n);
  }
  const float sum = block_reduce<kThreads>(local_sum, false);
  const float weighted = block_reduce<kThreads>(local_weighted, false);
  if (threadIdx.x == 0) {
    stats.lse[blockIdx.y * p.seq + i] = row_max + logf(sum);
    stats.delta[blockIdx.y * p.seq + i] = weighted / sum;
  }
}

// One block per sampled query row (slot x seq + i of `rows`): head_dim triples (dQ, reference,
// magnitude) in `out`.
template <typename T>
__global__ void query_gradient_kernel(AttentionProblem p, Tensors<T> t, RowStatistics stats,
                                      const std::int64_t* rows, float* out) {
  __shared__ float q_row[kMaxHeadDim], do_row[kMaxHeadDim], ds[kThreads], magnitude[kThreads];
  const std::int64_t slot = rows[blockIdx.x] / p.seq, i = rows[blockIdx.x] % p.seq, n = p.head_dim;
  const std::int64_t head = stats.heads[slot], kept = p.causal ? i + 1 : p.seq;
  const float lse = stats.lse[slot * p.seq + i], delta = stats.delta[slot * p.seq + i];
  const T* k_head = t.k + head * p.seq * n;
  const T* v_head = t.v + head * p.seq * n;
  load_row(q_row, t.q + (head * p.seq + i) * n, n);
  load_row(do_row, t.d_o + (head * p.seq + i) * n, n);
  float acc = 0, bound = 0;
  for (std::int64_t base = 0; base < kept; base += kThreads) {
    __syncthreads();  // the rows are loaded; the previous tile is consumed
    const std::int64_t j = base + threadIdx.x;
    ds[threadIdx.x] = magnitude[threadIdx.x] = 0;
    if (j < kept) {
      const float prob = expf(dot(q_row, k_head + j * n, n) * p.scale - lse);
      const float dp = dot(do_row, v_head + j * n, n);
      ds[threadIdx.x] = prob * (dp - delta);
      magnitude[threadIdx.x] = prob * (fabsf(dp) + fabsf(delta));
    }
    __syncthreads();
    const std::int64_t tile = min(static_cast<std::int64_t>(kThreads), kept - base);
    if (threadIdx.x < n)
      for (std::int64_t u = 0; u < tile; ++u) {
        const float key = to_float(k_head[(base + u) * n + threadIdx.x]);
        acc += ds[u] * key;
        bound += magnitude[u] * fabsf(key);
      }
  }
  if (threadIdx.x >= n) return;
  float* triple = out + (static_cast<std::int64_t>(blockIdx.x) * n + threadIdx.x) * 3;
  triple[0] = to_float(t.dq[(head * p.seq + i) * n + threadIdx.x]);
  triple[1] = p.scale * acc;
  triple[2] = p.scale * bound;
}

// One block per sampled key row (slot x seq + j of `rows`): head_dim triples for dK in `out`,
// then as many for dV.
template <typename T>
__global__ void key_gradient_kernel(AttentionProblem p, Tensors<T> t, RowStatistics stats, const std::int64_t* rows,
                                    float* out) {
  __shared__ float k_row[kMaxHeadDim], v_row[kMaxHeadDim], prob[kThreads], ds[kThreads], magnitude[kThreads];
  const std::int64_t slot = rows[blockIdx.x] / p.seq, j = rows[blockIdx.x] % p.seq, n = p.head_dim;
  const std::int64_t head = stats.heads[slot], first = p.causal ? j : 0;
  const T* q_head = t.q + head * p.seq * n;
  const T* do_head = t.d_o + head * p.seq * n;
  load_row(k_row, t.k + (head * p.seq + j) * n, n);
  load_row(v_row, t.v + (head * p.seq + j) * n, n);
  float dk = 0, dk_bound = 0, dv = 0, dv_bound = 0;
  for (std::int64_t base = first; base < p.seq; base += kThreads) {
    __syncthreads();
    const std::int64_t i = base + threadIdx.x;
    prob[threadIdx.x] = ds[threadIdx.x] = magnitude[threadIdx.x] = 0;
    if (i < p.seq) {
      const float lse = stats.lse[slot * p.seq + i], delta = stats.delta[slot * p.seq + i];
      const float pr = expf(dot(k_row, q_head + i * n, n) * p.scale - lse);
      const float dp = dot(v_row, do_head + i * n, n);
      prob[threadIdx.x] = pr;
      ds[threadIdx.x] = pr * (dp - delta);
      magnitude[threadIdx.x] = pr * (fabsf(dp) + fabsf(delta));
    }
    __syncthreads();
    const std::int64_t tile = min(static_cast<std::int64_t>(kThreads), p.seq - base);
    if (threadIdx.x < n)
      for (std::int64_t u = 0; u < tile; ++u) {
        const float query = to_float(q_head[(base + u) * n + threadIdx.x]);
        const float grad = to_float(do_head[(base + u) * n + threadIdx.x]);
        dk += ds[u] * query;
        dk_bound += magnitude[u] * fabsf(query);
        dv += prob[u] * grad;
        dv_bound += prob[u] * fabsf(grad);
      }
  }
  if (threadIdx.x >= n) return;
  const std::int64_t element = (head * p.seq + j) * n + threadIdx.x;
  float* dk_triple = out + (static_cast<std::int64_t>(blockIdx.x) * n + threadIdx.x) * 3;
  float* dv_triple = dk_triple + static_cast<std::int64_t>(gridDim.x) * n * 3;
  dk_triple[0] = to_float(t.dk[element]);
  dk_triple[1] = p.scale * dk;
  dk_triple[2] = p.scale * dk_bound;
  dv_triple[0] = to_float(t.dv[element]);
  dv_triple[1] = dv;
  dv_triple[2] = dv_bound;
}

template <typename T>
Tensors<T> typed(const AttentionGradients& g) {
  return {static_cast<const T*>(g.q),  static_cast<const T*>(g.k),  static_cast<const T*>(g.v),
          static_cast<const T*>(g.d_o), static_cast<const T*>(g.dq), static_cast<const T*>(g.dk),
          static_cast<const T*>(g.dv)};
}

// Runs the three kernels: row statistics of the checked heads, then the sampled rows' triples.
template <typename T>
void launch(const AttentionProblem& p, const AttentionGradients& g, RowStatistics stats, std::int64_t heads,
            const std::int64_t* rows, std::int64_t samples, float* query_out, float* key_out, cudaStream_t stream) {
  const Tensors<T> t = typed<T>(g);
  row_statistics_kernel<<<dim3(static_cast<unsigned>(p.seq), static_cast<unsigned>(heads)), kThreads, 0, stream>>>(
      p, t, stats);
  query_gradient_kernel<<<static_cast<unsigned>(samples), kThreads, 0, stream>>>(p, t, stats, rows, query_out);
  key_gradient_kernel<<<static_cast<unsigned>(samples), kThreads, 0, stream>>>(p, t, stats, rows, key_out);
  GPUBENCH_CUDA(cudaGetLastError());
}

// `rows_per_head` row indices per checked head slot, as slot x seq + row: the first and the
// last row of each, the rest random.
std::vector<std::int64_t> sample_rows(std::int64_t seq, std::int64_t heads, std::int64_t rows_per_head,
                                      std::uint64_t seed) {
  std::vector<std::int64_t> rows;
  for (std::int64_t slot = 0; slot < heads; ++slot)
    for (std::int64_t r = 0; r < rows_per_head; ++r) {
      const std::int64_t row = r == 0 ? 0 : r == 1 ? seq - 1 : hash32(seed + slot, r) % seq;
      rows.push_back(slot * seq + row);
    }
  return rows;
}

// Compares each sampled row's triples; `terms(row)` is how many terms its sums had.
template <typename Terms>
AttentionCheck compare(const std::vector<float>& triples, const std::vector<std::int64_t>& rows,
                       const std::vector<std::int64_t>& heads, const AttentionProblem& p,
                       const AttentionTolerance& tolerance, Terms terms) {
  AttentionCheck check;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::int64_t row = rows[r] % p.seq;
    double row_l2 = 0;
    std::string why;
    const bool ok = row_passes(triples.data() + r * p.head_dim * 3, p.head_dim,
                               row_tolerance(tolerance, terms(row)), row_l2, why);
    ++check.rows_checked;
    if (std::isfinite(row_l2)) check.worst_row_l2 = std::max(check.worst_row_l2, row_l2);
    if (!ok && check.rows_failed++ == 0)
      check.first_failure = "row " + std::to_string(row) + " of head " + std::to_string(heads[rows[r] / p.seq]) +
                            ", " + why;
  }
  return check;
}

}  // namespace

AttentionTolerance row_tolerance(const AttentionTolerance& tolerance, std::int64_t terms) {
  if (terms >= kMinTermsForRowL2) return tolerance;
  return {tolerance.element, INFINITY};
}

GradientCheck check_attention_backward_sampled(const AttentionProblem& problem, const AttentionGradients& tensors,
                                               const AttentionTolerance& tolerance, std::int64_t rows_per_head,
                                               std::uint64_t seed, cudaStream_t stream) {
  if (problem.head_dim > kMaxHeadDim)
    throw std::invalid_argument("check_attention_backward_sampled: head_dim over 256");
  std::vector<std::int64_t> heads{0};
  if (problem.heads_total > 1) heads.push_back(problem.heads_total - 1);
  const auto checked = static_cast<std::int64_t>(heads.size());
  const std::vector<std::int64_t> rows = sample_rows(problem.seq, checked, std::max<std::int64_t>(rows_per_head, 2), seed);
  const auto samples = static_cast<std::int64_t>(rows.size());
  DeviceBuffer device_heads(sizeof(std::int64_t) * heads.size()), device_rows(sizeof(std::int64_t) * rows.size());
  DeviceBuffer lse(sizeof(float) * checked * problem.seq), delta(sizeof(float) * checked * problem.seq);
  DeviceBuffer query_out(sizeof(float) * samples * problem.head_dim * 3);
  DeviceBuffer key_out(2 * query_out.bytes());
  GPUBENCH_CUDA(cudaMemcpyAsync(device_heads.get(), heads.data(), device_heads.bytes(), cudaMemcpyHostToDevice, stream));
  GPUBENCH_CUDA(cudaMemcpyAsync(device_rows.get(), rows.data(), device_rows.bytes(), cudaMemcpyHostToDevice, stream));
  const RowStatistics stats{device_heads.as<std::int64_t>(), lse.as<float>(), delta.as<float>()};
  if (problem.kind == Float16Kind::kHalf)
    launch<__half>(problem, tensors, stats, checked, device_rows.as<std::int64_t>(), samples, query_out.as<float>(),
                   key_out.as<float>(), stream);
  else
    launch<__nv_bfloat16>(problem, tensors, stats, checked, device_rows.as<std::int64_t>(), samples,
                          query_out.as<float>(), key_out.as<float>(), stream);
  std::vector<float> query(query_out.bytes() / sizeof(float)), key(key_out.bytes() / sizeof(float));
  GPUBENCH_CUDA(cudaMemcpyAsync(query.data(), query_out.get(), query_out.bytes(), cudaMemcpyDeviceToHost, stream));
  GPUBENCH_CUDA(cudaMemcpyAsync(key.data(), key_out.get(), key_out.bytes(), cudaMemcpyDeviceToHost, stream));
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  const std::vector<float> value(key.begin() + static_cast<std::ptrdiff_t>(query.size()), key.end());
  key.resize(query.size());
  const std::int64_t seq = problem.seq;
  const bool causal = problem.causal;
  GradientCheck check;
  check.dq = compare(query, rows, heads, problem, tolerance, [&](std::int64_t i) { return causal ? i + 1 : seq; });
  check.dk = compare(key, rows, heads, problem, tolerance, [&](std::int64_t j) { return causal ? seq - j : seq; });
  check.dv = compare(value, rows, heads, problem, tolerance, [&](std::int64_t j) { return causal ? seq - j : seq; });
  return check;
}

}  // namespace gpubench::kernels
