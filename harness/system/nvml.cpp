#include "harness/system/nvml.h"
#include "harness/system/nvml_symbols.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace gpubench {

using nvml_detail::query;

namespace {

template <typename F>
void resolve(void* library, const char* name, F*& slot) {
  slot = reinterpret_cast<F*>(dlsym(library, name));
}

}  // namespace

std::optional<PciAddress> parse_pci_address(const std::string& text) {
  PciAddress a;
  char tail = 0;
  // domain:bus:device.function; a missing domain (old "bus:device.function") means domain 0.
  if (std::sscanf(text.c_str(), "%x:%x:%x.%x%c", &a.domain, &a.bus, &a.device, &a.function,
                  &tail) == 4)
    return a;
  a = PciAddress{};
  if (std::sscanf(text.c_str(), "%x:%x.%x%c", &a.bus, &a.device, &a.function, &tail) == 3)
    return a;
  return std::nullopt;
}

std::string sysfs_pci_name(const PciAddress& a) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%04x:%02x:%02x.%x", a.domain, a.bus, a.device,
                a.function);
  return buffer;
}

std::string Nvml::default_path() {
  const char* env = std::getenv("GPUBENCH_NVML_LIBRARY");
  return env && *env ? env : "libnvidia-ml.so.1";
}

Nvml& Nvml::get() {
  // A function-local static: initialised once, thread-safe, and never destroyed, so that
  // telemetry read from other static destructors still finds it.
  static Nvml* const instance = load(default_path()).release();
  return *instance;
}

std::unique_ptr<Nvml> Nvml::load(const std::string& path) {
  std::unique_ptr<Nvml> nvml(new Nvml());
  nvml->open(path);
  return nvml;
}

void Nvml::open(const std::string& path) {
  path_ = path;
  fn_ = std::make_unique<Symbols>();
  library_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library_) {
    const char* why = dlerror();
    error_ = "cannot load " + path + " (is the NVIDIA driver installed?): " +
             (why ? why : "dlopen failed");
    return;
  }
  Symbols& s = *fn_;
  resolve(library_, "nvmlInit_v2", s.init_v2);
  resolve(library_, "nvmlShutdown", s.shutdown);
  resolve(library_, "nvmlErrorString", s.error_string);
  resolve(library_, "nvmlSystemGetDriverVersion", s.system_get_driver_version);
  resolve(library_, "nvmlDeviceGetHandleByPciBusId_v2", s.get_handle_by_pci_bus_id_v2);
  resolve(library_, "nvmlDeviceGetUUID", s.get_uuid);
  resolve(library_, "nvmlDeviceGetClockInfo", s.get_clock_info);
  resolve(library_, "nvmlDeviceGetMaxClockInfo", s.get_max_clock_info);
  resolve(library_, "nvmlDeviceGetPowerUsage", s.get_power_usage);
  resolve(library_, "nvmlDeviceGetEnforcedPowerLimit", s.get_enforced_power_limit);
  resolve(library_, "nvmlDeviceGetPowerManagementLimit", s.get_power_management_limit);
  resolve(library_, "nvmlDeviceGetTemperature", s.get_temperature);
  resolve(library_, "nvmlDeviceGetCurrentClocksEventReasons", s.get_current_clocks_event_reasons);
  resolve(library_, "nvmlDeviceGetCurrentClocksThrottleReasons",
          s.get_current_clocks_throttle_reasons);
  resolve(library_, "nvmlDeviceGetEccMode", s.get_ecc_mode);
  resolve(library_, "nvmlDeviceGetMigMode", s.get_mig_mode);
  resolve(library_, "nvmlDeviceGetCurrPcieLinkGeneration", s.get_curr_pcie_link_generation);
  resolve(library_, "nvmlDeviceGetCurrPcieLinkWidth", s.get_curr_pcie_link_width);
  resolve(library_, "nvmlDeviceGetMaxPcieLinkGeneration", s.get_max_pcie_link_generation);
  resolve(library_, "nvmlDeviceGetMaxPcieLinkWidth", s.get_max_pcie_link_width);
  resolve(library_, "nvmlDeviceGetNvLinkState", s.get_nvlink_state);
  resolve(library_, "nvmlDeviceGetNvLinkVersion", s.get_nvlink_version);
  resolve(library_, "nvmlDeviceGetNvLinkRemotePciInfo_v2", s.get_nvlink_remote_pci_info_v2);
  resolve(library_, "nvmlDeviceGetNvLinkRemoteDeviceType", s.get_nvlink_remote_device_type);
  resolve(library_, "nvmlDeviceGetTopologyCommonAncestor", s.get_topology_common_ancestor);
  resolve(library_, "nvmlDeviceGetUtilizationRates", s.get_utilization_rates);
  resolve(library_, "nvmlDeviceGetFieldValues", s.get_field_values);
  resolve(library_, "nvmlDeviceGetTotalEccErrors", s.get_total_ecc_errors);
  resolve(library_, "nvmlDeviceGetRetiredPages", s.get_retired_pages);
  resolve(library_, "nvmlDeviceGetRetiredPagesPendingStatus", s.get_retired_pages_pending_status);
  resolve(library_, "nvmlDeviceGetRemappedRows", s.get_remapped_rows);
  resolve(library_, "nvmlDeviceGetPcieReplayCounter", s.get_pcie_replay_counter);
  resolve(library_, "nvmlDeviceGetNvLinkErrorCounter", s.get_nvlink_error_counter);
  resolve(library_, "nvmlEventSetCreate", s.event_set_create);
  resolve(library_, "nvmlDeviceRegisterEvents", s.register_events);
  resolve(library_, "nvmlEventSetWait_v2", s.event_set_wait_v2);
  resolve(library_, "nvmlEventSetFree", s.event_set_free);

  if (!s.init_v2) {
    error_ = path + " has no nvmlInit_v2 (not NVML, or a driver too old)";
    return;
  }
  const Return rc = s.init_v2();
  if (rc != nvml::kSuccess) {
    error_ = "nvmlInit_v2 failed: " + error_string(rc);
    return;
  }
  available_ = true;
}

