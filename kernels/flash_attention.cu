#include "kernels/flash_attention.cuh"

#include <cmath>
#include <stdexcept>

#include "harness/core/cuda_check.h"
#include "kernels/flash_attention_mma.cuh"

namespace gpubench::kernels {
namespace {

using flash::SwizzledTile;

struct FlashParams {
  const void *q, *k, *v;
  void* o;
  float* lse;
  int seq;  // seq x head_dim under 2^31 (flash_attention_forward checks)
  float scale, scale_log2;  // scale, and scale x log2(e) for exp2
  bool causal;
};

// The warp tile: 32 query rows as two m16 tiles, against kBlockN keys (S) or D columns (O).
// Thread `lane` holds, of each m16 x n8 accumulator, rows lane/4 and lane/4 + 8, columns
// 2 (lane % 4) and the next: elements [0], [1] of the first row, [2], [3] of the second.
constexpr int kWarpRows = 32;
constexpr int kMmaRows = kWarpRows / 16;

// Rows x HeadDim elements from `source` (rows row0.. of one head) into a swizzled tile; rows past
// the sequence end are zero-filled. Each pass of the block covers a multiple of 8 rows, so that a
// thread's chunks of successive passes sit at one swizzled column, a constant stride apart.
template <int Rows, int HeadDim, typename T>
__device__ void load_tile(std::uint32_t tile, const T* source, std::int64_t row0, int seq) {
  using Tile = SwizzledTile<HeadDim>;
  constexpr int kRowsPerPass = kFlashThreads / Tile::kChunks;
  static_assert(kRowsPerPass % 8 == 0 && Rows % kRowsPerPass == 0, "passes of whole swizzle periods");
  const int row = static_cast<int>(threadIdx.x) / Tile::kChunks, chunk = static_cast<int>(threadIdx.x) % Tile::kChunks;
  const T* from = source + (row0 + row) * HeadDim + chunk * 8;
  const std::uint32_t to = tile + Tile::offset(row, chunk);
  const int rows_left = seq - static_cast<int>(row0) - row;  // of this thread's first row, itself included
#pragma unroll
  for (int pass = 0; pass < Rows / kRowsPerPass; ++pass) {
    const bool valid = pass * kRowsPerPass < rows_left;
    flash::copy_async_16(to + pass * kRowsPerPass * Tile::kRowBytes,
                         valid ? from + pass * kRowsPerPass * HeadDim : source, valid);
  }
}

// Where a lane's ldmatrix rows start in a swizzled tile: the row part of the offset, and the
// chunk part of chunks 2j + high (j = 0..3; chunk 2j + 8i + high adds i x 128 bytes), high being
// the lane's choice of the first or second 8 columns of a 16-column step.
struct LaneAddress {
  std::uint32_t row_bytes;
  std::uint32_t chunk_bytes[4];
  __device__ LaneAddress(int row, int high, int row_stride_bytes) : row_bytes(row * row_stride_bytes) {
#pragma unroll
    for (int j = 0; j < 4; ++j) chunk_bytes[j] = static_cast<std::uint32_t>(((2 * j + high) ^ (row & 7)) << 4);
  }
  // The address of 16-column step `step`, at `extra_rows_bytes` past the lane's row.
  __device__ std::uint32_t at(std::uint32_t tile, int step, std::uint32_t extra_rows_bytes) const {
    return tile + row_bytes + extra_rows_bytes + ((step >> 2) << 7) + chunk_bytes[step & 3];
  }
};

// acc[m][first] and acc[m][first + 1] += a[m] times the two n8 B operands one ldmatrix x4 gave.
template <typename T, int Tiles>
__device__ void mma_pair(float (&acc)[kMmaRows][Tiles][4], const std::uint32_t (&a)[kMmaRows][4],
                         const std::uint32_t (&b)[4], int first) {
#pragma unroll
  for (int m = 0; m < kMmaRows; ++m) {
    flash::mma_16816<T>(acc[m][first], a[m], b[0], b[1]);
    flash::mma_16816<T>(acc[m][first + 1], a[m], b[2], b[3]);
  }
}

// s = Q·Kᵀ for the warp's 32 rows against the BlockN keys of the K tile.
// Q's lane rows are the warp's rows 0..15 (A operand: matrices rows 0-7 | 8-15 at columns 0-7,
// then at 8-15); K's are keys 0-7 at columns 0-7 | 8-15, then keys 8-15 (two n8 B operands).
template <typename T, int HeadDim, int BlockN>
__device__ void warp_scores(float (&s)[kMmaRows][BlockN / 8][4], std::uint32_t q_tile, std::uint32_t k_tile,
                            const LaneAddress& q_lane, const LaneAddress& k_lane) {
  constexpr int kRowBytes = SwizzledTile<HeadDim>::kRowBytes;
#pragma unroll
  for (int m = 0; m < kMmaRows; ++m)
#pragma unroll
    for (int n = 0; n < BlockN / 8; ++n) s[m][n][0] = s[m][n][1] = s[m][n][2] = s[m][n][3] = 0.0f;
#pragma unroll
  for (int kk = 0; kk < HeadDim / 16; ++kk) {
    std::uint32_t a[kMmaRows][4];
#pragma unroll
    for (int m = 0; m < kMmaRows; ++m)
      flash::ldmatrix_x4(a[m], q_lane.at(q_tile, kk, m * 16 * kRowBytes));
#pragma unroll
    for (int n = 0; n < BlockN / 16; ++n) {
      std::uint32_t b[4];
      flash::ldmatrix_x4(b, k_lane.at(k_tile, kk, n * 16 * kRowBytes));
      mma_pair<T>(s, a, b, 2 * n);
    }
  }
}

// -inf for the keys past the sequence end and, causal, the keys after their query.
template <int BlockN>
__device__ void mask_scores(float (&s)[kMmaRows][BlockN / 8][4], int first_row, int first_key, const FlashParams& p,
                            int lane) {
#pragma unroll
  for (int m = 0; m < kMmaRows; ++m)
#pragma unroll
    for (int n = 0; n < BlockN / 8; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int row = first_row + m * 16 + (lane >> 2) + (e >> 1) * 8;
        const int key = first_key + n * 8 + (lane & 3) * 2 + (e & 1);
        if (key >= p.seq || (p.causal && key > row)) s[m][n][e] = -INFINITY;
      }
}

// The online softmax step: the running row maxima take in this tile's scores, the output and the
// running sums are rescaled to the new maxima, and s becomes the unnormalised probabilities.
// Row sums stay per thread (its columns) until the end; the maxima are shared by the row's four
// threads. A row with every score so far masked keeps maximum -inf and exponent base 0. Once the
// maxima settle, most tiles change none of the warp's: the correction is then exactly 1 and the
// warp skips rescaling its output accumulators.
template <int BlockN, int HeadDim>
__device__ void online_softmax(float (&s)[kMmaRows][BlockN / 8][4], float (&o)[kMmaRows][HeadDim / 8][4],
                               float (&row_max)[kMmaRows][2], float (&row_sum)[kMmaRows][2], float scale_log2) {
  float correction[kMmaRows][2];
  bool changed = false;
#pragma unroll
  for (int m = 0; m < kMmaRows; ++m)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      float tile_max = row_max[m][half];
#pragma unroll
      for (int n = 0; n < BlockN / 8; ++n) tile_max = fmaxf(tile_max, fmaxf(s[m][n][2 * half], s[m][n][2 * half + 1]));
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
      const float base = tile_max == -INFINITY ? 0.0f : tile_max * scale_log2;
      const bool row_changed = tile_max != row_max[m][half];
      correction[m][half] = row_changed ? flash::fast_exp2(row_max[m][half] * scale_log2 - base) : 1.0f;
      changed |= row_changed;
      row_max[m][half] = tile_max;
      float sum = 0.0f;
#pragma unroll
      for (int n = 0; n < BlockN / 8; ++n)
#pragma unroll
        for (int e = 2 * half; e < 2 * half + 2; ++e) {
          s[m][n][e] = flash::fast_exp2(fmaf(s[m][n][e], scale_log2, -base));
          sum += s[m][n][e];
        }
      row_sum[m][half] = row_sum[m][half] * correction[m][half] + sum;
    }
  if (!__any_sync(0xffffffffu, changed)) return;
#pragma unroll
  for (int m = 0; m < kMmaRows; ++m)
#pragma unroll
    for (int d = 0; d < HeadDim / 8; ++d)
#pragma unroll
      for (int e = 0; e < 4; ++e) o[m][d][e] *= correction[m][e >> 1];
}

// o += P·V: the probabilities, rounded to T, are the A operand straight from the S accumulators
// (an m16 x n8 accumulator pair is an m16 x k16 A fragment); V's B fragments come transposed.
// V's lane rows: keys 0-7 | 8-15 at columns 0-7, then at columns 8-15 (two n8 B operands).
template <typename T, int HeadDim, int BlockN>
__device__ void warp_output(float (&o)[kMmaRows][HeadDim / 8][4], const float (&s)[kMmaRows][BlockN / 8][4],
                            std::uint32_t v_tile, const LaneAddress& v_lane) {
  constexpr int kRowBytes = SwizzledTile<HeadDim>::kRowBytes;
#pragma unroll
  for (int kk = 0; kk < BlockN / 16; ++kk) {
    std::uint32_t a[kMmaRows][4];
#pragma unroll
    for (int m = 0; m < kMmaRows; ++m) {
      a[m][0] = flash::pack2<T>(s[m][2 * kk][0], s[m][2 * kk][1]);
      a[m][1] = flash::pack2<T>(s[m][2 * kk][2], s[m][2 * kk][3]);
      a[m][2] = flash::pack2<T>(s[m][2 * kk + 1][0], s[m][2 * kk + 1][1]);
      a[m][3] = flash::pack2<T>(s[m][2 * kk + 1][2], s[m][2 * kk + 1][3]);
    }
#pragma unroll
    for (int d = 0; d < HeadDim / 16; ++d) {
      std::uint32_t b[4];
      flash::ldmatrix_x4_trans(b, v_lane.at(v_tile, d, kk * 16 * kRowBytes));
      mma_pair<T>(o, a, b, 2 * d);
    }
  }
}

// Normalises the warp's rows, writes the log-sum-exp if asked, and stores O through the warp's
// own rows of the Q tile (no other warp reads them) as coalesced 16-byte rows.
template <typename T, int HeadDim>
__device__ void store_output(float (&o)[kMmaRows][HeadDim / 8][4], const float (&row_max)[kMmaRows][2],
                             float (&row_sum)[kMmaRows][2], std::uint32_t q_tile, unsigned char* q_tile_pointer,
                             T* out, float* lse, int first_row, const FlashParams& p, int warp, int lane) {
  using Tile = SwizzledTile<HeadDim>;
  __syncwarp();  // the warp's ldmatrix reads of its Q rows are done before they are overwritten
#pragma unroll
  for (int m = 0; m < kMmaRows; ++m)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      float sum = row_sum[m][half];
      sum += __shfl_xor_sync(0xffffffffu, sum, 1);
      sum += __shfl_xor_sync(0xffffffffu, sum, 2);
      const float inverse = sum > 0.0f ? 1.0f / sum : 0.0f;
      const int row = warp * kWarpRows + m * 16 + (lane >> 2) + half * 8;
#pragma unroll
      for (int d = 0; d < HeadDim / 8; ++d) {
        const std::uint32_t pair = flash::pack2<T>(o[m][d][2 * half] * inverse, o[m][d][2 * half + 1] * inverse);
        *reinterpret_cast<std::uint32_t*>(q_tile_pointer + Tile::offset(row, d) + (lane & 3) * 4) = pair;
      }
      if (lse && (lane & 3) == 0 && first_row + row < p.seq)
        lse[first_row + row] = row_max[m][half] * p.scale + logf(sum);
    }
  __syncwarp();
  constexpr int kPerLane = kWarpRows * Tile::kChunks / 32;
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    const int index = lane + i * 32;
    const int row = warp * kWarpRows + index / Tile::kChunks, chunk = index % Tile::kChunks;
    if (first_row + row < p.seq)
      *reinterpret_cast<uint4*>(out + (first_row + row) * HeadDim + chunk * 8) =
          *reinterpret_cast<const uint4*>(q_tile_pointer + Tile::offset(row, chunk));
  }
}

