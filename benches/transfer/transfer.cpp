#include "benches/transfer/transfer.h"

#include <algorithm>

#include "harness/model/number_text.h"
#include "kernels/pointer_chase.cuh"

namespace gpubench::transfer {
namespace {

std::string format_gbps(double gbps) { return significant_text(gbps, 4); }

std::string gpu_name(int device) { return "gpu" + std::to_string(device); }

}  // namespace

std::vector<std::int64_t> peer_sizes() {
  return {std::int64_t{1} << 12, std::int64_t{1} << 16, std::int64_t{1} << 20,
          std::int64_t{1} << 24, std::int64_t{1} << 28, std::int64_t{1} << 30};
}

std::vector<std::int64_t> all_to_all_sizes() {
  return {std::int64_t{1} << 20, std::int64_t{1} << 24, std::int64_t{1} << 28, std::int64_t{1} << 30};
}

std::vector<std::int64_t> memcpy_latency_sizes() { return {4, 64, 1024, 16384, 65536}; }

bool is_main_path_only_size(std::int64_t bytes) {
  for (int log2 : {14, 18, 22, 26})
    if (bytes == std::int64_t{1} << log2) return true;
  return false;
}

bool keep_host_device_case(const Params& params) {
  const std::string& host = params.str("host");
  const std::string& engine = params.str("engine");
  if (engine == "sm" && host == "pageable") return false;
  // Pageable copies run at a fifth of pinned speed and vary with host memory; 1 GiB of them
  // would take a third of the suite's time and say nothing that 256 MiB does not.
  if (host == "pageable" && params.integer("bytes") == (std::int64_t{1} << 30)) return false;
  if (params.str("numa") == "remote" && !(host == "pinned" && engine == "ce")) return false;
  const bool main_path = host == "pinned" && engine == "ce" && params.str("numa") == "local";
  return main_path || !is_main_path_only_size(params.integer("bytes"));
}

bool keep_peer_case(const Params& params) {
  const int src = params.gpu("src"), dst = params.gpu("dst");
  if (src == dst) return false;
  if (params.str("dir") == "bidir" && src > dst) return false;
  if (params.str("path") == "staged" && !(params.str("engine") == "ce" && params.str("op") == "write")) return false;
  return true;
}

bool keep_peer_latency_case(const Params& params) { return params.gpu("peer") != params.gpu("gpu"); }

int directions_of(const std::string& dir) { return dir == "bidir" ? 2 : 1; }

double device_local_counted_bytes(std::size_t bytes) { return 2.0 * static_cast<double>(bytes); }

double all_to_all_counted_bytes(std::size_t bytes, int gpus) {
  return static_cast<double>(bytes) * gpus * (gpus - 1);
}

const GpuInfo* find_gpu(const Context& context, int device) {
  for (const auto& g : context.gpus)
    if (g.index == device) return &g;
  return nullptr;
}

const GpuLink* find_link(const Context& context, int a, int b) {
  int ia = -1, ib = -1;
  for (std::size_t i = 0; i < context.gpus.size(); ++i) {
    if (context.gpus[i].index == a) ia = static_cast<int>(i);
    if (context.gpus[i].index == b) ib = static_cast<int>(i);
  }
  if (ia < 0 || ib < 0 || static_cast<std::size_t>(ia) >= context.links.size() ||
      static_cast<std::size_t>(ib) >= context.links[ia].size())
    return nullptr;
  return &context.links[ia][ib];
}

std::string describe_pair(const Context& context, int a, int b) {
  const GpuLink* link = find_link(context, a, b);
  if (!link) return "link unknown";
  if (link->nvlinks > 0) return link->kind + " (" + std::to_string(link->nvlinks) + " NVLinks)";
  return (link->p2p_access ? "PCIe P2P (" : "no peer access (") + link->kind + ")";
}

Peak pcie_peak(const GpuInfo& gpu, int directions) {
  const double per_direction = gpu.pcie_peak_gbps();
  if (per_direction <= 0) return {0, gpu_name(gpu.index) + ": PCIe generation or width unknown"};
  const int gen = gpu.pcie.gen_max > 0 ? gpu.pcie.gen_max : gpu.pcie.gen;
  const int width = gpu.pcie.width > 0 ? gpu.pcie.width : gpu.pcie.width_max;
  std::string source = "PCIe Gen" + std::to_string(gen) + " x" + std::to_string(width) + " of " +
                       gpu_name(gpu.index) + ": " + format_gbps(per_direction) + " GB/s per direction";
  if (directions > 1) source += " x " + std::to_string(directions) + " directions";
  return {per_direction * directions, source};
}

Peak peer_peak(const Context& context, int src, int dst, int directions) {
  const GpuInfo* a = find_gpu(context, src);
  const GpuInfo* b = find_gpu(context, dst);
  const GpuLink* link = find_link(context, src, dst);
  if (!a || !b || !link) return {0, "no context for the pair " + gpu_name(src) + ", " + gpu_name(dst)};
  if (link->nvlinks > 0) {
    double per_link = std::min(a->nvlink_gbps_per_link, b->nvlink_gbps_per_link);
    if (per_link <= 0) per_link = std::max(a->nvlink_gbps_per_link, b->nvlink_gbps_per_link);
    if (per_link <= 0) return {0, link->kind + ": NVLink per-link rate unknown"};
    std::string source = link->kind + ": " + std::to_string(link->nvlinks) + " NVLinks x " + format_gbps(per_link) +
                         " GB/s per direction";
    if (directions > 1) source += " x " + std::to_string(directions) + " directions";
    return {link->nvlinks * per_link * directions, source};
  }
  const Peak pa = pcie_peak(*a, directions), pb = pcie_peak(*b, directions);
  if (pa.gbps <= 0 || pb.gbps <= 0) return {0, "PCIe peer-to-peer: " + (pa.gbps <= 0 ? pa.source : pb.source)};
  return {std::min(pa.gbps, pb.gbps), "PCIe peer-to-peer (" + link->kind + "), slower end: " +
                                          (pa.gbps <= pb.gbps ? pa.source : pb.source)};
}

Peak staged_peak(const Context& context, int src, int dst, int directions) {
  const GpuInfo* a = find_gpu(context, src);
  const GpuInfo* b = find_gpu(context, dst);
  if (!a || !b) return {0, "no context for the pair " + gpu_name(src) + ", " + gpu_name(dst)};
  const Peak pa = pcie_peak(*a, directions), pb = pcie_peak(*b, directions);
  if (pa.gbps <= 0 || pb.gbps <= 0) return {0, "staged through host: " + (pa.gbps <= 0 ? pa.source : pb.source)};
  return {std::min(pa.gbps, pb.gbps),
          "staged through host memory, slower PCIe end: " + (pa.gbps <= pb.gbps ? pa.source : pb.source)};
}

Peak all_to_all_peak(const Context& context, const std::vector<int>& gpus) {
  double total = 0;
  for (int src : gpus) {
    const GpuInfo* g = find_gpu(context, src);
    if (!g) return {0, "no context for " + gpu_name(src)};
    double pairs = 0;
    bool all_nvlink = true;
    for (int dst : gpus) {
      if (dst == src) continue;
      const Peak p = peer_peak(context, src, dst, 1);
      if (p.gbps <= 0) return {0, "pair " + gpu_name(src) + " -> " + gpu_name(dst) + ": " + p.source};
      pairs += p.gbps;
      const GpuLink* link = find_link(context, src, dst);
      all_nvlink = all_nvlink && link && link->nvlinks > 0;
    }
    const double egress = all_nvlink ? g->nvlink_peak_gbps() : g->pcie_peak_gbps();
    total += egress > 0 ? std::min(egress, pairs) : pairs;
  }
  return {total, "sum over the " + std::to_string(gpus.size()) +
                     " GPUs of min(own NVLink or PCIe rate per direction, sum of its pairs' direct peaks)"};
}

std::vector<std::uint64_t> make_stride_cycle(std::size_t working_set_bytes) {
  const std::size_t stride = kernels::kChaseNodeBytes / sizeof(std::uint64_t);
  const std::size_t nodes = working_set_bytes / kernels::kChaseNodeBytes;
  // The rest of each line is non-zero filler, as in make_chase_cycle.
  std::vector<std::uint64_t> chain(working_set_bytes / sizeof(std::uint64_t), 0x5A5A5A5A5A5A5A5Aull);
  for (std::size_t i = 0; i < nodes; ++i) chain[i * stride] = ((i + 1) % nodes) * stride;
  return chain;
}

}  // namespace gpubench::transfer