Nvml::~Nvml() {
  if (available_ && fn_->shutdown) fn_->shutdown();
  // The library stays mapped: NVML may keep threads or atexit handlers that outlive shutdown.
}

std::string Nvml::error_string(Return code) const {
  const char* text = fn_ && fn_->error_string ? fn_->error_string(code) : nullptr;
  return std::string(text ? text : "NVML error") + " (" + std::to_string(code) + ")";
}

std::string Nvml::driver_version() const {
  char buffer[96] = {};  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE is 80
  if (!available_ || !fn_->system_get_driver_version) return "";
  if (fn_->system_get_driver_version(buffer, sizeof buffer) != nvml::kSuccess) return "";
  return buffer;
}

Device Nvml::handle_for_pci_bus_id(const std::string& bus_id) const {
  Device device = nullptr;
  if (!available_ || !fn_->get_handle_by_pci_bus_id_v2) return nullptr;
  if (fn_->get_handle_by_pci_bus_id_v2(bus_id.c_str(), &device) != nvml::kSuccess) return nullptr;
  return device;
}

std::string Nvml::uuid(Device device) const {
  char buffer[96] = {};  // NVML_DEVICE_UUID_V2_BUFFER_SIZE
  if (!available_ || !device || !fn_->get_uuid) return "";
  if (fn_->get_uuid(device, buffer, sizeof buffer) != nvml::kSuccess) return "";
  return buffer;
}

std::optional<unsigned> Nvml::clock_mhz(Device device, int clock_type) const {
  if (!available_ || !device) return std::nullopt;
  return query<unsigned>(fn_->get_clock_info, device, clock_type);
}

std::optional<unsigned> Nvml::max_clock_mhz(Device device, int clock_type) const {
  if (!available_ || !device) return std::nullopt;
  return query<unsigned>(fn_->get_max_clock_info, device, clock_type);
}

std::optional<unsigned> Nvml::power_mw(Device device) const {
  if (!available_ || !device) return std::nullopt;
  return query<unsigned>(fn_->get_power_usage, device);
}

std::optional<unsigned> Nvml::power_limit_mw(Device device) const {
  if (!available_ || !device) return std::nullopt;
  // The enforced limit is what the GPU obeys (the lower of the management limit and any
  // other cap); the management limit is the fallback for drivers without it.
  if (auto limit = query<unsigned>(fn_->get_enforced_power_limit, device)) return limit;
  return query<unsigned>(fn_->get_power_management_limit, device);
}

