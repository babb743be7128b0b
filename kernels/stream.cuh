#pragma once
// STREAM kernels (copy, scale, add, triad, dot) plus read-only and write-only, over three
// device arrays of random data, with 16-byte vector accesses. Bytes are counted as BabelStream counts them: the arrays each kernel reads and
// writes, once each (write-allocate traffic is not counted).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/core/cuda_check.h"

namespace gpubench::kernels {

enum class StreamOp { kCopy, kScale, kAdd, kTriad, kDot, kRead, kWrite };
StreamOp parse_stream_op(const std::string& name);  // "copy", "scale", ...
// Arrays the op reads plus arrays it writes: copy/scale/dot 2, add/triad 3, read/write 1.
int arrays_touched(StreamOp op);

template <typename T>
class StreamArrays {
 public:
  // Allocates a, b, c of `bytes_per_array` each on the current device and fills them with
  // random data; an allocation that does not fit throws SkipSignal.
  explicit StreamArrays(std::size_t bytes_per_array);

  // Prepares for `op`: re-randomises its inputs and poisons (NaN) its output.
  void prepare(StreamOp op, cudaStream_t stream);
  // Enqueues one operation. Safe to capture into a graph; repeating it gives the same output.
  void run(StreamOp op, cudaStream_t stream) const;
  // Verifies the output of `op` against values regenerated from the seeds; returns an empty
  // string when correct, otherwise what is wrong.
  std::string check(StreamOp op, cudaStream_t stream) const;

  double bytes_moved(StreamOp op) const { return double(arrays_touched(op)) * double(bytes_per_array_); }
  std::size_t elements() const { return elements_; }

 private:
  std::size_t bytes_per_array_, elements_;
  DeviceBuffer a_, b_, c_, partials_, result_, scratch_;
  int blocks_ = 0;  // resident blocks of the reduction kernels, which fill the device once
};

}  // namespace gpubench::kernels
