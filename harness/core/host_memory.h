#pragma once
// Host buffers (the transfer and scenarios suites): pinned, pageable and pinned write-combined memory, placed
// on a chosen NUMA node. libnuma is loaded at run time (dlopen of libnuma.so.1), so the binary
// runs where it is absent: buffers then take the kernel's default placement and results say so.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "harness/core/state.h"

namespace gpubench {

enum class HostKind { kPinned, kPageable, kWriteCombined };
HostKind parse_host_kind(const std::string& name);  // "pinned", "pageable", "wc"
// Whether a GPU can address the buffer itself (mapped pinned memory), for SM copies and for
// filling and checking on the GPU; pageable memory is filled and checked by the CPU.
inline bool gpu_addressable(HostKind kind) { return kind != HostKind::kPageable; }

// "0-3,8,10-11" -> {0, 1, 2, 3, 8, 10, 11}, the format of sysfs cpulist files.
std::vector<int> parse_cpu_list(const std::string& text);
// NUMA nodes with both CPUs and memory, from sysfs; empty without NUMA.
std::vector<int> numa_nodes_with_cpus();
// Why host buffers cannot be placed on a node here (libnuma absent, no NUMA), or empty.
std::string numa_unavailable_reason();

class HostBuffer {
 public:
  // `bytes` of `kind` with its pages on `numa_node` (-1: default placement). Memory that cannot
  // be had (more than the system has available, pinning refused) throws SkipSignal.
  HostBuffer(HostKind kind, std::size_t bytes, int numa_node);
  ~HostBuffer();
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  void* get() const { return ptr_; }  // also the GPU's address of pinned kinds (unified addressing)
  std::size_t bytes() const { return bytes_; }
  HostKind kind() const { return kind_; }
  int numa_node() const { return node_; }
  // The node most sampled pages are on; -1 when the kernel does not say (it may not for pages
  // the driver pinned) or libnuma is absent.
  int observed_node() const;

 private:
  HostKind kind_;
  std::size_t bytes_;
  int node_;
  void* ptr_ = nullptr;
  bool numa_allocated_ = false;  // pageable memory from numa_alloc_onnode rather than mmap
};

// A buffer of at least `bytes`, one per (kind, node, slot), kept for the worker's life: pinning
// a GiB costs more than measuring it, and each case of a family would pay that again. Its
// contents are what the last user left. The least recently used buffers are freed to stay
// under a few GiB, except the most recent one (a bidirectional case holds two at once).
HostBuffer& cached_host_buffer(HostKind kind, int numa_node, int slot, std::size_t bytes);

// Runs the calling thread, and threads it starts, on the CPUs of `numa_node` for a scope, as
// nvbandwidth pins itself near the GPU before it allocates and copies. Node -1: no change.
class ScopedCpuAffinity {
 public:
  explicit ScopedCpuAffinity(int numa_node);
  ~ScopedCpuAffinity();
  ScopedCpuAffinity(const ScopedCpuAffinity&) = delete;
  ScopedCpuAffinity& operator=(const ScopedCpuAffinity&) = delete;

 private:
  struct Saved;
  std::unique_ptr<Saved> saved_;
};

// "local": the GPU's node (no placement when it is unknown); "remote": the lowest-numbered
// other node with CPUs and memory, skipped with the reason when there is none.
struct NumaChoice {
  int node = -1;            // -1: no placement (the kernel's default policy)
  std::string skip_reason;  // non-empty: the case cannot run here
  std::string why_none;     // when node is -1 without a skip: why
};
NumaChoice choose_numa_node(const std::string& placement, int gpu_node, const std::vector<int>& nodes,
                            const std::string& numa_unavailable_reason);

// Where a case's host buffers go, from its `numa` axis value ("local", "remote") and the
// benchmark GPU's node: skips when the choice cannot be honoured here, and notes the node in
// the result (host_numa_node, and why there is none). cpu_node is the GPU's own node, where
// the thread that drives the copies runs in either case.
struct HostPlacement {
  int memory_node = -1;
  int cpu_node = -1;
};
HostPlacement place_host_memory(State& s, const std::string& numa_choice);
// Notes where a buffer's pages were found (host_numa_node_observed), once it has been written.
void note_observed_node(State& s, const HostBuffer& buffer);

}  // namespace gpubench