// One block: query tile (gridDim.y - 1 - blockIdx.y) of head blockIdx.x. Copies are committed in
// the order Q, K0, V0, then K(n+1) and V(n+1) in iteration n (empty groups past the end), so
// that "at most two groups pending" always means: this iteration's K, resp. V, has landed.
template <typename T, int HeadDim, int BlockN>
__global__ void __launch_bounds__(kFlashThreads, 2) flash_forward_kernel(FlashParams p) {
  using Tile = SwizzledTile<HeadDim>;
  constexpr std::uint32_t kQBytes = kFlashBlockM * Tile::kRowBytes, kStageBytes = BlockN * Tile::kRowBytes;
  extern __shared__ __align__(128) unsigned char shared[];
  const std::uint32_t q_tile = flash::shared_address(shared);
  const std::uint32_t k_tiles = q_tile + kQBytes, v_tiles = k_tiles + 2 * kStageBytes;

  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int query_tile = static_cast<int>(gridDim.y - 1 - blockIdx.y);
  const int first_query = query_tile * kFlashBlockM;
  const std::int64_t head_offset = static_cast<std::int64_t>(blockIdx.x) * p.seq * HeadDim;
  const T* q = static_cast<const T*>(p.q) + head_offset;
  const T* k = static_cast<const T*>(p.k) + head_offset;
  const T* v = static_cast<const T*>(p.v) + head_offset;
  const int key_tiles = static_cast<int>(flash_key_tiles(query_tile, p.seq, p.causal, BlockN));
  const LaneAddress q_lane(warp * kWarpRows + (lane & 15), lane >> 4, Tile::kRowBytes);
  const LaneAddress k_lane((lane & 7) + ((lane >> 4) << 3), (lane >> 3) & 1, Tile::kRowBytes);
  const LaneAddress v_lane(lane & 15, lane >> 4, Tile::kRowBytes);

  load_tile<kFlashBlockM, HeadDim>(q_tile, q, first_query, p.seq);
  flash::copy_async_commit();
  load_tile<BlockN, HeadDim>(k_tiles, k, 0, p.seq);
  flash::copy_async_commit();
  load_tile<BlockN, HeadDim>(v_tiles, v, 0, p.seq);
  flash::copy_async_commit();

  float o[kMmaRows][HeadDim / 8][4] = {};
  float row_max[kMmaRows][2], row_sum[kMmaRows][2];
#pragma unroll
  for (int m = 0; m < kMmaRows; ++m) row_max[m][0] = row_max[m][1] = -INFINITY, row_sum[m][0] = row_sum[m][1] = 0.0f;

  for (int n = 0; n < key_tiles; ++n) {
    const std::uint32_t stage = static_cast<std::uint32_t>(n & 1) * kStageBytes;
    const std::uint32_t next_stage = kStageBytes - stage;
    // K(n+1) overwrites K(n-1), which every warp finished reading before the last barrier.
    if (n + 1 < key_tiles) load_tile<BlockN, HeadDim>(k_tiles + next_stage, k, (n + 1) * BlockN, p.seq);
    flash::copy_async_commit();
    flash::copy_async_wait<2>();
    __syncthreads();
    // V(n+1) overwrites V(n-1), read before every warp passed the barrier above.
    if (n + 1 < key_tiles) load_tile<BlockN, HeadDim>(v_tiles + next_stage, v, (n + 1) * BlockN, p.seq);
    flash::copy_async_commit();
    float s[kMmaRows][BlockN / 8][4];
    warp_scores<T, HeadDim, BlockN>(s, q_tile, k_tiles + stage, q_lane, k_lane);
    if (flash_tile_masked(query_tile, n, p.seq, p.causal, BlockN))
      mask_scores<BlockN>(s, first_query + warp * kWarpRows, n * BlockN, p, lane);
    online_softmax<BlockN, HeadDim>(s, o, row_max, row_sum, p.scale_log2);
    flash::copy_async_wait<2>();
    __syncthreads();
    warp_output<T, HeadDim, BlockN>(o, s, v_tiles + stage, v_lane);
  }
  T* out = static_cast<T*>(p.o) + head_offset;
  float* lse = p.lse ? p.lse + static_cast<std::int64_t>(blockIdx.x) * p.seq : nullptr;
  store_output<T, HeadDim>(o, row_max, row_sum, q_tile, shared, out, lse, first_query, p, warp, lane);
}

