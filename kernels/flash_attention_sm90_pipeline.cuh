#pragma once
// The shared-memory side of kernels/flash_attention_sm90.cu: where its tiles and mbarriers lie,
// and the producer's elected thread, which loads Q once and then K_n and V_n by TMA into stages
// that the consumers free (the pipeline of the kernel's top comment).
#include <cuda.h>

#include <cstdint>

#include "kernels/flash_attention_sm90_tile.cuh"
#include "kernels/flash_sm90_tiling.cuh"
#include "kernels/wgmma.cuh"

namespace gpubench::kernels::sm90 {

// Elements in a box's 128-byte row.
template <typename T>
constexpr int kBoxColumns = static_cast<int>(wgmma::kSwizzleRowBytes / sizeof(T));

// Offsets from the 1024-byte aligned base of the dynamic shared memory.
template <typename T, int HeadDim>
struct TileLayout {
  static constexpr int kBytesPer = static_cast<int>(sizeof(T));
  static constexpr int kStages = flash_sm90_stages(HeadDim, kBytesPer), kBlockN = flash_sm90_block_n(HeadDim);
  static constexpr std::uint32_t kQBytes = kSm90BlockM * HeadDim * kBytesPer, kTileBytes = kBlockN * HeadDim * kBytesPer;
  static constexpr std::uint32_t kK = kQBytes, kV = kK + kStages * kTileBytes, kBarriers = kV + kStages * kTileBytes;
  static constexpr std::uint32_t kBytes = kBarriers + (1 + 4 * kStages) * 8;
  static_assert(kBytes + 1024 == flash_sm90_shared_bytes(HeadDim, kBytesPer), "the host's shared-memory size");
  static_assert(kQBytes % 1024 == 0 && kTileBytes % 1024 == 0, "tiles at the swizzle period");
};

struct Slot {
  int stage;
  std::uint32_t parity;
};

template <int Stages>
__device__ __forceinline__ Slot slot_of(int tile) {
  return {tile % Stages, static_cast<std::uint32_t>(tile / Stages) & 1u};
}

#if GPUBENCH_SM90A

constexpr int kConsumerWarps = 8;  // arrivals that free a K or V stage

template <int Stages>
struct Barriers {
  std::uint32_t base;
  __device__ std::uint32_t q_full() const { return base; }
  __device__ std::uint32_t k_full(int s) const { return base + 8u * (1 + s); }
  __device__ std::uint32_t v_full(int s) const { return base + 8u * (1 + Stages + s); }
  __device__ std::uint32_t k_empty(int s) const { return base + 8u * (1 + 2 * Stages + s); }
  __device__ std::uint32_t v_empty(int s) const { return base + 8u * (1 + 3 * Stages + s); }
  __device__ void init() const {
    barrier_init(q_full(), 1);
    for (int s = 0; s < Stages; ++s) {
      barrier_init(k_full(s), 1), barrier_init(v_full(s), 1);
      barrier_init(k_empty(s), kConsumerWarps), barrier_init(v_empty(s), kConsumerWarps);
    }
    barrier_init_fence();
  }
};

// The producer's elected thread: Q once, then K_n and V_n into their stages as they free up. A
// K tile (and a 16-bit V tile) is HeadDim x sizeof(T) / 128 boxes of BlockN rows side by side;
// e4m3's transposed V tile is one box of 128 packed keys x D rows at key column n x BlockN.
template <typename T, int HeadDim>
__device__ void produce(const CUtensorMap* q_map, const CUtensorMap* k_map, const CUtensorMap* v_map,
                        std::uint32_t tiles, const Barriers<TileLayout<T, HeadDim>::kStages>& bars, int head,
                        int first_query, int key_tiles) {
  using L = TileLayout<T, HeadDim>;
  constexpr int kBoxes = HeadDim / kBoxColumns<T>;
  prefetch_tensor_map(q_map), prefetch_tensor_map(k_map), prefetch_tensor_map(v_map);
  barrier_arrive_expect(bars.q_full(), L::kQBytes);
#pragma unroll
  for (int b = 0; b < kBoxes; ++b)
    tma_load_3d(tiles + b * kQBoxBytes, q_map, b * kBoxColumns<T>, first_query, head, bars.q_full());
  // Key tile n into `tile` once its stage is empty, announced on `full`.
  const auto load = [&](bool transposed, const CUtensorMap* map, std::uint32_t tile, std::uint32_t empty,
                        std::uint32_t full, std::uint32_t parity, int n) {
    barrier_wait(empty, parity ^ 1u);
    barrier_arrive_expect(full, L::kTileBytes);
    if (transposed) {
      tma_load_3d(tile, map, n * L::kBlockN, 0, head, full);
      return;
    }
#pragma unroll
    for (int b = 0; b < kBoxes; ++b)
      tma_load_3d(tile + b * kKvBoxBytes<L::kBlockN>, map, b * kBoxColumns<T>, n * L::kBlockN, head, full);
  };
  for (int n = 0; n < key_tiles; ++n) {
    const Slot slot = slot_of<L::kStages>(n);
    load(false, k_map, tiles + L::kK + slot.stage * L::kTileBytes, bars.k_empty(slot.stage), bars.k_full(slot.stage),
         slot.parity, n);
    load(kIsE4m3<T>, v_map, tiles + L::kV + slot.stage * L::kTileBytes, bars.v_empty(slot.stage),
         bars.v_full(slot.stage), slot.parity, n);
  }
}

#endif  // GPUBENCH_SM90A

}  // namespace gpubench::kernels::sm90
