#pragma once
// Copies that run on one or more streams at once (H2D beside D2H, both directions of a GPU pair,
// every pair of an all-to-all), each a lane of the harness's held region
// (harness/core/held_region.h): what a lane copies, the most reps a sample holds, and the
// per-lane metrics.
#include <cuda_runtime_api.h>

#include <functional>
#include <string>
#include <vector>

#include "harness/core/state.h"
#include "harness/core/held_region.h"
#include "kernels/copy.cuh"

namespace gpubench::transfer {

// How long a sample should last: long against event resolution (~0.5 us) and a copy's start,
// short enough that the default sweep keeps to its time budget.
constexpr double kSampleTargetS = 2e-3;
// Copies queued behind a blocker per lane and sample: a stream's queue is finite, and a host
// that blocks while enqueueing behind a spinning kernel would wait for the blocker's timeout.
constexpr int kMaxQueuedCopies = 100;
// Copies per sample where nothing blocks (the host takes part in each copy).
constexpr int kMaxHostCopies = 10000;
// Passes over the buffer within one SM copy launch.
constexpr int kMaxKernelReps = 1 << 20;

struct Lane {
  int device = 0;  // the GPU whose stream issues this lane's work
  // Queues `reps` operations on `stream`: reps copies, or one kernel making reps passes.
  std::function<void(cudaStream_t stream, int reps)> enqueue;
  double counted_bytes_per_rep = 0;  // this lane's share of bandwidth_gbps
  std::string metric;                // when set, this lane's own rate is recorded under it
  double metric_bytes_per_rep = 0;   // bytes per rep for that metric; 0: the counted bytes
  bool one_launch = false;           // reps run inside one kernel launch (no queue to fill)
};

// Copies of `bytes` from src to dst issued on `device`, counting `bytes` per rep. Engine "ce":
// cudaMemcpyAsync, its direction taken from the pointers (unified addressing), so the same
// lane serves host<->device, device-local and peer copies. Engine "sm": the copy kernel, all
// reps in one launch, on `blocks` blocks (0: one per SM), cycling through `rotation`'s sources.
Lane copy_lane(const std::string& engine, int device, void* dst, const void* src, std::size_t bytes, int blocks = 0,
               const kernels::SourceRotation& rotation = {});

// The measured region of a copy case: the lanes in a held region held as `hold` says, batched by
// State::measure_batched for kSampleTargetS (at most kMaxKernelReps when every lane is one
// launch, else kMaxQueuedCopies blocked or kMaxHostCopies unblocked); counts the lanes' bytes,
// records each lane's metric per sample, and notes the method in the result.
void measure_lanes(State& s, const std::vector<Lane>& lanes, Hold hold);

}  // namespace gpubench::transfer
