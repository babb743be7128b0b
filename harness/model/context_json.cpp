// The context as JSON: context.gpubench of a result document, minus the run's own fields
// (schema, version, git_commit, command_line, config, complete, interrupted: run_document.cpp).
// Each GPU field is written and read here and nowhere else.
#include <cstdio>
#include <cstdlib>

#include "harness/model/context.h"

namespace gpubench {
namespace {

using nlohmann::json;

// An unset value (not read) is written null, never as a 0 or false that would read as real.
template <typename T>
json value_or_null(const std::optional<T>& value) { return value ? json(*value) : json(nullptr); }

// "9.0", or 9 / 9.0 from a hand-written file; anything else is unknown (0.0).
void read_cc(const JsonAt& gpu, GpuInfo& info) {
  const auto cc = gpu.find("cc");
  if (!cc) return;
  const std::string text = scalar_text(*cc);
  if (std::sscanf(text.c_str(), "%d.%d", &info.cc_major, &info.cc_minor) == 2) return;
  if (std::sscanf(text.c_str(), "%d", &info.cc_major) != 1) info.cc_major = 0;
  info.cc_minor = 0;
}

}  // namespace

json to_json(const GpuInfo& g) {
  json out = {
      {"index", g.index}, {"name", g.name}, {"uuid", g.uuid}, {"pci_bus_id", g.pci_bus_id},
      {"sm_count", g.sm_count}, {"cc", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor)},
      {"memory_bytes", g.memory_bytes}, {"l2_bytes", g.l2_bytes},
      {"sm_clock_max_mhz", g.sm_clock_max_mhz}, {"mem_clock_max_mhz", g.mem_clock_max_mhz},
      {"memory_bus_width_bits", g.memory_bus_width_bits},
      {"pcie", {{"gen", g.pcie.gen}, {"width", g.pcie.width}, {"gen_max", g.pcie.gen_max},
                {"width_max", g.pcie.width_max}}},
      {"nvlink", {{"links_active", value_or_null(g.nvlinks_active)}, {"gbps_per_link", g.nvlink_gbps_per_link}}},
      {"numa_node", g.numa_node}, {"ecc_enabled", value_or_null(g.ecc_enabled)},
      {"mig_mode", value_or_null(g.mig_mode)}, {"power_limit_w", g.power_limit_w},
  };
  // Absent, not empty, where the run recorded none: the file then reads as one from before.
  if (!g.pcie_path.empty()) out["pcie_path"] = g.pcie_path;
  if (!g.error_counters.empty()) {
    json& windows = out["error_counters"] = json::array();
    for (const CounterWindow& w : g.error_counters) windows.push_back(to_json(w));
  }
  return out;
}

GpuInfo read_gpu_info(const JsonAt& gpu) {
  GpuInfo info;
  info.index = optional_int(gpu, "index");
  info.name = optional_string(gpu, "name");
  info.uuid = optional_string(gpu, "uuid");
  info.pci_bus_id = optional_string(gpu, "pci_bus_id");
  info.sm_count = optional_int(gpu, "sm_count");
  read_cc(gpu, info);
  info.memory_bytes = optional_size(gpu, "memory_bytes");
  info.l2_bytes = optional_size(gpu, "l2_bytes");
  info.sm_clock_max_mhz = optional_int(gpu, "sm_clock_max_mhz");
  info.mem_clock_max_mhz = optional_int(gpu, "mem_clock_max_mhz");
  info.memory_bus_width_bits = optional_int(gpu, "memory_bus_width_bits");
  if (auto pcie = gpu.find("pcie")) {
    info.pcie.gen = optional_int(*pcie, "gen");
    info.pcie.width = optional_int(*pcie, "width");
    info.pcie.gen_max = optional_int(*pcie, "gen_max");
    info.pcie.width_max = optional_int(*pcie, "width_max");
  }
  if (auto nvlink = gpu.find("nvlink")) {
    if (auto active = nvlink->find("links_active")) {
      if (active->integer() < 0) active->fail("expected a link count >= 0");
      info.nvlinks_active = optional_int(*nvlink, "links_active");
    }
    info.nvlink_gbps_per_link = optional_number(*nvlink, "gbps_per_link");
  }
  info.numa_node = optional_int(gpu, "numa_node", -1);
  if (auto path = gpu.find("pcie_path"))
    for (const JsonAt& bridge : path->items()) info.pcie_path.push_back(bridge.str());
  info.ecc_enabled = optional_bool(gpu, "ecc_enabled");
  info.mig_mode = optional_bool(gpu, "mig_mode");
  info.power_limit_w = optional_number(gpu, "power_limit_w");
  if (auto windows = gpu.find("error_counters"))
    for (const JsonAt& w : windows->items()) info.error_counters.push_back(read_counter_window(w));
  return info;
}

