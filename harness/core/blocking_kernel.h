#pragma once
// The one kernel that holds a stream: work queued behind it starts only when the host releases
// it, so a sample is queued whole (enqueue cost outside the timed region) and several streams
// start together. It spins on a flag in mapped host memory and gives up after a timeout: a host
// that blocks while enqueueing behind it (a full launch queue, a copy that waits for its stream)
// would otherwise hang the run; timed_out() then says the sample is not what it claims.
//
// A module loaded lazily while a blocker spins deadlocks, so before its first block on a device
// the blocker loads every kernel registered with register_blockable_kernels (each kernels/*.cu
// registers its own). Work from elsewhere (library calls) must have run once, unblocked, first.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <initializer_list>

namespace gpubench {

// Kernels that may run behind a blocker; call from a static initialiser of the file that
// defines them.
void register_blockable_kernels(std::initializer_list<const void*> kernels);
// Loads every registered kernel on the current device (once per device and process).
void load_blockable_kernels();

class StreamBlocker {
 public:
  explicit StreamBlocker(double timeout_s = 10.0);
  ~StreamBlocker();  // releases anything still blocked
  StreamBlocker(const StreamBlocker&) = delete;
  StreamBlocker& operator=(const StreamBlocker&) = delete;

  // Holds `stream` (on the current device) until the next release(); every stream blocked
  // between two releases is released at once.
  void block(cudaStream_t stream);
  void release();
  // Whether any blocker of this object gave up before its release (sticky until forget_timeout()).
  bool timed_out() const;
  // Clears timed_out(); only once every blocker launched so far has finished.
  void forget_timeout();
  double timeout_s() const { return static_cast<double>(timeout_ns_) * 1e-9; }

 private:
  volatile unsigned* released_ = nullptr;  // mapped host memory: the released generation
  volatile unsigned* expired_ = nullptr;   // mapped host memory: set by a blocker that gave up
  unsigned pending_ = 1;                   // the generation the next release() releases
  std::uint64_t timeout_ns_;
};

}  // namespace gpubench
