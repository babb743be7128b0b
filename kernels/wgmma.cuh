#pragma once
// Hopper (sm_90a) PTX wrappers of kernels/flash_attention_sm90.cu: mbarriers, TMA tensor loads,
// named barriers, register reallocation (setmaxnreg) and warpgroup MMA (wgmma.mma_async). Only
// defined in the sm_90a device pass (GPUBENCH_SM90A): setmaxnreg and wgmma do not exist in plain
// sm_90, and a kernel using these wrappers must keep its body under the same guard. Device code:
// include from .cu files only.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <type_traits>

#include "kernels/wgmma_layout.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GPUBENCH_SM90A 1
#else
#define GPUBENCH_SM90A 0
#endif

namespace gpubench::kernels::sm90 {

template <typename T>
constexpr bool kIsE4m3 = std::is_same_v<T, __nv_fp8_e4m3>;

// The K of one wgmma: 16 for 16-bit types, 32 for e4m3 (32 bytes of a row either way).
template <typename T>
constexpr int kWgmmaK = kIsE4m3<T> ? 32 : 16;

}  // namespace gpubench::kernels::sm90

#if GPUBENCH_SM90A
namespace gpubench::kernels::sm90 {

__device__ __forceinline__ std::uint32_t shared_address(const void* pointer) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
}

// ---- mbarriers (all in this CTA's shared memory, addressed by 32-bit shared addresses) ----

__device__ __forceinline__ void barrier_init(std::uint32_t barrier, std::uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(barrier), "r"(arrivals) : "memory");
}

// Makes the initialised barriers visible to the async proxy (the TMA unit's complete_tx) too.
__device__ __forceinline__ void barrier_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// One arrival that also raises the phase's expected transaction count by `bytes`: the phase
// completes once this arrival is in and TMA has delivered the bytes.
__device__ __forceinline__ void barrier_arrive_expect(std::uint32_t barrier, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(barrier), "r"(bytes) : "memory");
}

// A release arrival: this thread's (and, after a wgmma wait, its warpgroup's) reads are done.
__device__ __forceinline__ void barrier_arrive(std::uint32_t barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(barrier) : "memory");
}

// Spins until the phase of parity `parity` has completed (acquire). A fresh barrier is in phase
// 0, so waiting for parity 1 returns at once: that is how a producer's first pass over its empty
// slots does not block.
__device__ __forceinline__ void barrier_wait(std::uint32_t barrier, std::uint32_t parity) {
  std::uint32_t done = 0;
  do {
    asm volatile(
        "{\n.reg .pred complete;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 complete, [%1], %2;\n"
        "selp.u32 %0, 1, 0, complete;\n}\n"
        : "=r"(done)
        : "r"(barrier), "r"(parity)
        : "memory");
  } while (!done);
}

// ---- TMA ----

__device__ __forceinline__ void prefetch_tensor_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
}

// The box at element coordinates (c0 fastest) of a 3-D tensor map into shared memory at
// `destination`, signalling `barrier` with the bytes written (out-of-bounds elements are zeros
// and count too).
__device__ __forceinline__ void tma_load_3d(std::uint32_t destination, const CUtensorMap* map, int c0, int c1, int c2,
                                            std::uint32_t barrier) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
      "[%5];\n" ::"r"(destination),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(barrier)
      : "memory");
}

// ---- named barriers (id 0 is __syncthreads) and register reallocation ----

__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// Every warp of the warpgroup must execute these (.sync.aligned).
template <int Registers>
__device__ __forceinline__ void registers_decrease() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Registers));
}

template <int Registers>
__device__ __forceinline__ void registers_increase() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Registers));
}

// ---- warpgroup MMA ----

// Orders this thread's earlier register writes (accumulators, A fragments) before the next
// wgmma.mma_async reads them.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }

// Waits until at most `Pending` committed wgmma groups are in flight (groups complete in order).
template <int Pending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
}

// An empty asm that claims to read and write each register: the compiler can neither move an
// access of them across it nor keep a copy elsewhere, which is what keeps accumulator and
// A-fragment accesses on the right side of wgmma issue and wait.
template <int N>
__device__ __forceinline__ void pin(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(r[i])::"memory");
}

template <int N>
__device__ __forceinline__ void pin(std::uint32_t (&r)[N][4]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) asm volatile("" : "+r"(r[i][j])::"memory");
}

// The operand lists of a 64 x N FP32 accumulator: N / 2 registers per thread.
#define GPUBENCH_WGMMA_D64(d) \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define GPUBENCH_WGMMA_LIST64 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
#define GPUBENCH_WGMMA_D32(d) \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define GPUBENCH_WGMMA_LIST32 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"

// D (m64 x N, FP32) (+)= A (m64 x k16, K-major in shared memory) · B (k16 x N, K-major in shared
// memory); `accumulate` 0 ignores D's old value. TAIL: ", 0, 0" (no transposes) for 16-bit
// types; e4m3 (k32) takes no transpose operands, both its operands being K-major always.
#define GPUBENCH_WGMMA_SS(SHAPE, TYPE, LIST, A, B, SCALE, TAIL, OPERANDS)                                    \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " SCALE ", 0;\n"                                           \
               "wgmma.mma_async.sync.aligned." SHAPE ".f32." TYPE "." TYPE " " LIST ", " A ", " B            \
               ", p, 1, 1" TAIL ";\n}\n"                                                                    \
               : OPERANDS                                                                                   \
               : "l"(a), "l"(b), "r"(accumulate)                                                            \
               : "memory")

