#pragma once
// Keeping figures that claim HBM or a link from being served by the L2 (DESIGN.md, "Measurement
// rules"): an untimed write of twice the L2 size between samples (L2Flush, a per-worker resource),
// or buffers that rotate so that the data one sample reads exceeds twice the L2
// (RotatingBuffers).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>

namespace gpubench {

// A device buffer of twice the device's L2 (harness/core/resource.h: s.resource<L2Flush>()).
class L2Flush {
 public:
  explicit L2Flush(int device);
  ~L2Flush();
  L2Flush(const L2Flush&) = delete;
  L2Flush& operator=(const L2Flush&) = delete;

  // Writes the whole buffer on `stream` (a different byte each time, so nothing can elide it).
  void flush(cudaStream_t stream);
  std::size_t bytes() const { return bytes_; }

 private:
  void* buffer_ = nullptr;
  std::size_t bytes_ = 0;
  unsigned char value_ = 0;
};

// How many buffers of `bytes_each` a rotation needs so that together they exceed twice an L2 of
// `l2_bytes`: 1 when one buffer already does (or the L2 size is unknown).
std::size_t rotation_count(std::size_t bytes_each, std::size_t l2_bytes);
// Where each buffer of a rotation starts in its one allocation: buffers 256-byte aligned.
std::size_t rotation_stride(std::size_t bytes_each);

// rotation_count(bytes_each, l2_bytes) buffers in one allocation made by `allocate` (device,
// pinned host or peer memory: the caller's choice) and given back with `release`. next() cycles.
class RotatingBuffers {
 public:
  using Allocate = std::function<void*(std::size_t bytes)>;
  using Release = std::function<void(void*)>;
  RotatingBuffers(std::size_t bytes_each, std::size_t l2_bytes, Allocate allocate, Release release);
  ~RotatingBuffers();
  RotatingBuffers(const RotatingBuffers&) = delete;
  RotatingBuffers& operator=(const RotatingBuffers&) = delete;

  std::size_t count() const { return count_; }
  std::size_t stride() const { return stride_; }
  void* at(std::size_t i) const { return static_cast<char*>(base_) + (i % count_) * stride_; }
  void* next() { return at(next_++); }

 private:
  std::size_t count_, stride_;
  void* base_ = nullptr;
  Release release_;
  std::size_t next_ = 0;
};

}  // namespace gpubench
