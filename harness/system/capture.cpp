// Context capture (capture.h). Nothing here links against cuBLAS, cuDNN or NCCL.
#include "harness/system/capture.h"

#include <cuda_runtime_api.h>
#include <unistd.h>
#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "harness/system/library.h"
#include "harness/system/nvml.h"
#include "harness/system/pcie_path.h"
#include "harness/system/peaks.h"
#include "harness/model/config_files.h"

namespace gpubench {
namespace {

std::string cuda_error_text(cudaError_t error) {
  return std::string(cudaGetErrorString(error)) + " (" + cudaGetErrorName(error) + ")";
}

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// "16.0 GT/s PCIe" -> 4; the transfer rate doubles per generation from 2.5 GT/s.
int pcie_gen_from_speed(const std::string& text) {
  double gts = 0;
  if (std::sscanf(text.c_str(), "%lf", &gts) != 1 || gts <= 0) return 0;
  int gen = 1;
  for (double rate = 2.5; rate * 1.5 < gts && gen < 6; rate *= 2) ++gen;
  return gen;
}

int int_from_file(const std::string& path, int fallback) {
  int value = fallback;
  std::istringstream(read_line(path)) >> value;
  return value;
}

// Without NVML, sysfs still knows the link. The device's max_link_* is its own capability;
// the upstream port's bounds it (a Gen5 GPU in a Gen4 slot), as NVML's max does.
PcieLink pcie_from_sysfs(const std::string& device_dir) {
  PcieLink link;
  link.gen = pcie_gen_from_speed(read_line(device_dir + "/current_link_speed"));
  link.width = int_from_file(device_dir + "/current_link_width", 0);
  link.gen_max = pcie_gen_from_speed(read_line(device_dir + "/max_link_speed"));
  link.width_max = int_from_file(device_dir + "/max_link_width", 0);
  char resolved[PATH_MAX];
  if (realpath(device_dir.c_str(), resolved)) {
    const std::string parent = std::string(resolved) + "/..";
    const int parent_gen = pcie_gen_from_speed(read_line(parent + "/max_link_speed"));
    const int parent_width = int_from_file(parent + "/max_link_width", 0);
    if (parent_gen > 0 && link.gen_max > 0) link.gen_max = std::min(link.gen_max, parent_gen);
    if (parent_width > 0 && link.width_max > 0)
      link.width_max = std::min(link.width_max, parent_width);
  }
  return link;
}

std::string driver_version_from_proc() {
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 ..."
  const std::string line = read_line("/proc/driver/nvidia/version");
  const auto at = line.find("Kernel Module");
  if (at == std::string::npos) return "";
  std::istringstream rest(line.substr(at + 13));
  std::string version;
  rest >> version;
  return version;
}

std::string cublas_version() {
  const SharedLibrary& library = shared_library("cublas");
  // cublasStatus_t cublasGetProperty(libraryPropertyType, int*): needs no handle, no GPU.
  using Fn = int (*)(int, int*);
  auto get_property = reinterpret_cast<Fn>(library.find("cublasGetProperty"));
  int major = 0, minor = 0, patch = 0;  // MAJOR_VERSION = 0, MINOR_VERSION = 1, PATCH_LEVEL = 2
  if (!get_property || get_property(0, &major) || get_property(1, &minor) ||
      get_property(2, &patch))
    return "";
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::string cudnn_version() {
  auto get_version = reinterpret_cast<std::size_t (*)()>(shared_library("cudnn").find("cudnnGetVersion"));
  return get_version ? cudnn_version_string(get_version()) : "";
}

std::string nccl_version() {
  auto get_version = reinterpret_cast<int (*)(int*)>(shared_library("nccl").find("ncclGetVersion"));
  int code = 0;
  if (!get_version || get_version(&code) != 0) return "";
  return nccl_version_string(code);
}

std::string format_uuid(const cudaUUID_t& uuid) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  char text[64];
  std::snprintf(text, sizeof text,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
  return text;
}

const char* topology_kind(int level) {
  switch (level) {
    case nvml::kTopologyInternal:
    case nvml::kTopologySingle: return "PIX";
    case nvml::kTopologyMultiple: return "PXB";
    case nvml::kTopologyHostBridge: return "PHB";
    case nvml::kTopologyNode: return "NODE";
    case nvml::kTopologySystem: return "SYS";
    default: return "?";
  }
}

struct Probe {  // what capture keeps per GPU beyond GpuInfo, to build the link matrix
  nvml::Device handle = nullptr;
  std::optional<PciAddress> address;
  std::vector<NvLinkPort> ports;
};

GpuInfo capture_gpu(int device, const Nvml& nvml, Probe& probe) {
  GpuInfo g;
  g.index = device;
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
    g.name = prop.name;
    g.uuid = format_uuid(prop.uuid);
    g.sm_count = prop.multiProcessorCount;
    g.cc_major = prop.major;
    g.cc_minor = prop.minor;
    g.memory_bytes = prop.totalGlobalMem;
    g.l2_bytes = static_cast<std::uint64_t>(prop.l2CacheSize);
    g.ecc_enabled = prop.ECCEnabled != 0;
  }
  int value = 0;
  if (cudaDeviceGetAttribute(&value, cudaDevAttrClockRate, device) == cudaSuccess)
    g.sm_clock_max_mhz = (value + 500) / 1000;  // kHz
  if (cudaDeviceGetAttribute(&value, cudaDevAttrMemoryClockRate, device) == cudaSuccess)
    g.mem_clock_max_mhz = (value + 500) / 1000;
  if (cudaDeviceGetAttribute(&value, cudaDevAttrGlobalMemoryBusWidth, device) == cudaSuccess)
    g.memory_bus_width_bits = value;
  char bus_id[64] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device) == cudaSuccess) g.pci_bus_id = bus_id;
  probe.address = parse_pci_address(g.pci_bus_id);
  if (probe.address) {
    const std::string dir = "/sys/bus/pci/devices/" + sysfs_pci_name(*probe.address);
    g.numa_node = int_from_file(dir + "/numa_node", -1);
    g.pcie = pcie_from_sysfs(dir);
    g.pcie_path = pcie_bridges_from_sysfs(dir);
  }