// D (+)= A (m64 x k from registers: four 32-bit registers per thread) · B (k x N in shared
// memory). TAIL ", 1" (imm-trans-b: B MN-major) for 16-bit types; empty for e4m3 (B K-major).
#define GPUBENCH_WGMMA_RS(SHAPE, TYPE, LIST, A, B, SCALE, TAIL, OPERANDS)                                    \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " SCALE ", 0;\n"                                           \
               "wgmma.mma_async.sync.aligned." SHAPE ".f32." TYPE "." TYPE " " LIST ", " A ", " B            \
               ", p, 1, 1" TAIL ";\n}\n"                                                                    \
               : OPERANDS                                                                                   \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate)                        \
               : "memory")

template <typename T, int N>
__device__ __forceinline__ void wgmma_ss(float (&d)[N / 2], std::uint64_t a, std::uint64_t b, std::uint32_t accumulate) {
  constexpr bool kHalf = std::is_same_v<T, __half>;
  static_assert(N == 128 || N == 64, "m64n128 or m64n64");
  static_assert(!kIsE4m3<T> || N == 128, "e4m3: m64n128k32");
  if constexpr (kIsE4m3<T>)
    GPUBENCH_WGMMA_SS("m64n128k32", "e4m3", GPUBENCH_WGMMA_LIST64, "%64", "%65", "%66", "", GPUBENCH_WGMMA_D64(d));
  else if constexpr (N == 128 && kHalf)
    GPUBENCH_WGMMA_SS("m64n128k16", "f16", GPUBENCH_WGMMA_LIST64, "%64", "%65", "%66", ", 0, 0", GPUBENCH_WGMMA_D64(d));
  else if constexpr (N == 128)
    GPUBENCH_WGMMA_SS("m64n128k16", "bf16", GPUBENCH_WGMMA_LIST64, "%64", "%65", "%66", ", 0, 0", GPUBENCH_WGMMA_D64(d));
  else if constexpr (kHalf)
    GPUBENCH_WGMMA_SS("m64n64k16", "f16", GPUBENCH_WGMMA_LIST32, "%32", "%33", "%34", ", 0, 0", GPUBENCH_WGMMA_D32(d));
  else
    GPUBENCH_WGMMA_SS("m64n64k16", "bf16", GPUBENCH_WGMMA_LIST32, "%32", "%33", "%34", ", 0, 0", GPUBENCH_WGMMA_D32(d));
}

template <typename T, int N>
__device__ __forceinline__ void wgmma_rs(float (&d)[N / 2], const std::uint32_t (&a)[4], std::uint64_t b,
                                         std::uint32_t accumulate) {
  constexpr bool kHalf = std::is_same_v<T, __half>;
  static_assert(N == 128 || N == 64, "m64n128 or m64n64");
  static_assert(!kIsE4m3<T> || N == 128, "e4m3: m64n128k32");
  if constexpr (kIsE4m3<T>)
    GPUBENCH_WGMMA_RS("m64n128k32", "e4m3", GPUBENCH_WGMMA_LIST64, "{%64, %65, %66, %67}", "%68", "%69", "",
                      GPUBENCH_WGMMA_D64(d));
  else if constexpr (N == 128 && kHalf)
    GPUBENCH_WGMMA_RS("m64n128k16", "f16", GPUBENCH_WGMMA_LIST64, "{%64, %65, %66, %67}", "%68", "%69", ", 1",
                      GPUBENCH_WGMMA_D64(d));
  else if constexpr (N == 128)
    GPUBENCH_WGMMA_RS("m64n128k16", "bf16", GPUBENCH_WGMMA_LIST64, "{%64, %65, %66, %67}", "%68", "%69", ", 1",
                      GPUBENCH_WGMMA_D64(d));
  else if constexpr (kHalf)
    GPUBENCH_WGMMA_RS("m64n64k16", "f16", GPUBENCH_WGMMA_LIST32, "{%32, %33, %34, %35}", "%36", "%37", ", 1",
                      GPUBENCH_WGMMA_D32(d));
  else
    GPUBENCH_WGMMA_RS("m64n64k16", "bf16", GPUBENCH_WGMMA_LIST32, "{%32, %33, %34, %35}", "%36", "%37", ", 1",
                      GPUBENCH_WGMMA_D32(d));
}

#undef GPUBENCH_WGMMA_SS
#undef GPUBENCH_WGMMA_RS
#undef GPUBENCH_WGMMA_D64
#undef GPUBENCH_WGMMA_D32
#undef GPUBENCH_WGMMA_LIST64
#undef GPUBENCH_WGMMA_LIST32

}  // namespace gpubench::kernels::sm90
#endif  // GPUBENCH_SM90A