std::optional<unsigned> Nvml::temperature_c(Device device) const {
  if (!available_ || !device) return std::nullopt;
  return query<unsigned>(fn_->get_temperature, device, nvml::kTemperatureGpu);
}

std::optional<std::uint64_t> Nvml::clocks_event_reasons(Device device) const {
  if (!available_ || !device) return std::nullopt;
  // "Throttle" was renamed "event" (driver 535); the bits are the same.
  auto mask = query<unsigned long long>(fn_->get_current_clocks_event_reasons, device);
  if (!mask) mask = query<unsigned long long>(fn_->get_current_clocks_throttle_reasons, device);
  if (!mask) return std::nullopt;
  return static_cast<std::uint64_t>(*mask);
}

std::optional<bool> Nvml::ecc_enabled(Device device) const {
  if (!available_ || !device || !fn_->get_ecc_mode) return std::nullopt;
  int current = 0, pending = 0;
  if (fn_->get_ecc_mode(device, &current, &pending) != nvml::kSuccess) return std::nullopt;
  return current == nvml::kFeatureEnabled;
}

std::optional<bool> Nvml::mig_enabled(Device device) const {
  if (!available_ || !device || !fn_->get_mig_mode) return std::nullopt;
  unsigned current = 0, pending = 0;
  const nvml::Return status = fn_->get_mig_mode(device, &current, &pending);
  if (status == nvml::kErrorNotSupported) return false;  // a GPU without MIG always runs whole
  if (status != nvml::kSuccess) return std::nullopt;
  return current == nvml::kMigEnable;
}

std::optional<unsigned> Nvml::pcie_gen(Device device) const {
  if (!available_ || !device) return std::nullopt;
  return query<unsigned>(fn_->get_curr_pcie_link_generation, device);
}

std::optional<unsigned> Nvml::pcie_width(Device device) const {
  if (!available_ || !device) return std::nullopt;
  return query<unsigned>(fn_->get_curr_pcie_link_width, device);
}

std::optional<unsigned> Nvml::pcie_gen_max(Device device) const {
  if (!available_ || !device) return std::nullopt;
  return query<unsigned>(fn_->get_max_pcie_link_generation, device);
}

std::optional<unsigned> Nvml::pcie_width_max(Device device) const {
  if (!available_ || !device) return std::nullopt;
  return query<unsigned>(fn_->get_max_pcie_link_width, device);
}

std::vector<NvLinkPort> Nvml::nvlinks(Device device) const {
  std::vector<NvLinkPort> ports;
  if (!available_ || !device || !fn_->get_nvlink_state) return ports;
  // Drivers answer NOT_SUPPORTED or INVALID_ARGUMENT for link indices the GPU lacks, and
  // not necessarily only past the last one, so every index is asked.
  for (unsigned link = 0; link < nvml::kNvLinkMaxLinks; ++link) {
    int state = nvml::kFeatureDisabled;
    if (fn_->get_nvlink_state(device, link, &state) != nvml::kSuccess) continue;
    NvLinkPort port;
    port.link = link;
    port.active = state == nvml::kFeatureEnabled;
    if (port.active) {
      port.version = query<unsigned>(fn_->get_nvlink_version, device, link).value_or(0);
      port.remote_type =
          query<int>(fn_->get_nvlink_remote_device_type, device, link).value_or(
              nvml::kNvLinkDeviceUnknown);
      if (auto pci = query<nvml::PciInfo>(fn_->get_nvlink_remote_pci_info_v2, device, link)) {
        // busId is the documented field; domain/bus/device are the fallback if it is empty.
        pci->bus_id[sizeof pci->bus_id - 1] = '\0';
        port.remote = parse_pci_address(pci->bus_id);
        if (!port.remote) port.remote = PciAddress{pci->domain, pci->bus, pci->device, 0};
      }
    }
    ports.push_back(port);
  }
  return ports;
}

std::optional<int> Nvml::topology_common_ancestor(Device a, Device b) const {
  if (!available_ || !a || !b) return std::nullopt;
  return query<int>(fn_->get_topology_common_ancestor, a, b);
}

}  // namespace gpubench
