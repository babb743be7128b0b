#include "kernels/tiny.cuh"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "harness/core/blocking_kernel.h"
#include "harness/core/cuda_check.h"

namespace gpubench::kernels {
namespace {

__device__ unsigned long long g_launch_count;

__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

template <int kWords>
struct TinyArgs {
  unsigned words[kWords];
};

template <bool kSpin>
__device__ __forceinline__ void tiny_body(unsigned increment) {
  if constexpr (kSpin) {
    const long long start = clock64();
    while (clock64() - start < kTinySpinCycles) {
    }
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(&g_launch_count, static_cast<unsigned long long>(increment));
}

template <int kWords, bool kSpin>
__global__ void tiny_kernel(TinyArgs<kWords> args) {
  tiny_body<kSpin>(args.words[kWords - 1]);
}

template <bool kSpin>
__global__ void tiny_kernel_no_args() {
  tiny_body<kSpin>(1);
}

__global__ void spin_for_ns_kernel(std::uint64_t ns) {
  const std::uint64_t start = global_timer_ns();
  while (global_timer_ns() - start < ns) {
  }
  atomicAdd(&g_launch_count, 1ull);
}

// The launch function and kernel address of one (argument bytes, work) variant.
struct Variant {
  void (*launch)(const void* args, int blocks, cudaStream_t stream);
  const void* function;
};

template <int kBytes, bool kSpin>
Variant variant() {
  if constexpr (kBytes == 0) {
    return {[](const void*, int blocks, cudaStream_t stream) {
              tiny_kernel_no_args<kSpin><<<blocks, kTinyBlockThreads, 0, stream>>>();
            },
            reinterpret_cast<const void*>(&tiny_kernel_no_args<kSpin>)};
  } else {
    using Args = TinyArgs<kBytes / sizeof(unsigned)>;
    return {[](const void* args, int blocks, cudaStream_t stream) {
              tiny_kernel<kBytes / sizeof(unsigned), kSpin>
                  <<<blocks, kTinyBlockThreads, 0, stream>>>(*static_cast<const Args*>(args));
            },
            reinterpret_cast<const void*>(&tiny_kernel<kBytes / sizeof(unsigned), kSpin>)};
  }
}

template <bool kSpin>
Variant variant_for(int arg_bytes) {
  switch (arg_bytes) {
    case 0: return variant<0, kSpin>();
    case 64: return variant<64, kSpin>();
    case 256: return variant<256, kSpin>();
    case 1024: return variant<1024, kSpin>();
    case 4096: return variant<4096, kSpin>();
  }
  throw std::invalid_argument("tiny kernel: unsupported argument size " + std::to_string(arg_bytes));
}

// Every variant and the spin kernel run behind the harness's stream blocker (held launches).
bool register_blockable() {
  for (int bytes : kTinyArgBytes)
    register_blockable_kernels({variant_for<true>(bytes).function, variant_for<false>(bytes).function});
  register_blockable_kernels({reinterpret_cast<const void*>(&spin_for_ns_kernel)});
  return true;
}
[[maybe_unused]] const bool registered = register_blockable();

}  // namespace

bool tiny_arg_bytes_supported(int arg_bytes) {
  return std::find(std::begin(kTinyArgBytes), std::end(kTinyArgBytes), arg_bytes) != std::end(kTinyArgBytes);
}

TinyKernel::TinyKernel(int arg_bytes, TinyWork work, int blocks, unsigned increment)
    : arg_bytes_(arg_bytes), blocks_(blocks), increment_(increment) {
  const Variant v = work == TinyWork::kSpin ? variant_for<true>(arg_bytes) : variant_for<false>(arg_bytes);
  launcher_ = v.launch;
  function_ = v.function;
  arg_pointers_[0] = args_;
  set_increment(increment);
}

void TinyKernel::set_increment(unsigned increment) {
  increment_ = increment;
  std::fill(std::begin(args_), std::end(args_), increment);
}

cudaKernelNodeParams TinyKernel::node_params() {
  cudaKernelNodeParams p{};
  p.func = const_cast<void*>(function_);
  p.gridDim = dim3(blocks_);
  p.blockDim = dim3(kTinyBlockThreads);
  p.sharedMemBytes = 0;
  p.kernelParams = arg_bytes_ == 0 ? nullptr : arg_pointers_;
  p.extra = nullptr;
  return p;
}

int TinyKernel::blocks_per_sm() const {
  int blocks = 0;
  GPUBENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, function_, kTinyBlockThreads, 0));
  return blocks;
}

void launch_spin_for_ns(std::uint64_t ns, cudaStream_t stream) {
  spin_for_ns_kernel<<<1, 1, 0, stream>>>(ns);
}

void reset_launch_count() {
  GPUBENCH_CUDA(cudaDeviceSynchronize());
  const unsigned long long zero = 0;
  GPUBENCH_CUDA(cudaMemcpyToSymbol(g_launch_count, &zero, sizeof zero));
}

std::uint64_t launch_count() {
  GPUBENCH_CUDA(cudaDeviceSynchronize());
  unsigned long long count = 0;
  GPUBENCH_CUDA(cudaMemcpyFromSymbol(&count, g_launch_count, sizeof count));
  return count;
}

}  // namespace gpubench::kernels