template <typename T, int HeadDim>
void launch(const FlashAttentionArgs& args, cudaStream_t stream) {
  constexpr int kBlockN = flash_block_n(HeadDim);
  const auto kernel = flash_forward_kernel<T, HeadDim, kBlockN>;
  const std::size_t shared = flash_shared_bytes(HeadDim);
  GPUBENCH_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  const FlashParams params{args.q,    args.k,
                           args.v,    args.o,
                           args.lse,  static_cast<int>(args.seq),
                           args.scale, static_cast<float>(args.scale * 1.4426950408889634),
                           args.causal};
  kernel<<<flash_attention_grid(args), kFlashThreads, shared, stream>>>(params);
  GPUBENCH_CUDA(cudaGetLastError());
}

template <typename T>
void launch_for_head_dim(const FlashAttentionArgs& args, cudaStream_t stream) {
  if (args.head_dim == 64)
    launch<T, 64>(args, stream);
  else
    launch<T, 128>(args, stream);
}

}  // namespace

std::string flash_attention_unsupported(std::int64_t head_dim, int cc_major, int cc_minor) {
  if (flash_block_n(head_dim) == 0)
    return "our kernel runs head_dim 64 and 128, not " + std::to_string(head_dim);
  if (cc_major < 8)
    return "our kernel needs compute capability 8.0 (cp.async, bf16 mma.sync); this GPU has " +
           std::to_string(cc_major) + "." + std::to_string(cc_minor);
  return "";
}

dim3 flash_attention_grid(const FlashAttentionArgs& args) {
  return dim3(static_cast<unsigned>(args.heads_total), static_cast<unsigned>(flash_query_tiles(args.seq)));
}

void flash_attention_forward(const FlashAttentionArgs& args, cudaStream_t stream) {
  if (flash_block_n(args.head_dim) == 0)
    throw std::invalid_argument("flash_attention_forward: head_dim " + std::to_string(args.head_dim) +
                                " (64, 128)");
  // Offsets within one head are 32-bit: S x D under 2^31 elements.
  if (args.heads_total < 1 || args.seq < 1 || args.seq * args.head_dim > INT32_MAX)
    throw std::invalid_argument("flash_attention_forward: sequence length " + std::to_string(args.seq) +
                                " outside 1 .. 2^31 / head_dim, or no heads");
  if (args.kind == Float16Kind::kHalf)
    launch_for_head_dim<__half>(args, stream);
  else
    launch_for_head_dim<__nv_bfloat16>(args, stream);
}

}  // namespace gpubench::kernels
