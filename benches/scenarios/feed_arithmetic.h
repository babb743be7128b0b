#pragma once
// The arithmetic of scenarios/host_feed, GPU-free (tested on the CPU): from the time a pipeline
// of batches takes copied alone, computed alone and fed (copies and compute together), how much
// the two overlapped, and the arithmetic intensity at which the host link and the GPU take
// equally long, below which the link sets the pace.
#include <algorithm>

namespace gpubench::scenarios {

struct FeedTimes {
  double copy_s = 0, compute_s = 0, fed_s = 0;  // the same batches, alone and together
};

// How much of the shorter part was hidden behind the longer one: 100 when fed takes
// max(copy, compute) (perfect overlap), 0 when it takes copy + compute (none), clamped to 0-100.
inline double overlap_pct(const FeedTimes& t) {
  const double shorter = std::min(t.copy_s, t.compute_s);
  if (shorter <= 0) return 0;
  return std::clamp(100.0 * (t.copy_s + t.compute_s - t.fed_s) / shorter, 0.0, 100.0);
}

// The fed pipeline's rate as a fraction of the compute alone: 1 when feeding costs nothing.
inline double fed_ratio(const FeedTimes& t) { return t.fed_s > 0 ? t.compute_s / t.fed_s : 0; }

// FLOP per byte at which copying a byte takes as long as computing on it: compute rate (FLOP/s)
// over link rate (byte/s). Below it, with perfect overlap, the pipeline runs at the link's pace.
inline double crossover_flop_per_byte(double compute_flop_per_s, double link_byte_per_s) {
  return link_byte_per_s > 0 ? compute_flop_per_s / link_byte_per_s : 0;
}

// The fed time a pipeline of `batches` would take: with overlap (copies of one batch hidden
// behind the compute of another, two buffers or more), the longer part plus one batch of the
// shorter (the first copy, or the last compute); without, the sum.
inline double predicted_fed_s(const FeedTimes& alone, int batches, bool overlapped) {
  if (!overlapped || batches <= 0) return alone.copy_s + alone.compute_s;
  return std::max(alone.copy_s, alone.compute_s) + std::min(alone.copy_s, alone.compute_s) / batches;
}

}  // namespace gpubench::scenarios