json to_json(const Context& c) {
  json gpus = json::array(), peak = json::object();
  for (const auto& g : c.gpus) {
    gpus.push_back(to_json(g));
    // Keyed like the benchmark axes name GPUs (dst:gpu0), by CUDA ordinal.
    peak["gpu" + std::to_string(g.index)] = {{"hbm_gbps", g.hbm_peak_gbps()},
                                             {"pcie_gbps", g.pcie_peak_gbps()},
                                             {"nvlink_gbps", g.nvlink_peak_gbps()},
                                             {"tflops", g.tflops_peak},
                                             {"tflops_source", g.tflops_peak_source}};
  }
  json links = json::array();
  for (const auto& row : c.links) {
    json kinds = json::array();
    for (const auto& link : row) kinds.push_back(link.kind);
    links.push_back(kinds);
  }
  return {{"driver_version", c.driver_version}, {"cuda_driver", c.cuda_driver},
          {"cuda_runtime", c.cuda_runtime},     {"cublas", c.cublas},
          {"cudnn", c.cudnn},                   {"nccl", c.nccl},
          {"nvml", {{"available", c.nvml_available}, {"error", c.nvml_error}}},
          {"gpus", gpus},                       {"links", links},
          {"peak", peak},                       {"environment", c.environment}};
}

Context read_context(const JsonAt& gb) {
  Context c;
  for (auto [key, field] : {std::pair{"driver_version", &c.driver_version}, {"cuda_driver", &c.cuda_driver},
                            {"cuda_runtime", &c.cuda_runtime}, {"cublas", &c.cublas},
                            {"cudnn", &c.cudnn}, {"nccl", &c.nccl}})
    if (auto node = gb.find(key)) *field = scalar_text(*node);
  if (auto nvml = gb.find("nvml")) {
    c.nvml_available = optional_bool(*nvml, "available").value_or(false);
    c.nvml_error = optional_string(*nvml, "error");
  } else {
    c.nvml_error = "not recorded in this file";
  }
  if (auto gpus = gb.find("gpus"))
    for (const JsonAt& gpu : gpus->items()) c.gpus.push_back(read_gpu_info(gpu));
  if (auto links = gb.find("links"))
    for (const JsonAt& row : links->items()) {
      c.links.emplace_back();
      for (const JsonAt& cell : row.items()) {
        GpuLink link;
        link.kind = cell.str();
        if (link.kind.rfind("NV", 0) == 0) link.nvlinks = std::atoi(link.kind.c_str() + 2);
        c.links.back().push_back(link);
      }
    }
  if (auto environment = gb.find("environment"))
    for (const auto& [name, value] : environment->members()) c.environment[name] = value.str();
  if (auto peak = gb.find("peak"))
    for (auto& g : c.gpus) {
      const auto mine = peak->find("gpu" + std::to_string(g.index));
      if (!mine) continue;
      g.tflops_peak_source = optional_string(*mine, "tflops_source");
      if (auto tflops = mine->find("tflops"))
        for (const auto& [precision, rate] : tflops->members()) g.tflops_peak[precision] = rate.num();
    }
  return c;
}

}  // namespace gpubench
