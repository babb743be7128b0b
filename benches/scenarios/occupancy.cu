// scenarios/occupancy: does occupancy matter for this kernel? A memory-bound copy and a chain of
// dependent FMAs swept over block size and dynamic shared memory per block, each launched as one
// full wave, the occupancy the CUDA API predicts beside the rate reached.
#include "harness/core/gpubench.h"
#include "harness/core/peaks.h"
#include "kernels/copy.cuh"
#include "kernels/fma_chain.cuh"
#include "kernels/occupancy_probe.cuh"

namespace {

using namespace gpubench;
using kernels::OccupancyKind;

// Twice the H200's 60 MiB L2 many times over: every pass of the copy reads HBM.
constexpr std::size_t kCopyBytes = std::size_t{1} << 30;
constexpr std::uint64_t kCopySeed = 0x0cc;

void run_copy(State& s, const kernels::OccupancyProbe& probe) {
  DeviceBuffer src(kCopyBytes), dst(kCopyBytes), mismatches(sizeof(unsigned long long));
  kernels::fill_pattern(src.get(), kCopyBytes, kCopySeed, s.stream());
  set_hbm_peak(s, 2.0 * kCopyBytes);
  s.count_bytes(2.0 * kCopyBytes);
  s.measure([&](cudaStream_t stream) {
    probe.launch_copy(src.get(), dst.get(), kCopyBytes / kernels::kCopyAccessBytes, stream);
  });
  GPUBENCH_CUDA(cudaMemsetAsync(mismatches.get(), 0, sizeof(unsigned long long), s.stream()));
  kernels::count_mismatches(dst.get(), kCopyBytes, kCopySeed, mismatches.as<unsigned long long>(), s.stream());
  unsigned long long wrong = 0;
  GPUBENCH_CUDA(cudaMemcpyAsync(&wrong, mismatches.get(), sizeof wrong, cudaMemcpyDeviceToHost, s.stream()));
  GPUBENCH_CUDA(cudaStreamSynchronize(s.stream()));
  s.verify(wrong == 0, std::to_string(wrong) + " words of the copy differ from the source");
}

void run_fma(State& s, const kernels::OccupancyProbe& probe) {
  DeviceBuffer out(probe.threads() * sizeof(float));
  set_datasheet_tflops_peak(s, "fp32");  // the FMA pipes' rate, no tensor cores
  s.count_flops(2.0 * static_cast<double>(probe.threads()) * kernels::kOccupancyFmaChain);
  s.measure([&](cudaStream_t stream) { probe.launch_fma(out.as<float>(), stream); });
  GPUBENCH_CUDA(cudaStreamSynchronize(s.stream()));
  const std::size_t wrong = kernels::count_fma_chain_mismatches(out.as<float>(), probe.threads(), kernels::kOccupancyFmaChain, 64);
  s.verify(wrong == 0, std::to_string(wrong) + " of 64 sampled threads end their FMA chain elsewhere than the CPU");
}

void run_occupancy(State& s) {
  const OccupancyKind kind = kernels::parse_occupancy_kind(s.get_str("kind"));
  const int block = static_cast<int>(s.get_int("block"));
  const std::size_t smem = static_cast<std::size_t>(s.get_int("smem_kib")) * 1024;
  const kernels::OccupancyProbe probe(kind, block, smem, s.device());
  if (probe.blocks_per_sm() == 0)
    s.skip("a block of " + std::to_string(block) + " threads with " + std::to_string(smem / 1024) +
           " KiB of shared memory does not fit an SM of this GPU");
  // What the occupancy API predicts is a property of the configuration, not a sampled figure.
  s.note("predicted_occupancy_pct", probe.predicted_occupancy_pct());
  s.note("blocks_per_sm", probe.blocks_per_sm());
  s.note("occupancy", "cudaOccupancyMaxActiveBlocksPerMultiprocessor: " + std::to_string(probe.blocks_per_sm()) +
                          " blocks, " + std::to_string(probe.warps_per_sm()) + " of " +
                          std::to_string(probe.max_warps_per_sm()) + " warps per SM; grid " +
                          std::to_string(probe.grid()) + " blocks (one full wave)");
  if (kind == OccupancyKind::kMemory)
    run_copy(s, probe);
  else
    run_fma(s, probe);
}

const auto& occupancy_family =
    family("scenarios/occupancy")
        .describe("Occupancy against achieved rate: kind memory copies 1 GiB (16-byte accesses, grid-stride, "
                  "bandwidth_gbps counts bytes read and written); kind compute runs a chain of " +
                  std::to_string(kernels::kOccupancyFmaChain) +
                  " dependent FP32 FMAs per thread (tflops, 2 FLOP per FMA), whose latency only other warps hide. "
                  "smem_kib reserves dynamic shared memory per block (never touched) to lower the blocks an SM "
                  "holds; each launch is one full wave at that occupancy. notes.predicted_occupancy_pct: warps per SM "
                  "the CUDA occupancy API allows / the SM's maximum. The finding: the occupancy from which each "
                  "kernel reaches 90 % of its best rate in the sweep")
        .axis_str("kind", {"memory", "compute"}, {"memory"})
        .axis_int("block", {64, 256, 1024}, {256})
        .axis_int("smem_kib", {0, 32, 64, 100, 200}, {0})
        .per_device()
        .run(run_occupancy);

}  // namespace
