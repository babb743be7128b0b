#pragma once
// The NVML entry points Nvml resolves, shared by the sources that define its queries (nvml.cpp,
// nvml_counters.cpp); not for use outside the Nvml class.
#include <optional>

#include "harness/system/nvml.h"

namespace gpubench {

using nvml::Device;
using nvml::Return;

// Entry points, in the signatures of nvml.h; enum arguments are passed as int, which is how
// the C ABI passes them. Any of them may be null: a symbol this driver lacks disables only the
// query that needs it.
struct Nvml::Symbols {
  Return (*init_v2)() = nullptr;
  Return (*shutdown)() = nullptr;
  const char* (*error_string)(Return) = nullptr;
  Return (*system_get_driver_version)(char*, unsigned) = nullptr;
  Return (*get_handle_by_pci_bus_id_v2)(const char*, Device*) = nullptr;
  Return (*get_uuid)(Device, char*, unsigned) = nullptr;
  Return (*get_clock_info)(Device, int, unsigned*) = nullptr;
  Return (*get_max_clock_info)(Device, int, unsigned*) = nullptr;
  Return (*get_power_usage)(Device, unsigned*) = nullptr;
  Return (*get_enforced_power_limit)(Device, unsigned*) = nullptr;
  Return (*get_power_management_limit)(Device, unsigned*) = nullptr;
  Return (*get_temperature)(Device, int, unsigned*) = nullptr;
  Return (*get_current_clocks_event_reasons)(Device, unsigned long long*) = nullptr;
  Return (*get_current_clocks_throttle_reasons)(Device, unsigned long long*) = nullptr;
  Return (*get_ecc_mode)(Device, int*, int*) = nullptr;
  Return (*get_mig_mode)(Device, unsigned*, unsigned*) = nullptr;
  Return (*get_curr_pcie_link_generation)(Device, unsigned*) = nullptr;
  Return (*get_curr_pcie_link_width)(Device, unsigned*) = nullptr;
  Return (*get_max_pcie_link_generation)(Device, unsigned*) = nullptr;
  Return (*get_max_pcie_link_width)(Device, unsigned*) = nullptr;
  Return (*get_nvlink_state)(Device, unsigned, int*) = nullptr;
  Return (*get_nvlink_version)(Device, unsigned, unsigned*) = nullptr;
  Return (*get_nvlink_remote_pci_info_v2)(Device, unsigned, nvml::PciInfo*) = nullptr;
  Return (*get_nvlink_remote_device_type)(Device, unsigned, int*) = nullptr;
  Return (*get_topology_common_ancestor)(Device, Device, int*) = nullptr;
  Return (*get_utilization_rates)(Device, nvml::Utilization*) = nullptr;
  Return (*get_field_values)(Device, int, nvml::FieldValue*) = nullptr;
  Return (*get_total_ecc_errors)(Device, int, int, unsigned long long*) = nullptr;
  Return (*get_retired_pages)(Device, int, unsigned*, unsigned long long*) = nullptr;
  Return (*get_retired_pages_pending_status)(Device, int*) = nullptr;
  Return (*get_remapped_rows)(Device, unsigned*, unsigned*, unsigned*, unsigned*) = nullptr;
  Return (*get_pcie_replay_counter)(Device, unsigned*) = nullptr;
  Return (*get_nvlink_error_counter)(Device, unsigned, int, unsigned long long*) = nullptr;
  Return (*event_set_create)(nvml::EventSet*) = nullptr;
  Return (*register_events)(Device, unsigned long long, nvml::EventSet) = nullptr;
  Return (*event_set_wait_v2)(nvml::EventSet, nvml::EventData*, unsigned) = nullptr;
  Return (*event_set_free)(nvml::EventSet) = nullptr;
};

namespace nvml_detail {

// Calls fn(args..., &out) when the symbol exists and answers NVML_SUCCESS.
template <typename T, typename F, typename... Args>
std::optional<T> query(F* fn, Args... args) {
  if (!fn) return std::nullopt;
  T value{};
  if (fn(args..., &value) != nvml::kSuccess) return std::nullopt;
  return value;
}

}  // namespace nvml_detail
}  // namespace gpubench
