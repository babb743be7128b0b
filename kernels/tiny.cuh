#pragma once
// Kernels for the launch suite: a near-empty kernel whose argument block is 0 to 4 KiB and
// which optionally spins a few hundred ns per block, and a kernel that spins for a set time (for
// waits that must really wait). Both may run behind the harness's stream blocker.
//
// Every launch of the tiny and spin kernels adds to a per-device launch counter (one thread of
// block 0 does one atomic add), so a benchmark can check that every launch it counted ran.
#include <cuda_runtime.h>

#include <cstdint>

namespace gpubench::kernels {

constexpr int kTinyBlockThreads = 128;
// The "spin" work of the tiny kernel: every block waits this many SM cycles, about 300 ns at
// the H200's 1980 MHz maximum SM clock (longer at lower clocks).
constexpr long long kTinySpinCycles = 600;
// Argument block sizes the tiny kernel is built for. 0 means a kernel with no parameters.
constexpr int kTinyArgBytes[] = {0, 64, 256, 1024, 4096};
constexpr int kTinyMaxArgBytes = 4096;

bool tiny_arg_bytes_supported(int arg_bytes);

enum class TinyWork { kNone, kSpin };

// One shape of the tiny kernel. With arguments, the block is filled with `increment` in every
// 32-bit word and the kernel adds its last word to the counter, so the count also checks that
// the whole argument block arrived. Without arguments it adds 1.
// Not copyable: node_params() hands out pointers into the object.
class TinyKernel {
 public:
  TinyKernel(int arg_bytes, TinyWork work, int blocks, unsigned increment = 1);
  TinyKernel(const TinyKernel&) = delete;
  TinyKernel& operator=(const TinyKernel&) = delete;

  // An ordinary <<<blocks, kTinyBlockThreads, 0, stream>>> launch. Launch errors are left for
  // the caller to collect once per batch (cudaGetLastError), outside any timed region.
  void launch(cudaStream_t stream) const { launcher_(args_, blocks_, stream); }
  // Kernel node parameters for this launch; the pointers stay valid while this object lives.
  cudaKernelNodeParams node_params();
  void set_increment(unsigned increment);
  // What the counter grows by per launch.
  unsigned increment() const { return arg_bytes_ == 0 ? 1u : increment_; }
  int blocks() const { return blocks_; }
  int arg_bytes() const { return arg_bytes_; }
  // Resident blocks per SM for this kernel at kTinyBlockThreads threads (occupancy), on the
  // current device.
  int blocks_per_sm() const;

 private:
  using Launcher = void (*)(const void* args, int blocks, cudaStream_t stream);
  int arg_bytes_;
  int blocks_;
  unsigned increment_;
  Launcher launcher_;
  const void* function_;
  alignas(16) unsigned args_[kTinyMaxArgBytes / sizeof(unsigned)];
  void* arg_pointers_[1];
};

// A one-block kernel that spins for `ns` of %globaltimer (whose resolution may be up to 1 us)
// and then adds 1 to the launch counter.
void launch_spin_for_ns(std::uint64_t ns, cudaStream_t stream);

// The launch counter of the current device. Both synchronise the device.
void reset_launch_count();
std::uint64_t launch_count();

}  // namespace gpubench::kernels
