// Our Hopper fused attention forward (issue 36): flash_attention.cu's algorithm on sm_90a.
//
// Tiles. One block per (head, 128-query tile); keys stream in tiles of BlockN = 128 keys (64 at
// D = 256). Three warpgroups: warpgroup 0 is the producer, 1 and 2 the consumers, each owning 64
// query rows (the M of one m64nNk16 wgmma). Registers move to the consumers with setmaxnreg
// (producer 24, consumers 240: 128 x (24 + 2 x 240) fits the 64 Ki of an SM), since a consumer
// thread holds the S tile (64 x BlockN FP32: BlockN / 2 registers), P as the MMA's A fragments
// (BlockN / 4) and O (64 x D FP32: D / 2) at once: 64 + 32 + 64 at D = 128, 32 + 16 + 128 at
// D = 256. One block per SM (161 KiB of shared memory at D = 128, 145 KiB at D = 64, 193 KiB at
// D = 256).
//
// Shared memory, every tile 1024-byte aligned and written by TMA with the 128B swizzle as boxes
// of 64 columns (128 bytes) x rows: Q (128 x D), and kStages each of K and V (BlockN x D); a
// wider D is D / 64 boxes side by side, one box region after the other. Out-of-bounds rows (past
// the sequence end, per head: the tensor maps are 3-D, D x S x heads) arrive as zeros.
//
// Pipeline (mbarriers): the producer's one elected thread loads Q (q_full), then for key tile n
// waits k_empty[n % stages] and loads K_n (k_full), waits v_empty and loads V_n (v_full); K and V
// have separate barriers so that S = Q·K_nᵀ starts before V_n lands. A full barrier is armed by
// the producer's arrive.expect_tx (1 arrival + the tile's bytes); an empty barrier takes one
// arrival per consumer warp (8), made after the wgmma that read the stage has been waited for.
// Phases: use u of a stage (u = n / stages) waits parity u & 1 on full, the producer waits
// parity (u & 1) ^ 1 on empty, so its first pass runs through.
//
// Overlap inside a warpgroup: iteration n issues S_n = Q·K_nᵀ (D / 16 SS wgmmas) and then O +=
// P_{n-1}·V_{n-1} (BlockN / 16 RS wgmmas per 128 columns of D: P from registers, V MN-major through
// imm-trans-b) as two commit groups, waits for the first (wait_group 1), and runs the mask and
// online softmax of S_n on the CUDA cores while P·V is still on the tensor cores; then it waits for
// P·V, rescales O by the new maxima and packs P_n. Between the warpgroups, two named barriers pass
// a turn to issue MMAs (kWarpgroupPingPong): warpgroup 1 issues after 0 and 0 again after 1, so
// that one's softmax runs under the other's MMAs and the tensor cores see a steady stream. Both
// warpgroups read the same key tiles, so their issue counts (key tiles + 1) match; the last arrival
// of warpgroup 1 is skipped so that no barrier is left half-arrived.
//
// Why: exp2 of a 64 x 128 tile costs half the MMA time of that tile on H100/H200 (16 MUFU
// ops/clk/SM against ~4 K FLOP/clk/SM); serialised, the kernel would run at ~2/3 of the tensor
// cores' rate, overlapped it can approach them.
#include "kernels/flash_attention_sm90.cuh"

#include <cuda.h>

#include <cmath>
#include <stdexcept>

#include "harness/core/cuda_check.h"
#include "kernels/flash_attention_sm90_pipeline.cuh"
#include "kernels/flash_attention_sm90_tile.cuh"
#include "kernels/tma_tensor_map.cuh"
#include "kernels/wgmma.cuh"

