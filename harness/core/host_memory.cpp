#include "harness/core/host_memory.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "harness/core/cuda_check.h"

namespace gpubench {
namespace {

// The few libnuma calls placement needs, resolved at run time.
struct Libnuma {
  void* (*alloc_onnode)(std::size_t, int) = nullptr;
  void (*free)(void*, std::size_t) = nullptr;
  void (*set_preferred)(int) = nullptr;
  void (*set_localalloc)() = nullptr;
  int (*move_pages)(int, unsigned long, void**, const int*, int*, int) = nullptr;
  std::string error;  // non-empty: unusable, and why
};

const Libnuma& libnuma() {
  static const Libnuma lib = [] {
    Libnuma l;
    void* handle = dlopen("libnuma.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      l.error = std::string("libnuma.so.1 not loadable (") + (why ? why : "unknown") + ")";
      return l;
    }
    auto available = reinterpret_cast<int (*)()>(dlsym(handle, "numa_available"));
    l.alloc_onnode = reinterpret_cast<void* (*)(std::size_t, int)>(dlsym(handle, "numa_alloc_onnode"));
    l.free = reinterpret_cast<void (*)(void*, std::size_t)>(dlsym(handle, "numa_free"));
    l.set_preferred = reinterpret_cast<void (*)(int)>(dlsym(handle, "numa_set_preferred"));
    l.set_localalloc = reinterpret_cast<void (*)()>(dlsym(handle, "numa_set_localalloc"));
    l.move_pages =
        reinterpret_cast<int (*)(int, unsigned long, void**, const int*, int*, int)>(dlsym(handle, "numa_move_pages"));
    if (!available || !l.alloc_onnode || !l.free || !l.set_preferred || !l.set_localalloc || !l.move_pages)
      l.error = "libnuma.so.1 lacks a needed function";
    else if (available() < 0)
      l.error = "the kernel has no NUMA support (numa_available() < 0)";
    return l;
  }();
  return lib;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// MemAvailable from /proc/meminfo in bytes; 0 when unreadable.
std::size_t host_memory_available() {
  std::istringstream in(read_text("/proc/meminfo"));
  std::string key;
  std::size_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

// Pinning or filling more than this share of the available memory would push the system into
// swap or the OOM killer rather than measure anything.
constexpr double kMaxShareOfAvailable = 0.75;

constexpr std::size_t kCacheCapBytes = std::size_t{4} << 30;
// Cached buffers start at this size, so that a sweep from 4 KiB does not re-pin at every step.
constexpr std::size_t kCacheMinBytes = std::size_t{64} << 20;

const char* kind_name(HostKind kind) {
  switch (kind) {
    case HostKind::kPinned: return "pinned";
    case HostKind::kPageable: return "pageable";
    case HostKind::kWriteCombined: return "write-combined pinned";
  }
  return "?";
}

}  // namespace

HostKind parse_host_kind(const std::string& name) {
  if (name == "pinned") return HostKind::kPinned;
  if (name == "pageable") return HostKind::kPageable;
  if (name == "wc") return HostKind::kWriteCombined;
  throw std::invalid_argument("unknown host memory kind '" + name + "' (pinned, pageable, wc)");
}

std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  std::stringstream in(text);
  std::string range;
  while (std::getline(in, range, ',')) {
    range.erase(std::remove_if(range.begin(), range.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
                range.end());
    if (range.empty()) continue;
    const auto dash = range.find('-');
    const int first = std::stoi(range.substr(0, dash));
    const int last = dash == std::string::npos ? first : std::stoi(range.substr(dash + 1));
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  }
  return cpus;
}

std::vector<int> numa_nodes_with_cpus() {
  const auto with_cpus = parse_cpu_list(read_text("/sys/devices/system/node/has_cpu"));
  const auto with_memory = parse_cpu_list(read_text("/sys/devices/system/node/has_memory"));
  std::vector<int> nodes;
  for (int node : with_cpus)
    if (std::find(with_memory.begin(), with_memory.end(), node) != with_memory.end()) nodes.push_back(node);
  return nodes;
}

std::string numa_unavailable_reason() {
  if (!libnuma().error.empty()) return libnuma().error;
  if (numa_nodes_with_cpus().empty()) return "no NUMA node with CPUs and memory in /sys/devices/system/node";
  return "";
}

HostBuffer::HostBuffer(HostKind kind, std::size_t bytes, int numa_node)
    : kind_(kind), bytes_(bytes), node_(libnuma().error.empty() ? numa_node : -1) {
  const std::size_t available = host_memory_available();
  if (available > 0 && static_cast<double>(bytes) > kMaxShareOfAvailable * static_cast<double>(available))
    throw SkipSignal{std::string("host memory: ") + kind_name(kind) + " buffer of " + std::to_string(bytes) +
                     " bytes exceeds 75% of the " + std::to_string(available) + " bytes available"};
  const Libnuma& numa = libnuma();
  if (kind == HostKind::kPageable) {
    if (node_ >= 0) {
      ptr_ = numa.alloc_onnode(bytes, node_);
      numa_allocated_ = ptr_ != nullptr;
    } else {
      ptr_ = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (ptr_ == MAP_FAILED) ptr_ = nullptr;
    }
    if (!ptr_) throw SkipSignal{"host memory: cannot map " + std::to_string(bytes) + " pageable bytes"};
    return;
  }
  unsigned flags = cudaHostAllocPortable | cudaHostAllocMapped;
  if (kind == HostKind::kWriteCombined) flags |= cudaHostAllocWriteCombined;
  // The driver takes the pages in this thread, under its memory policy: prefer the node.
  if (node_ >= 0) numa.set_preferred(node_);
  const cudaError_t status = cudaHostAlloc(&ptr_, bytes, flags);
  if (node_ >= 0) numa.set_localalloc();
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    ptr_ = nullptr;
    throw SkipSignal{std::string("host memory: cannot pin ") + std::to_string(bytes) + " bytes (" + kind_name(kind) +
                     "): " + cudaGetErrorString(status)};
  }
  GPUBENCH_CUDA(status);
}

HostBuffer::~HostBuffer() {
  if (!ptr_) return;
  if (kind_ != HostKind::kPageable) cudaFreeHost(ptr_);
  else if (numa_allocated_) libnuma().free(ptr_, bytes_);
  else munmap(ptr_, bytes_);
}

int HostBuffer::observed_node() const {
  const Libnuma& numa = libnuma();
  if (!numa.error.empty() || bytes_ == 0) return -1;
  constexpr int kSamples = 16;
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* pages[kSamples];
  int status[kSamples];
  for (int k = 0; k < kSamples; ++k) {
    const std::size_t offset = bytes_ / kSamples * k / page * page;
    pages[k] = static_cast<char*>(ptr_) + offset;
  }
  if (numa.move_pages(0, kSamples, pages, nullptr, status, 0) != 0) return -1;
  std::map<int, int> votes;
  for (int s : status)
    if (s >= 0) ++votes[s];
  if (votes.empty()) return -1;
  return std::max_element(votes.begin(), votes.end(), [](const auto& a, const auto& b) { return a.second < b.second; })
      ->first;
}

HostBuffer& cached_host_buffer(HostKind kind, int numa_node, int slot, std::size_t bytes) {
  struct Entry {
    HostKind kind;
    int node, slot;
    std::unique_ptr<HostBuffer> buffer;
    std::uint64_t last_use = 0;
  };
  static std::vector<Entry> entries;
  static std::uint64_t clock = 0;
  auto it = std::find_if(entries.begin(), entries.end(),
                         [&](const Entry& e) { return e.kind == kind && e.node == numa_node && e.slot == slot; });
  if (it == entries.end()) it = entries.insert(entries.end(), Entry{kind, numa_node, slot, nullptr, 0});
  Entry& entry = *it;
  if (entry.buffer && entry.buffer->bytes() >= bytes) {
    entry.last_use = ++clock;
    return *entry.buffer;
  }
  entry.buffer.reset();  // too small: freed before a larger one is pinned
  const std::size_t wanted = std::max(bytes, kCacheMinBytes);
  std::size_t held = 0;
  for (const auto& e : entries) held += e.buffer ? e.buffer->bytes() : 0;
  while (held + wanted > kCacheCapBytes) {
    Entry* oldest = nullptr;
    for (auto& e : entries)
      if (e.buffer && e.last_use != clock && (!oldest || e.last_use < oldest->last_use)) oldest = &e;
    if (!oldest) break;
    held -= oldest->buffer->bytes();
    oldest->buffer.reset();
  }
  entry.buffer = std::make_unique<HostBuffer>(kind, wanted, numa_node);
  entry.last_use = ++clock;
  return *entry.buffer;
}

struct ScopedCpuAffinity::Saved {
  cpu_set_t mask;
};

ScopedCpuAffinity::ScopedCpuAffinity(int numa_node) {
  if (numa_node < 0) return;
  const auto cpus =
      parse_cpu_list(read_text("/sys/devices/system/node/node" + std::to_string(numa_node) + "/cpulist"));
  auto saved = std::make_unique<Saved>();
  if (sched_getaffinity(0, sizeof saved->mask, &saved->mask) != 0) return;
  cpu_set_t wanted;
  CPU_ZERO(&wanted);
  for (int cpu : cpus)
    if (cpu < CPU_SETSIZE && CPU_ISSET(cpu, &saved->mask)) CPU_SET(cpu, &wanted);
  // None of the node's CPUs allowed to this process (a cpuset): leave the mask alone.
  if (CPU_COUNT(&wanted) == 0 || sched_setaffinity(0, sizeof wanted, &wanted) != 0) return;
  saved_ = std::move(saved);
}

ScopedCpuAffinity::~ScopedCpuAffinity() {
  if (saved_) sched_setaffinity(0, sizeof saved_->mask, &saved_->mask);
}

NumaChoice choose_numa_node(const std::string& placement, int gpu_node, const std::vector<int>& nodes,
                            const std::string& numa_unavailable_reason) {
  NumaChoice choice;
  const bool known = std::find(nodes.begin(), nodes.end(), gpu_node) != nodes.end();
  if (placement == "local") {
    if (!numa_unavailable_reason.empty()) choice.why_none = numa_unavailable_reason;
    else if (gpu_node < 0) choice.why_none = "the GPU's NUMA node is unknown";
    else if (!known) choice.why_none = "the GPU's NUMA node " + std::to_string(gpu_node) + " has no CPUs or memory";
    else choice.node = gpu_node;
    return choice;
  }
  if (placement != "remote") {
    choice.skip_reason = "unknown NUMA placement '" + placement + "'";
  } else if (!numa_unavailable_reason.empty()) {
    choice.skip_reason = "numa:remote needs NUMA placement: " + numa_unavailable_reason;
  } else if (gpu_node < 0) {
    choice.skip_reason = "numa:remote: the GPU's NUMA node is unknown";
  } else {
    for (int node : nodes)
      if (node != gpu_node) return {node, "", ""};
    choice.skip_reason = "numa:remote: only one NUMA node with CPUs and memory";
  }
  return choice;
}

HostPlacement place_host_memory(State& s, const std::string& numa_choice) {
  const GpuInfo& gpu = s.gpu(s.device());
  const std::vector<int> nodes = numa_nodes_with_cpus();
  const NumaChoice choice = choose_numa_node(numa_choice, gpu.numa_node, nodes, numa_unavailable_reason());
  if (!choice.skip_reason.empty()) s.skip(choice.skip_reason);
  HostPlacement placement;
  placement.memory_node = choice.node;
  if (std::find(nodes.begin(), nodes.end(), gpu.numa_node) != nodes.end()) placement.cpu_node = gpu.numa_node;
  s.note("host_numa_node", choice.node >= 0 ? nlohmann::json(choice.node) : nlohmann::json(nullptr));
  if (choice.node < 0) s.note("host_numa_placement", "none: " + choice.why_none);
  s.note("cpu_numa_node", placement.cpu_node >= 0 ? nlohmann::json(placement.cpu_node) : nlohmann::json(nullptr));
  return placement;
}

void note_observed_node(State& s, const HostBuffer& buffer) {
  const int observed = buffer.observed_node();
  s.note("host_numa_node_observed", observed >= 0 ? nlohmann::json(observed) : nlohmann::json("not reported"));
}

}  // namespace gpubench