  nvml::Device h = probe.handle = nvml.handle_for_pci_bus_id(g.pci_bus_id);
  if (!h) return g;
  if (auto uuid = nvml.uuid(h); !uuid.empty()) g.uuid = uuid;
  if (auto mhz = nvml.max_clock_mhz(h, nvml::kClockSm)) g.sm_clock_max_mhz = static_cast<int>(*mhz);
  if (g.mem_clock_max_mhz == 0)
    g.mem_clock_max_mhz = static_cast<int>(nvml.max_clock_mhz(h, nvml::kClockMem).value_or(0));
  if (auto v = nvml.pcie_gen(h)) g.pcie.gen = static_cast<int>(*v);
  if (auto v = nvml.pcie_width(h)) g.pcie.width = static_cast<int>(*v);
  if (auto v = nvml.pcie_gen_max(h)) g.pcie.gen_max = static_cast<int>(*v);
  if (auto v = nvml.pcie_width_max(h)) g.pcie.width_max = static_cast<int>(*v);
  probe.ports = nvml.nvlinks(h);
  g.nvlinks_total = static_cast<int>(probe.ports.size());
  g.nvlinks_active = 0;  // NVML answers for this GPU: no port up is a real 0
  for (const auto& port : probe.ports) {
    if (!port.active) continue;
    ++*g.nvlinks_active;
    if (g.nvlink_gbps_per_link == 0) g.nvlink_gbps_per_link = nvlink_link_gbps(port.version);
  }
  if (auto ecc = nvml.ecc_enabled(h)) g.ecc_enabled = ecc;
  g.mig_mode = nvml.mig_enabled(h);
  if (auto mw = nvml.power_limit_mw(h)) g.power_limit_w = *mw / 1000.0;
  g.throttle_mask = nvml.clocks_event_reasons(h);
  return g;
}

GpuLink link_between(const GpuInfo& a, const Probe& pa, const GpuInfo& b, const Probe& pb,
                     const Nvml& nvml) {
  GpuLink link;
  int can_access = 0;
  link.p2p_access =
      cudaDeviceCanAccessPeer(&can_access, a.index, b.index) == cudaSuccess && can_access;
  // Links whose far end is the other GPU, plus, through an NVSwitch fabric, as many as both
  // have into it (nvidia-smi's NV18 between every pair of an HGX H100).
  int direct = 0, switch_a = 0, switch_b = 0;
  for (const auto& port : pa.ports) {
    if (!port.active) continue;
    if (port.remote_type == nvml::kNvLinkDeviceSwitch) ++switch_a;
    else if (port.remote && pb.address && *port.remote == *pb.address) ++direct;
  }
  for (const auto& port : pb.ports)
    if (port.active && port.remote_type == nvml::kNvLinkDeviceSwitch) ++switch_b;
  link.nvlinks = direct + std::min(switch_a, switch_b);
  if (link.nvlinks > 0) {
    link.kind = "NV" + std::to_string(link.nvlinks);
  } else if (auto level = nvml.topology_common_ancestor(pa.handle, pb.handle)) {
    link.kind = topology_kind(*level);
  }
  return link;
}

}  // namespace


Context capture_context() { return capture_context(Nvml::get()); }

Context capture_context(const Nvml& nvml) {
  Context c;
  c.nvml_available = nvml.available();
  c.nvml_error = nvml.error();
  c.driver_version = nvml.driver_version();
  if (c.driver_version.empty()) c.driver_version = driver_version_from_proc();
  int version = 0;
  if (cudaDriverGetVersion(&version) == cudaSuccess) c.cuda_driver = cuda_version_string(version);
  if (cudaRuntimeGetVersion(&version) == cudaSuccess) c.cuda_runtime = cuda_version_string(version);
  c.cublas = cublas_version();
  c.cudnn = cudnn_version();
  c.nccl = nccl_version();
  c.environment = measurement_environment(environ);

  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    c.gpu_error = "cudaGetDeviceCount: " + cuda_error_text(status);
    // With no driver at all, CUDA says the driver is "insufficient"; say what is meant.
    if (c.cuda_driver.empty()) c.gpu_error += "; no NVIDIA driver found (libcuda.so.1)";
    return c;
  }
  if (count == 0) {
    c.gpu_error = "no CUDA device visible (check CUDA_VISIBLE_DEVICES)";
    return c;
  }
  std::vector<Probe> probes(count);
  for (int d = 0; d < count; ++d) c.gpus.push_back(capture_gpu(d, nvml, probes[d]));
  c.links.assign(count, std::vector<GpuLink>(count));
  for (int i = 0; i < count; ++i) {
    for (int j = 0; j < count; ++j) {
      if (i == j) {
        c.links[i][j].kind = "X";
        continue;
      }
      c.links[i][j] = link_between(c.gpus[i], probes[i], c.gpus[j], probes[j], nvml);
    }
  }
  apply_peak_table_file(c, find_config_file("peaks.json"));
  return c;
}

}  // namespace gpubench