namespace gpubench::kernels {
namespace {

struct Sm90Params {
  void* o;
  float* lse;
  int seq, query_tiles;
  float scale, scale_log2;  // scale, and scale x log2(e) for exp2
  bool causal;
};

constexpr int kProducerRegisters = 24, kConsumerRegisters = 240;  // setmaxnreg's targets
// setmaxnreg.inc waits until the block's register pool holds what it asks for: the kernel must
// start with 384 x this many, or the consumers wait forever (the count is exact: 168).
constexpr int kEntryRegisters =
    (128 * kProducerRegisters + 256 * kConsumerRegisters + kSm90Threads - 1) / kSm90Threads;

#if GPUBENCH_SM90A

constexpr int kWarpgroupThreads = 128;
constexpr int kFirstTurnBarrier = 1;       // named barriers 1 and 2 (0 is __syncthreads)
constexpr bool kWarpgroupPingPong = true;  // off: each warpgroup issues whenever it is ready

// The turn to issue MMAs, passed between the two consumer warpgroups (see the top comment).
struct IssueTurn {
  int warpgroup;  // 0 or 1 among the consumers
  __device__ void start() const {
    if (kWarpgroupPingPong && warpgroup == 1) sm90::named_barrier_arrive(kFirstTurnBarrier, 2 * kWarpgroupThreads);
  }
  __device__ void begin() const {
    if (kWarpgroupPingPong) sm90::named_barrier_sync(kFirstTurnBarrier + warpgroup, 2 * kWarpgroupThreads);
  }
  __device__ void end(bool last) const {
    if (kWarpgroupPingPong && !(last && warpgroup == 1))
      sm90::named_barrier_arrive(kFirstTurnBarrier + 1 - warpgroup, 2 * kWarpgroupThreads);
  }
};

template <int HeadDim>
struct Consumer {
  using L = sm90::TileLayout<HeadDim>;
  sm90::Barriers<L::kStages> bars;
  std::uint64_t q_desc, k_desc, v_desc;  // K and V at stage 0
  int first_row, row, lane;              // the warpgroup's first row, the thread's row r
  IssueTurn turn;
  __device__ std::uint64_t k_at(int stage) const { return k_desc + stage * (L::kTileBytes >> 4); }
  __device__ std::uint64_t v_at(int stage) const { return v_desc + stage * (L::kTileBytes >> 4); }
  // After a wgmma wait: the whole warp (and the warpgroup's MMA) is done with the stage.
  __device__ void release(std::uint32_t barrier) const {
    if (lane == 0) sm90::barrier_arrive(barrier);
  }
};

template <int HeadDim>
__device__ __forceinline__ void softmax_tile(sm90::Accumulators<HeadDim>& acc, const Consumer<HeadDim>& c,
                                             const Sm90Params& p, int n, float (&correction)[2]) {
  constexpr int kBlockN = sm90::TileLayout<HeadDim>::kBlockN;
  if (flash_sm90_tile_masked(c.first_row, n, p.seq, p.causal, kBlockN))
    sm90::mask_scores(acc.s, c.row, n * kBlockN, p.seq, p.causal, c.lane);
  sm90::online_softmax(acc.s, acc.row_max, acc.row_sum, correction, p.scale_log2);
}

// Key tile 0: S_0 alone (O is still zero, nothing to overlap with).
template <typename T, int HeadDim>
__device__ __forceinline__ void first_tile(sm90::Accumulators<HeadDim>& acc, const Consumer<HeadDim>& c,
                                           const Sm90Params& p) {
  sm90::barrier_wait(c.bars.q_full(), 0);
  sm90::barrier_wait(c.bars.k_full(0), 0);
  c.turn.begin();
  sm90::pin(acc.s);
  sm90::wgmma_fence();
  sm90::issue_scores<T, HeadDim>(acc.s, c.q_desc, c.k_at(0));
  sm90::wgmma_commit();
  c.turn.end(false);
  sm90::wgmma_wait<0>();
  sm90::pin(acc.s);
  c.release(c.bars.k_empty(0));
  float correction[2];
  softmax_tile(acc, c, p, 0, correction);
  sm90::pack_probabilities<T>(acc.p, acc.s);
}

// Key tile n >= 1: S_n and O += P_{n-1}·V_{n-1} issued together, the softmax of S_n under P·V.
template <typename T, int HeadDim>
__device__ __forceinline__ void next_tile(sm90::Accumulators<HeadDim>& acc, const Consumer<HeadDim>& c,
                                          const Sm90Params& p, int n) {
  constexpr int kStages = sm90::TileLayout<HeadDim>::kStages;
  const sm90::Slot k_slot = sm90::slot_of<kStages>(n), v_slot = sm90::slot_of<kStages>(n - 1);
  sm90::barrier_wait(c.bars.k_full(k_slot.stage), k_slot.parity);
  sm90::barrier_wait(c.bars.v_full(v_slot.stage), v_slot.parity);
  c.turn.begin();
  sm90::pin(acc.s), sm90::pin(acc.o), sm90::pin(acc.p);
  sm90::wgmma_fence();
  sm90::issue_scores<T, HeadDim>(acc.s, c.q_desc, c.k_at(k_slot.stage));
  sm90::wgmma_commit();
  sm90::issue_output<T, HeadDim>(acc.o, acc.p, c.v_at(v_slot.stage));
  sm90::wgmma_commit();
  c.turn.end(false);
  sm90::wgmma_wait<1>();  // S_n is in; P·V may still run
  sm90::pin(acc.s);
  c.release(c.bars.k_empty(k_slot.stage));
  float correction[2];
  softmax_tile(acc, c, p, n, correction);
  sm90::wgmma_wait<0>();
  sm90::pin(acc.o), sm90::pin(acc.p);  // O and the old P fragments only now free to touch
  c.release(c.bars.v_empty(v_slot.stage));
  sm90::rescale<HeadDim>(acc.o, correction);
  sm90::pack_probabilities<T>(acc.p, acc.s);
}

// O += P_{last}·V_{last}, the warpgroup's last turn.
template <typename T, int HeadDim>
__device__ __forceinline__ void last_output(sm90::Accumulators<HeadDim>& acc, const Consumer<HeadDim>& c,
                                            int key_tiles) {
  const sm90::Slot v_slot = sm90::slot_of<sm90::TileLayout<HeadDim>::kStages>(key_tiles - 1);
  sm90::barrier_wait(c.bars.v_full(v_slot.stage), v_slot.parity);
  c.turn.begin();
  sm90::pin(acc.o), sm90::pin(acc.p);
  sm90::wgmma_fence();
  sm90::issue_output<T, HeadDim>(acc.o, acc.p, c.v_at(v_slot.stage));
  sm90::wgmma_commit();
  c.turn.end(true);
  sm90::wgmma_wait<0>();
  sm90::pin(acc.o), sm90::pin(acc.p);
  c.release(c.bars.v_empty(v_slot.stage));
}

// Normalises rows r and r + 8, stores them (4-byte pairs; rows past the sequence end are
// dropped) and, if asked, their natural log-sum-exp max·scale + ln(sum).
template <typename T, int HeadDim>
__device__ __forceinline__ void store_output(const sm90::Accumulators<HeadDim>& acc, const Consumer<HeadDim>& c,
                                             const Sm90Params& p, std::int64_t head) {
  T* out = static_cast<T*>(p.o) + head * p.seq * HeadDim;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float sum = acc.row_sum[h];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    const float inverse = sum > 0.0f ? 1.0f / sum : 0.0f;
    const int row = c.row + 8 * h;
    if (row >= p.seq) continue;
    T* out_row = out + static_cast<std::int64_t>(row) * HeadDim + 2 * (c.lane & 3);
#pragma unroll
    for (int j = 0; j < HeadDim / 8; ++j)
      *reinterpret_cast<std::uint32_t*>(out_row + 8 * j) =
          flash::pack2<T>(acc.o[4 * j + 2 * h] * inverse, acc.o[4 * j + 2 * h + 1] * inverse);
    if (p.lse && (c.lane & 3) == 0) p.lse[head * p.seq + row] = acc.row_max[h] * p.scale + logf(sum);
  }
}

template <typename T, int HeadDim>
__device__ void consume(std::uint32_t tiles, const sm90::Barriers<sm90::TileLayout<HeadDim>::kStages>& bars,
                        const Sm90Params& p, int warpgroup, int query_tile, int head, int key_tiles) {
  using L = sm90::TileLayout<HeadDim>;
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = (static_cast<int>(threadIdx.x) / 32) % 4;
  Consumer<HeadDim> c;
  c.bars = bars;
  c.q_desc = wgmma::kmajor_descriptor(tiles + warpgroup * kSm90ConsumerRows * wgmma::kSwizzleRowBytes);
  c.k_desc = wgmma::kmajor_descriptor(tiles + L::kK);
  c.v_desc = wgmma::mnmajor_descriptor(tiles + L::kV, sm90::kKvBoxBytes<L::kBlockN>);
  c.first_row = query_tile * kSm90BlockM + warpgroup * kSm90ConsumerRows;
  c.row = c.first_row + warp * 16 + lane / 4;
  c.lane = lane;
  c.turn = IssueTurn{warpgroup};

  sm90::Accumulators<HeadDim> acc;
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

// Block b: head b / query_tiles, query tile query_tiles - 1 - b % query_tiles.
template <typename T, int HeadDim>
__global__ void __launch_bounds__(kSm90Threads, 1)
    flash_sm90_kernel(const __grid_constant__ CUtensorMap q_map, const __grid_constant__ CUtensorMap k_map,
                      const __grid_constant__ CUtensorMap v_map, const Sm90Params p) {
#if GPUBENCH_SM90A
  using L = sm90::TileLayout<HeadDim>;
  extern __shared__ unsigned char shared[];
  const std::uint32_t tiles = (sm90::shared_address(shared) + 1023u) & ~1023u;
  const sm90::Barriers<L::kStages> bars{tiles + L::kBarriers};
  const int head = static_cast<int>(blockIdx.x) / p.query_tiles;
  const int query_tile = p.query_tiles - 1 - static_cast<int>(blockIdx.x) % p.query_tiles;
  const int key_tiles = static_cast<int>(flash_sm90_key_tiles(query_tile, p.seq, p.causal, L::kBlockN));
  const int warpgroup = static_cast<int>(threadIdx.x) / kWarpgroupThreads;
  if (threadIdx.x == 0) bars.init();
  __syncthreads();
  if (warpgroup == 0) {
    sm90::registers_decrease<kProducerRegisters>();
    if (threadIdx.x == 0)
      sm90::produce<HeadDim>(&q_map, &k_map, &v_map, tiles, bars, head, query_tile * kSm90BlockM, key_tiles);
    return;
  }
  sm90::registers_increase<kConsumerRegisters>();
  consume<T, HeadDim>(tiles, bars, p, warpgroup - 1, query_tile, head, key_tiles);
#else
  __trap();  // built for plain sm_90 (no wgmma, no setmaxnreg): the host refuses before launching
#endif
}

// Never launched: its static shared memory tells the host which build the device loaded.
constexpr int kProbeIntsSm90a = 64;

__global__ void flash_sm90_probe_kernel(int* out) {
  __shared__ int marker[GPUBENCH_SM90A ? kProbeIntsSm90a : 1];
  constexpr int kInts = sizeof(marker) / sizeof(int);
  marker[threadIdx.x % kInts] = static_cast<int>(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = marker[(threadIdx.x + 1) % kInts];
}

template <typename T, int HeadDim>
void launch(const FlashAttentionArgs& args, cudaStream_t stream) {
  const auto kernel = flash_sm90_kernel<T, HeadDim>;
  const std::size_t shared = flash_sm90_shared_bytes(HeadDim);
  // The register count is the cubin's: checked once per instantiation, not in every launch.
  static const bool registers_checked = [&] {
    cudaFuncAttributes attributes{};
    GPUBENCH_CUDA(cudaFuncGetAttributes(&attributes, kernel));
    if (attributes.numRegs < kEntryRegisters)  // a hang, not an error, if launched
      throw std::runtime_error("flash_attention_forward_sm90: the kernel starts with " +
                               std::to_string(attributes.numRegs) + " registers a thread; setmaxnreg needs " +
                               std::to_string(kEntryRegisters));
    return true;
  }();
  (void)registers_checked;
  // Per launch: the attribute belongs to the current device's context.
  GPUBENCH_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  // Q, K, V as D x S x (B·H): a box is 64 columns of one head's rows, the rows past S zeros.
  const auto map = [&](const void* base, int box_rows) {
    return swizzled_tensor_map_16bit(base, args.kind == Float16Kind::kBfloat16, args.head_dim, args.seq,
                                     args.heads_total, sm90::kBoxColumns, box_rows);
  };
  constexpr int kBlockN = sm90::TileLayout<HeadDim>::kBlockN;
  const CUtensorMap q_map = map(args.q, kSm90BlockM), k_map = map(args.k, kBlockN), v_map = map(args.v, kBlockN);
  const Sm90Params params{args.o,
                          args.lse,
                          static_cast<int>(args.seq),
                          static_cast<int>(flash_sm90_query_tiles(args.seq)),
                          args.scale,
                          static_cast<float>(args.scale * 1.4426950408889634),
                          args.causal};
  kernel<<<flash_attention_sm90_grid(args), kSm90Threads, shared, stream>>>(q_map, k_map, v_map, params);
  GPUBENCH_CUDA(cudaGetLastError());
}

template <typename T>
void launch_head_dim(const FlashAttentionArgs& args, cudaStream_t stream) {
  if (args.head_dim == 64) launch<T, 64>(args, stream);
  else if (args.head_dim == 128) launch<T, 128>(args, stream);
  else launch<T, 256>(args, stream);
}

bool aligned16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

}  // namespace

std::string flash_attention_sm90_unsupported(std::int64_t head_dim, int cc_major, int cc_minor) {
  if (flash_sm90_stages(head_dim) == 0)
    return "our Hopper kernel runs head_dim 64, 128 and 256, not " + std::to_string(head_dim);
  if (cc_major != 9 || cc_minor != 0)
    return "our Hopper kernel needs compute capability 9.0 (wgmma, setmaxnreg: sm_90a); this GPU has " +
           std::to_string(cc_major) + "." + std::to_string(cc_minor);
  return "";
}

bool flash_attention_sm90_code_present() {
  static const bool present = [] {
    cudaFuncAttributes attributes{};
    GPUBENCH_CUDA(cudaFuncGetAttributes(&attributes, flash_sm90_probe_kernel));
    return attributes.sharedSizeBytes >= kProbeIntsSm90a * sizeof(int);
  }();
  return present;
}

dim3 flash_attention_sm90_grid(const FlashAttentionArgs& args) {
  return dim3(static_cast<unsigned>(args.heads_total * flash_sm90_query_tiles(args.seq)));
}

void flash_attention_forward_sm90(const FlashAttentionArgs& args, cudaStream_t stream) {
  if (flash_sm90_stages(args.head_dim) == 0)
    throw std::invalid_argument("flash_attention_forward_sm90: head_dim " + std::to_string(args.head_dim) +
                                " (64, 128, 256)");
  if (args.heads_total < 1 || args.seq < 1 || args.seq > INT32_MAX / kSm90BlockM ||
      args.heads_total * flash_sm90_query_tiles(args.seq) > INT32_MAX)
    throw std::invalid_argument("flash_attention_forward_sm90: sequence length " + std::to_string(args.seq) +
                                " or head count " + std::to_string(args.heads_total) + " out of range");
  if (!aligned16(args.q) || !aligned16(args.k) || !aligned16(args.v) || !aligned16(args.o))
    throw std::invalid_argument("flash_attention_forward_sm90: Q, K, V and O must be 16-byte aligned (TMA)");
  if (!flash_attention_sm90_code_present())
    throw std::runtime_error("flash_attention_forward_sm90: built without sm_90a code for this device");
  if (args.kind == Float16Kind::kHalf) launch_head_dim<__half>(args, stream);
  else launch_head_dim<__nv_bfloat16>(args, stream);
}

}  // namespace gpubench::kernels
