#pragma once
// A consumer warpgroup of our Hopper attention kernel (kernels/flash_attention_sm90.cu): its
// share of the tile's query rows through every key tile (S = Q·Kᵀ, mask, online softmax, O +=
// P·V, the turn to issue MMAs passed between the two consumers) and the store of its rows. The
// schedule is described at the top of the kernel's file. Device code for the sm_90a pass only.
#include <cuda.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/flash_attention_sm90_pipeline.cuh"
#include "kernels/flash_attention_sm90_tile.cuh"
#include "kernels/wgmma.cuh"

namespace gpubench::kernels::sm90 {

struct KernelParams {
  void* o;
  float* lse;
  int seq, query_tiles;
  float scale, scale_log2;  // the raw scores' scale (e4m3: with Q's and K's), and x log2(e) for exp2
  float output_scale;       // O's factor: 1, or V's for e4m3
  bool causal;
};

// e4m3 lifts P by 2^8 (online_softmax); 16-bit types need no lift.
template <typename T>
constexpr int kLog2Bias = kIsE4m3<T> ? 8 : 0;

// O's type: the input's, or bf16 for e4m3 inputs.
template <typename T>
using OutputType = std::conditional_t<kIsE4m3<T>, __nv_bfloat16, T>;

#if GPUBENCH_SM90A

constexpr int kWarpgroupThreads = 128;
constexpr int kFirstTurnBarrier = 1;       // named barriers 1 and 2 (0 is __syncthreads)
constexpr bool kWarpgroupPingPong = true;  // off: each warpgroup issues whenever it is ready

// The turn to issue MMAs, passed between the two consumer warpgroups (see the top comment).
struct IssueTurn {
  int warpgroup;  // 0 or 1 among the consumers
  __device__ void start() const {
    if (kWarpgroupPingPong && warpgroup == 1) named_barrier_arrive(kFirstTurnBarrier, 2 * kWarpgroupThreads);
  }
  __device__ void begin() const {
    if (kWarpgroupPingPong) named_barrier_sync(kFirstTurnBarrier + warpgroup, 2 * kWarpgroupThreads);
  }
  __device__ void end(bool last) const {
    if (kWarpgroupPingPong && !(last && warpgroup == 1))
      named_barrier_arrive(kFirstTurnBarrier + 1 - warpgroup, 2 * kWarpgroupThreads);
  }
};

template <typename T, int HeadDim>
struct Consumer {
  using L = TileLayout<T, HeadDim>;
  Barriers<L::kStages> bars;
  std::uint64_t q_desc, k_desc, v_desc;  // K and V at stage 0
  int first_row, row, lane;              // the warpgroup's first row, the thread's row r
  IssueTurn turn;
  __device__ std::uint64_t k_at(int stage) const { return k_desc + stage * (L::kTileBytes >> 4); }
  __device__ std::uint64_t v_at(int stage) const { return v_desc + stage * (L::kTileBytes >> 4); }
  // After a wgmma wait: the whole warp (and the warpgroup's MMA) is done with the stage.
  __device__ void release(std::uint32_t barrier) const {
    if (lane == 0) barrier_arrive(barrier);
  }
};

template <typename T, int HeadDim>
__device__ __forceinline__ void softmax_tile(Accumulators<T, HeadDim>& acc, const Consumer<T, HeadDim>& c,
                                             const KernelParams& p, int n, float (&correction)[2]) {
  constexpr int kBlockN = TileLayout<T, HeadDim>::kBlockN;
  if (flash_sm90_tile_masked(c.first_row, n, p.seq, p.causal, kBlockN))
    mask_scores(acc.s, c.row, n * kBlockN, p.seq, p.causal, c.lane);
  online_softmax<kLog2Bias<T>>(acc.s, acc.row_max, acc.row_sum, correction, p.scale_log2);
}

// Key tile 0: S_0 alone (O is still zero, nothing to overlap with).
template <typename T, int HeadDim>
__device__ __forceinline__ void first_tile(Accumulators<T, HeadDim>& acc, const Consumer<T, HeadDim>& c,
                                           const KernelParams& p) {
  barrier_wait(c.bars.q_full(), 0);
  barrier_wait(c.bars.k_full(0), 0);
  c.turn.begin();
  pin(acc.s);
  wgmma_fence();
  issue_scores<T, HeadDim>(acc.s, c.q_desc, c.k_at(0));
  wgmma_commit();
  c.turn.end(false);
  wgmma_wait<0>();
  pin(acc.s);
  c.release(c.bars.k_empty(0));
  float correction[2];
  softmax_tile(acc, c, p, 0, correction);
  pack_probabilities<T>(acc.p, acc.s);
}

// Key tile n >= 1: S_n and O += P_{n-1}·V_{n-1} issued together, the softmax of S_n under P·V.
template <typename T, int HeadDim>
__device__ __forceinline__ void next_tile(Accumulators<T, HeadDim>& acc, const Consumer<T, HeadDim>& c,
                                          const KernelParams& p, int n) {
  constexpr int kStages = TileLayout<T, HeadDim>::kStages;
  const Slot k_slot = slot_of<kStages>(n), v_slot = slot_of<kStages>(n - 1);
  barrier_wait(c.bars.k_full(k_slot.stage), k_slot.parity);
  barrier_wait(c.bars.v_full(v_slot.stage), v_slot.parity);
  c.turn.begin();
  pin(acc.s), pin(acc.o), pin(acc.p);
  wgmma_fence();
  issue_scores<T, HeadDim>(acc.s, c.q_desc, c.k_at(k_slot.stage));
  wgmma_commit();
  issue_output<T, HeadDim>(acc.o, acc.p, c.v_at(v_slot.stage));
  wgmma_commit();
  c.turn.end(false);
  wgmma_wait<1>();  // S_n is in; P·V may still run
  pin(acc.s);
  c.release(c.bars.k_empty(k_slot.stage));
  float correction[2];
  softmax_tile(acc, c, p, n, correction);
  wgmma_wait<0>();
  pin(acc.o), pin(acc.p);  // O and the old P fragments only now free to touch
  c.release(c.bars.v_empty(v_slot.stage));
  rescale<HeadDim>(acc.o, correction);
  pack_probabilities<T>(acc.p, acc.s);
}

// O += P_{last}·V_{last}, the warpgroup's last turn.
template <typename T, int HeadDim>
__device__ __forceinline__ void last_output(Accumulators<T, HeadDim>& acc, const Consumer<T, HeadDim>& c,
                                            int key_tiles) {
  const Slot v_slot = slot_of<TileLayout<T, HeadDim>::kStages>(key_tiles - 1);
  barrier_wait(c.bars.v_full(v_slot.stage), v_slot.parity);
  c.turn.begin();
  pin(acc.o), pin(acc.p);
  wgmma_fence();
  issue_output<T, HeadDim>(acc.o, acc.p, c.v_at(v_slot.stage));
  wgmma_commit();
  c.turn.end(true);
  wgmma_wait<0>();
  pin(acc.o), pin(acc.p);
  c.release(c.bars.v_empty(v_slot.stage));
}

// Normalises rows r and r + 8, stores them (4-byte pairs; rows past the sequence end are
// dropped) and, if asked, their natural log-sum-exp max·scale + ln(sum) (less P's lift).
template <typename T, int HeadDim>
__device__ __forceinline__ void store_output(const Accumulators<T, HeadDim>& acc, const Consumer<T, HeadDim>& c,
                                             const KernelParams& p, std::int64_t head) {
  using Out = OutputType<T>;
  Out* out = static_cast<Out*>(p.o) + head * p.seq * HeadDim;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float sum = acc.row_sum[h];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    const float inverse = sum > 0.0f ? p.output_scale / sum : 0.0f;
    const int row = c.row + 8 * h;
    if (row >= p.seq) continue;
    Out* out_row = out + static_cast<std::int64_t>(row) * HeadDim + 2 * (c.lane & 3);
#pragma unroll
    for (int j = 0; j < HeadDim / 8; ++j)
      *reinterpret_cast<std::uint32_t*>(out_row + 8 * j) =
          flash::pack2<Out>(acc.o[4 * j + 2 * h] * inverse, acc.o[4 * j + 2 * h + 1] * inverse);
    if (p.lse && (c.lane & 3) == 0)
      p.lse[head * p.seq + row] = acc.row_max[h] * p.scale + logf(sum) - kLog2Bias<T> * 0.6931471805599453f;
  }
}

