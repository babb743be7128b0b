// `gpubench info`: the context as text, its link matrix and the health findings of its GPUs.
#include "harness/report/info_text.h"

#include "harness/model/health.h"
#include "harness/model/text_table.h"

namespace gpubench {
namespace {

std::string or_dash(const std::string& text) { return text.empty() ? "-" : text; }

std::string yes_no(const std::optional<bool>& value, const char* yes, const char* no) {
  return value ? (*value ? yes : no) : "unknown";
}

std::string pcie_text(int gen, int width) {
  if (gen == 0 && width == 0) return "unknown";
  return (gen ? "Gen" + std::to_string(gen) : std::string("Gen?")) + " x" +
         (width ? std::to_string(width) : std::string("?"));
}

std::string gbps(double value) { return value > 0 ? format_number(value) + " GB/s" : "unknown"; }

std::string bytes_text(std::uint64_t bytes) {
  if (bytes == 0) return "unknown";
  const double mib = static_cast<double>(bytes) / (1 << 20);
  return mib >= 1024 ? format_number(mib / 1024) + " GiB" : format_number(mib) + " MiB";
}

std::string bridge_list(const std::vector<std::string>& bridges) {
  std::string text;
  for (const std::string& bridge : bridges) text += (text.empty() ? "" : " > ") + bridge;
  return text;
}

std::string gpu_label(const GpuInfo& g) { return "GPU" + std::to_string(g.index); }

std::string gpu_block(const GpuInfo& g) {
  TextTable table;
  table.header = {"GPU " + std::to_string(g.index), or_dash(g.name)};
  auto row = [&](const std::string& key, const std::string& value) {
    table.rows.push_back({key, value});
  };
  row("UUID", or_dash(g.uuid));
  row("PCI bus id", or_dash(g.pci_bus_id));
  row("NUMA node", g.numa_node >= 0 ? std::to_string(g.numa_node) : "none");
  row("PCIe path", g.pcie_path.empty() ? std::string("unknown") : bridge_list(g.pcie_path));
  row("compute capability",
      std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor) + ", " +
          std::to_string(g.sm_count) + " SMs");
  row("memory", bytes_text(g.memory_bytes) + ", " + std::to_string(g.memory_bus_width_bits) +
                    "-bit bus at " + std::to_string(g.mem_clock_max_mhz) + " MHz max");
  row("L2 cache", bytes_text(g.l2_bytes));
  row("SM clock max", std::to_string(g.sm_clock_max_mhz) + " MHz");
  row("PCIe", pcie_text(g.pcie.gen, g.pcie.width) + " now, " +
                  pcie_text(g.pcie.gen_max, g.pcie.width_max) + " max");
  row("NVLink", !g.nvlinks_active     ? std::string("unknown")
                : *g.nvlinks_active > 0 ? std::to_string(*g.nvlinks_active) + " links active x " +
                                              gbps(g.nvlink_gbps_per_link)
                                        : std::string("none active"));
  row("ECC", yes_no(g.ecc_enabled, "on", "off"));
  row("MIG", yes_no(g.mig_mode, "on", "off"));
  row("power limit", g.power_limit_w > 0 ? format_number(g.power_limit_w) + " W" : "unknown");
  row("peak HBM", gbps(g.hbm_peak_gbps()));
  const double pcie = g.pcie_peak_gbps(), nvlink = g.nvlink_peak_gbps();
  row("peak PCIe", pcie > 0 ? gbps(pcie) + " per direction" : "unknown");
  row("peak NVLink", nvlink > 0 ? gbps(nvlink) + " per direction" : "none");
  return table.to_text();
}

std::string link_matrix(const Context& c) {
  TextTable table;
  table.header = {""};
  for (const auto& g : c.gpus) table.header.push_back(gpu_label(g));
  table.header.push_back("NUMA");
  for (std::size_t i = 0; i < c.gpus.size(); ++i) {
    std::vector<std::string> row = {gpu_label(c.gpus[i])};
    for (std::size_t j = 0; j < c.gpus.size(); ++j)
      row.push_back(i < c.links.size() && j < c.links[i].size() ? c.links[i][j].kind : "?");
    row.push_back(c.gpus[i].numa_node >= 0 ? std::to_string(c.gpus[i].numa_node) : "N/A");
    table.rows.push_back(row);
  }
  std::string out = table.to_text();
  std::string no_peer;
  for (std::size_t i = 0; i < c.links.size(); ++i)
    for (std::size_t j = i + 1; j < c.links[i].size(); ++j)
      if (!c.links[i][j].p2p_access)
        no_peer += " " + gpu_label(c.gpus[i]) + "-" + gpu_label(c.gpus[j]);
  if (c.gpus.size() > 1)
    out += no_peer.empty() ? "Peer access: every pair\n" : "No peer access:" + no_peer + "\n";
  out +=
      "\nLegend:\n"
      "  X    = self\n"
      "  SYS  = through PCIe and the interconnect between NUMA nodes (e.g. QPI/UPI)\n"
      "  NODE = through PCIe and between PCIe host bridges within a NUMA node\n"
      "  PHB  = through PCIe and a PCIe host bridge (typically the CPU)\n"
      "  PXB  = through several PCIe bridges, without a host bridge\n"
      "  PIX  = through at most a single PCIe bridge\n"
      "  NV#  = through a bonded set of # NVLinks\n"
      "  ?    = unknown (NVML unavailable)\n";
  return out;
}

std::vector<std::vector<std::string>> health_findings(const Context& c) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& g : c.gpus) {
    // Inactive links matter where the model normally has them: some of this GPU's are up, or
    // another GPU of the same model has some (PCIe cards without a bridge list idle links).
    bool model_has_nvlink = false;
    for (const auto& other : c.gpus)
      if (other.name == g.name && other.nvlinks_active.value_or(0) > 0) model_has_nvlink = true;
    for (const HealthFinding& f : gpu_health(g, model_has_nvlink ? g.nvlinks_total : 0))
      if (f.bad) rows.push_back({gpu_label(g), f.text});
      else if (!f.unknown.empty()) rows.push_back({gpu_label(g), "unknown (" + f.unknown + "): " + f.text});
  }
  return rows;
}

}  // namespace

std::string format_info(const Context& c) {
  TextTable versions;
  versions.header = {"component", "version"};
  versions.rows = {{"driver", or_dash(c.driver_version)}, {"CUDA driver", or_dash(c.cuda_driver)},
                   {"CUDA runtime", or_dash(c.cuda_runtime)}, {"cuBLAS", or_dash(c.cublas)},
                   {"cuDNN", or_dash(c.cudnn)},           {"NCCL", or_dash(c.nccl)}};
  std::string out = versions.to_text();
  out += c.nvml_available ? "NVML: available\n" : "NVML: unavailable: " + c.nvml_error + "\n";
  if (c.gpus.empty()) {
    out += "\nNo usable GPU: " + (c.gpu_error.empty() ? "none found" : c.gpu_error) + "\n";
    return out;
  }
  for (const auto& g : c.gpus) out += "\n" + gpu_block(g);
  out += "\nLinks (as nvidia-smi topo -m)\n" + link_matrix(c);
  TextTable health;
  health.header = {"GPU", "finding"};
  health.rows = health_findings(c);
  out += "\nHealth\n";
  if (!c.nvml_available) out += "(NVML unavailable: clocks, NVLinks and modes unchecked)\n";
  out += health.rows.empty() ? "no findings\n" : health.to_text();
  return out;
}

}  // namespace gpubench
