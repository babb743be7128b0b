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
//
// e4m3 (FP8, D = 128): the same schedule with k32 wgmmas, whose operands are both K-major. Q and K
// rows are 128 bytes, one box each; V arrives repacked (kernels/flash_sm90_v_pack.cuh) as D rows
// of 128 keys, one box per tile, read K-major like K. P is lifted by 2^8 and rounded to e4m3 in
// the registers that held S: V's packed key order is the order in which S's accumulator holds
// the keys, so no shuffle moves P into the A fragments. 4 stages (145 KiB); O is stored in bf16
// scaled by V's descale, Q's and K's descales folded into the softmax scale. At twice the MMA
// rate the exp2 of a tile takes as long as its MMAs, so the overlap matters twice as much.
#include "kernels/flash_attention_sm90.cuh"

#include <cuda.h>

#include <cmath>
#include <initializer_list>
#include <stdexcept>

#include "harness/core/cuda_check.h"
#include "kernels/flash_attention_sm90_consumer.cuh"
#include "kernels/tma_tensor_map.cuh"
#include "kernels/wgmma.cuh"

namespace gpubench::kernels {
namespace {

constexpr int kProducerRegisters = 24, kConsumerRegisters = 240;  // setmaxnreg's targets
// setmaxnreg.inc waits until the block's register pool holds what it asks for: the kernel must
// start with 384 x this many, or the consumers wait forever (the count is exact: 168).
constexpr int kEntryRegisters =
    (128 * kProducerRegisters + 256 * kConsumerRegisters + kSm90Threads - 1) / kSm90Threads;

// Block b: head b / query_tiles, query tile query_tiles - 1 - b % query_tiles.
template <typename T, int HeadDim>
__global__ void __launch_bounds__(kSm90Threads, 1)
    flash_sm90_kernel(const __grid_constant__ CUtensorMap q_map, const __grid_constant__ CUtensorMap k_map,
                      const __grid_constant__ CUtensorMap v_map, const sm90::KernelParams p) {
#if GPUBENCH_SM90A
  using L = sm90::TileLayout<T, HeadDim>;
  extern __shared__ unsigned char shared[];
  const std::uint32_t tiles = (sm90::shared_address(shared) + 1023u) & ~1023u;
  const sm90::Barriers<L::kStages> bars{tiles + L::kBarriers};
  const int head = static_cast<int>(blockIdx.x) / p.query_tiles;
  const int query_tile = p.query_tiles - 1 - static_cast<int>(blockIdx.x) % p.query_tiles;
  const int key_tiles = static_cast<int>(flash_sm90_key_tiles(query_tile, p.seq, p.causal, L::kBlockN));
  const int warpgroup = static_cast<int>(threadIdx.x) / sm90::kWarpgroupThreads;
  if (threadIdx.x == 0) bars.init();
  __syncthreads();
  if (warpgroup == 0) {
    sm90::registers_decrease<kProducerRegisters>();
    if (threadIdx.x == 0)
      sm90::produce<T, HeadDim>(&q_map, &k_map, &v_map, tiles, bars, head, query_tile * kSm90BlockM, key_tiles);
    return;
  }
  sm90::registers_increase<kConsumerRegisters>();
  sm90::consume<T, HeadDim>(tiles, bars, p, warpgroup - 1, query_tile, head, key_tiles);
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

dim3 grid_of(std::int64_t heads_total, std::int64_t seq) {
  return dim3(static_cast<unsigned>(heads_total * flash_sm90_query_tiles(seq)));
}

template <typename T, int HeadDim>
void launch(const CUtensorMap& q_map, const CUtensorMap& k_map, const CUtensorMap& v_map,
            const sm90::KernelParams& params, std::int64_t heads_total, cudaStream_t stream) {
  const auto kernel = flash_sm90_kernel<T, HeadDim>;
  const std::size_t shared = flash_sm90_shared_bytes(HeadDim, sizeof(T));
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
  kernel<<<grid_of(heads_total, params.seq), kSm90Threads, shared, stream>>>(q_map, k_map, v_map, params);
  GPUBENCH_CUDA(cudaGetLastError());
}

constexpr double kLog2e = 1.4426950408889634;

// Q, K, V as D x S x (B·H): a box is 128 bytes of one head's rows, the rows past S zeros.
template <typename T, int HeadDim>
void launch_16bit(const FlashAttentionArgs& args, cudaStream_t stream) {
  const TmaElement element = args.kind == Float16Kind::kBfloat16 ? TmaElement::kBfloat16 : TmaElement::kFloat16;
  const auto map = [&](const void* base, int box_rows) {
    return swizzled_tensor_map(base, element, args.head_dim, args.seq, args.heads_total, sm90::kBoxColumns<T>,
                               box_rows);
  };
  constexpr int kBlockN = sm90::TileLayout<T, HeadDim>::kBlockN;
  const sm90::KernelParams params{args.o,
                                  args.lse,
                                  static_cast<int>(args.seq),
                                  static_cast<int>(flash_sm90_query_tiles(args.seq)),
                                  args.scale,
                                  static_cast<float>(args.scale * kLog2e),
                                  1.0f,
                                  args.causal};
  launch<T, HeadDim>(map(args.q, kSm90BlockM), map(args.k, kBlockN), map(args.v, kBlockN), params, args.heads_total,
                     stream);
}

template <typename T>
void launch_head_dim(const FlashAttentionArgs& args, cudaStream_t stream) {
  if (args.head_dim == 64) launch_16bit<T, 64>(args, stream);
  else if (args.head_dim == 128) launch_16bit<T, 128>(args, stream);
  else launch_16bit<T, 256>(args, stream);
}

// Q and K as D x S x (B·H) bytes, one 128-byte box per row; V packed as S' x D x (B·H), a box of
// 128 packed keys x D rows.
void launch_e4m3(const FlashAttentionFp8Args& args, cudaStream_t stream) {
  using T = __nv_fp8_e4m3;
  constexpr int kHeadDim = 128, kBlockN = sm90::TileLayout<T, kHeadDim>::kBlockN;
  const auto map = [&](const void* base, int box_rows) {
    return swizzled_tensor_map(base, TmaElement::kByte, kHeadDim, args.seq, args.heads_total, sm90::kBoxColumns<T>,
                               box_rows);
  };
  const CUtensorMap v_map = swizzled_tensor_map(args.v_packed, TmaElement::kByte, flash_sm90_fp8_packed_keys(args.seq),
                                                kHeadDim, args.heads_total, kBlockN, kHeadDim);
  const double qk_scale = static_cast<double>(args.scale) * args.q_descale * args.k_descale;
  const sm90::KernelParams params{args.o,
                                  args.lse,
                                  static_cast<int>(args.seq),
                                  static_cast<int>(flash_sm90_query_tiles(args.seq)),
                                  static_cast<float>(qk_scale),
                                  static_cast<float>(qk_scale * kLog2e),
                                  args.v_descale,
                                  args.causal};
  launch<T, kHeadDim>(map(args.q, kSm90BlockM), map(args.k, kBlockN), v_map, params, args.heads_total, stream);
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

std::string flash_attention_sm90_fp8_unsupported(std::int64_t head_dim, int cc_major, int cc_minor) {
  if (flash_sm90_stages(head_dim, 1) == 0)
    return "our Hopper e4m3 kernel runs head_dim 128, not " + std::to_string(head_dim);
  return flash_attention_sm90_unsupported(head_dim, cc_major, cc_minor);
}

bool flash_attention_sm90_code_present() {
  static const bool present = [] {
    cudaFuncAttributes attributes{};
    GPUBENCH_CUDA(cudaFuncGetAttributes(&attributes, flash_sm90_probe_kernel));
    return attributes.sharedSizeBytes >= kProbeIntsSm90a * sizeof(int);
  }();
  return present;
}

dim3 flash_attention_sm90_grid(const FlashAttentionArgs& args) { return grid_of(args.heads_total, args.seq); }

namespace {

// What both entry points refuse: an empty or oversized problem, pointers TMA cannot read, no
// sm_90a code.
void check_launchable(const char* what, std::int64_t heads_total, std::int64_t seq,
                      std::initializer_list<const void*> pointers) {
  if (heads_total < 1 || seq < 1 || seq > INT32_MAX / kSm90BlockM ||
      heads_total * flash_sm90_query_tiles(seq) > INT32_MAX)
    throw std::invalid_argument(std::string(what) + ": sequence length " + std::to_string(seq) + " or head count " +
                                std::to_string(heads_total) + " out of range");
  for (const void* pointer : pointers)
    if (!aligned16(pointer)) throw std::invalid_argument(std::string(what) + ": operands must be 16-byte aligned (TMA)");
  if (!flash_attention_sm90_code_present())
    throw std::runtime_error(std::string(what) + ": built without sm_90a code for this device");
}

}  // namespace

void flash_attention_forward_sm90(const FlashAttentionArgs& args, cudaStream_t stream) {
  if (flash_sm90_stages(args.head_dim) == 0)
    throw std::invalid_argument("flash_attention_forward_sm90: head_dim " + std::to_string(args.head_dim) +
                                " (64, 128, 256)");
  check_launchable("flash_attention_forward_sm90", args.heads_total, args.seq, {args.q, args.k, args.v, args.o});
  if (args.kind == Float16Kind::kHalf) launch_head_dim<__half>(args, stream);
  else launch_head_dim<__nv_bfloat16>(args, stream);
}

void flash_attention_forward_sm90_fp8(const FlashAttentionFp8Args& args, cudaStream_t stream) {
  if (flash_sm90_stages(args.head_dim, 1) == 0)
    throw std::invalid_argument("flash_attention_forward_sm90_fp8: head_dim " + std::to_string(args.head_dim) +
                                " (128)");
  check_launchable("flash_attention_forward_sm90_fp8", args.heads_total, args.seq, {args.q, args.k, args.v_packed, args.o});
  launch_e4m3(args, stream);
}

}  // namespace gpubench::kernels
