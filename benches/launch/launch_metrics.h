#pragma once
// The launch suite's constants and the arithmetic behind its derived figures: kept free of
// CUDA calls so that the CPU tests can check them (tests/test_launch.cpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace gpubench::launch {

// Launches per sample for host enqueue cost and GPU time of back-to-back kernels. Well below
// the launch queue's depth (about a thousand entries): the host never blocks on a full queue
// while enqueueing, and a held stream (harness/core/held_region.h) never waits on the host. 256
// launches of ~2 us make a sample of ~0.5 ms, far above the host clock's and CUDA events'
// resolution (~0.5 us).
constexpr int kBackToBackLaunches = 256;
// Launch + wait round trips per host-timed sample.
constexpr int kRoundTripsPerSample = 32;
// Hops of the cross-stream ping-pong chain per sample (each hop: wait, kernel, record).
constexpr int kHopsPerSample = 64;
// Duration of the kernel a "kernel_50us" wait waits for.
constexpr std::uint64_t kLongKernelNs = 50000;

// The graph family compares a graph of N nodes with the same kernel launched on a stream; the
// stream side is held like every back-to-back GPU measurement, so it is capped at the launches
// that fit the launch queue. The per-kernel cost does not depend on the count.
inline int stream_comparison_launches(int graph_nodes) { return std::min(graph_nodes, kBackToBackLaunches); }

// Host-timed calls on small graphs are repeated within a sample, so that a sample is long
// enough for the host clock's own cost (tens of ns per reading) not to count: cudaGraphExecUpdate
// calls per sample (about 64 nodes' worth), and passes of cudaGraphExecKernelNodeSetParams over
// every node (at least 256 calls).
inline int updates_per_sample(int nodes) { return std::max(1, 64 / std::max(nodes, 1)); }
inline int set_params_passes(int nodes) { return std::max(1, (256 + nodes - 1) / std::max(nodes, 1)); }

// The `grid` axis: one block, or whole waves, where a wave is as many blocks as are resident
// at once (SMs x resident blocks per SM at kTinyBlockThreads threads).
inline std::int64_t grid_blocks(const std::string& grid, int sm_count, int blocks_per_sm) {
  if (grid == "1_block") return 1;
  const std::int64_t wave = std::int64_t{sm_count} * blocks_per_sm;
  if (wave <= 0) throw std::invalid_argument("grid: a wave needs SMs and resident blocks");
  if (grid == "1_wave") return wave;
  if (grid == "4_waves") return 4 * wave;
  throw std::invalid_argument("unknown grid '" + grid + "' (1_block, 1_wave, 4_waves)");
}

// How much cheaper a graph node is than a stream launch, in percent of the stream launch:
// 80 means the graph costs a fifth. Negative when the graph costs more.
inline double reduction_pct(double stream_cost, double graph_cost) {
  if (!(stream_cost > 0) || graph_cost < 0)
    throw std::invalid_argument("reduction_pct: costs must be positive");
  return 100.0 * (1.0 - graph_cost / stream_cost);
}

// Share of a wait's wall time the waiting thread spent on a CPU: ~100 when it spins, near 0
// when it blocks. Clamped, as the two clocks tick separately.
inline double cpu_busy_pct(double thread_cpu_s, double wall_s) {
  if (!(wall_s > 0)) return 0;
  return std::clamp(100.0 * thread_cpu_s / wall_s, 0.0, 100.0);
}

inline double launches_per_s(std::int64_t launches, double seconds) {
  if (!(seconds > 0)) throw std::invalid_argument("launches_per_s: no time elapsed");
  return static_cast<double>(launches) / seconds;
}

// The `sched` axis of launch/sync as cudaDeviceSchedule* flags (values from driver_types.h,
// repeated here so that this header needs no CUDA include).
inline unsigned sched_flag(const std::string& sched) {
  if (sched == "spin") return 0x01;      // cudaDeviceScheduleSpin
  if (sched == "yield") return 0x02;     // cudaDeviceScheduleYield
  if (sched == "blocking") return 0x04;  // cudaDeviceScheduleBlockingSync
  throw std::invalid_argument("unknown sched '" + sched + "' (spin, yield, blocking)");
}

}  // namespace gpubench::launch