template <typename T, int HeadDim>
__device__ void consume(std::uint32_t tiles, const Barriers<TileLayout<T, HeadDim>::kStages>& bars,
                        const KernelParams& p, int warpgroup, int query_tile, int head, int key_tiles) {
  using L = TileLayout<T, HeadDim>;
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = (static_cast<int>(threadIdx.x) / 32) % 4;
  Consumer<T, HeadDim> c;
  c.bars = bars;
  c.q_desc = wgmma::kmajor_descriptor(tiles + warpgroup * kSm90ConsumerRows * wgmma::kSwizzleRowBytes);
  c.k_desc = wgmma::kmajor_descriptor(tiles + L::kK);
  c.v_desc = kIsE4m3<T> ? wgmma::kmajor_descriptor(tiles + L::kV)
                              : wgmma::mnmajor_descriptor(tiles + L::kV, kKvBoxBytes<L::kBlockN>);
  c.first_row = query_tile * kSm90BlockM + warpgroup * kSm90ConsumerRows;
  c.row = c.first_row + warp * 16 + lane / 4;
  c.lane = lane;
  c.turn = IssueTurn{warpgroup};

  Accumulators<T, HeadDim> acc;
#pragma unroll
  for (int i = 0; i < HeadDim / 2; ++i) acc.o[i] = 0.0f;
  acc.row_max[0] = acc.row_max[1] = -INFINITY;
  acc.row_sum[0] = acc.row_sum[1] = 0.0f;

  c.turn.start();
  first_tile<T, HeadDim>(acc, c, p);
  for (int n = 1; n < key_tiles; ++n) next_tile<T, HeadDim>(acc, c, p, n);
  last_output<T, HeadDim>(acc, c, key_tiles);
  store_output<T, HeadDim>(acc, c, p, head);
}

#endif  // GPUBENCH_SM90A

}  // namespace gpubench::kernels::sm90
