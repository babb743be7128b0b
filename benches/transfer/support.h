#pragma once
// Device-side support shared by the transfer families: the current device and peer access as
// scoped state, and source data, poison and verification wherever a buffer lives.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/cuda_check.h"
#include "harness/core/scoped_device.h"
#include "harness/core/state.h"
#include "kernels/copy.cuh"

namespace gpubench::transfer {

// Puts peer access between two GPUs, both ways, in the wanted state for a scope and undoes what
// it changed: enabled for the direct path, disabled for the path the driver stages through host
// memory. Peer access is a property of the worker's contexts, so each case sets its own.
class PeerAccessScope {
 public:
  PeerAccessScope(int a, int b, bool enable);
  ~PeerAccessScope();
  PeerAccessScope(const PeerAccessScope&) = delete;
  PeerAccessScope& operator=(const PeerAccessScope&) = delete;

 private:
  bool enable_;
  std::vector<std::pair<int, int>> changed_;  // (device, peer) whose access this scope switched
};

// Skips the case unless `reader` can map `owner`'s memory (cudaDeviceCanAccessPeer), naming
// the link the pair has: a pair without peer access is reported as such, never as 0 GB/s.
void require_peer_access(State& s, int reader, int owner);

int sm_count(int device);
// Device memory on `device`, whichever device is current.
DeviceBuffer allocate_on(int device, std::size_t bytes);

// Where a buffer's words are written and checked from: a GPU that can address it (its own
// memory, a peer's with access enabled, mapped pinned host memory), or kOnCpu for pageable
// host memory.
constexpr int kOnCpu = -1;
void fill_source(void* data, std::size_t bytes, std::uint64_t seed, int where);
// The sources an SM copy from memory remote to `reader` (host, a peer) cycles through: enough
// copies of `bytes` that one pass over them exceeds twice the reader's L2, which would otherwise
// serve every repetition after the first (kernels/copy.cuh). One source for CE copies and for
// sizes beyond twice the L2. Noted in the result.
kernels::SourceRotation remote_source_rotation(State& s, const std::string& engine, int reader, std::size_t bytes);
inline std::size_t rotation_bytes(const kernels::SourceRotation& r, std::size_t bytes) {
  return r.count == 1 ? bytes : r.count * r.stride;
}
// fill_source for each source of the rotation starting at `data`.
void fill_sources(void* data, const kernels::SourceRotation& r, std::size_t bytes, std::uint64_t seed, int where);
void poison_destination(void* data, std::size_t bytes, int where);
// Verifies that `data` holds the pattern of `seed` (what the copy's source held) and records
// the result: "<what>: N of M words differ from the source".
void verify_copy(State& s, const std::string& what, const void* data, std::size_t bytes, std::uint64_t seed, int where);

}  // namespace gpubench::transfer
