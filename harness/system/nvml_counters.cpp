// Nvml's error-counter, utilisation and event queries (nvml.h).
#include "harness/system/nvml.h"
#include "harness/system/nvml_symbols.h"

namespace gpubench {

using nvml_detail::query;

std::optional<nvml::Utilization> Nvml::utilization(Device device) const {
  if (!available_ || !device) return std::nullopt;
  return query<nvml::Utilization>(fn_->get_utilization_rates, device);
}

namespace {

std::optional<std::uint64_t> counter_value(const nvml::FieldValue& v) {
  if (v.result != nvml::kSuccess) return std::nullopt;
  switch (v.value_type) {
    case 1: return v.value.u;
    case 2: return v.value.ul;
    case 3: return v.value.ull;
    case 4: return v.value.sll < 0 ? std::nullopt : std::optional<std::uint64_t>(v.value.sll);
    case 5: return v.value.si < 0 ? std::nullopt : std::optional<std::uint64_t>(v.value.si);
    default: return std::nullopt;  // a double is not a counter
  }
}

}  // namespace

std::vector<std::optional<std::uint64_t>> Nvml::counter_fields(
    Device device, const std::vector<std::pair<unsigned, unsigned>>& fields) const {
  std::vector<std::optional<std::uint64_t>> out(fields.size());
  if (!available_ || !device || !fn_->get_field_values || fields.empty()) return out;
  std::vector<nvml::FieldValue> values(fields.size());
  for (std::size_t i = 0; i < fields.size(); ++i) {
    values[i] = nvml::FieldValue{};
    values[i].field_id = fields[i].first;
    values[i].scope_id = fields[i].second;
  }
  if (fn_->get_field_values(device, static_cast<int>(values.size()), values.data()) != nvml::kSuccess) return out;
  for (std::size_t i = 0; i < fields.size(); ++i) out[i] = counter_value(values[i]);
  return out;
}

std::optional<std::uint64_t> Nvml::volatile_ecc_errors(Device device, int memory_error_type) const {
  if (!available_ || !device) return std::nullopt;
  return query<unsigned long long>(fn_->get_total_ecc_errors, device, memory_error_type, nvml::kVolatileEcc);
}

std::optional<std::uint64_t> Nvml::retired_pages(Device device, int cause) const {
  if (!available_ || !device || !fn_->get_retired_pages) return std::nullopt;
  // A count of 0 with no buffer asks for the count: INSUFFICIENT_SIZE says there are some.
  unsigned count = 0;
  const Return rc = fn_->get_retired_pages(device, cause, &count, nullptr);
  if (rc != nvml::kSuccess && rc != nvml::kErrorInsufficientSize) return std::nullopt;
  return count;
}

std::optional<bool> Nvml::retired_pages_pending(Device device) const {
  if (!available_ || !device) return std::nullopt;
  const auto state = query<int>(fn_->get_retired_pages_pending_status, device);
  if (!state) return std::nullopt;
  return *state == nvml::kFeatureEnabled;
}

std::optional<nvml::RemappedRows> Nvml::remapped_rows(Device device) const {
  if (!available_ || !device || !fn_->get_remapped_rows) return std::nullopt;
  unsigned correctable = 0, uncorrectable = 0, pending = 0, failure = 0;
  if (fn_->get_remapped_rows(device, &correctable, &uncorrectable, &pending, &failure) != nvml::kSuccess)
    return std::nullopt;
  return nvml::RemappedRows{correctable, uncorrectable, pending != 0, failure != 0};
}

std::optional<unsigned> Nvml::pcie_replay_counter(Device device) const {
  if (!available_ || !device) return std::nullopt;
  return query<unsigned>(fn_->get_pcie_replay_counter, device);
}

std::optional<std::uint64_t> Nvml::nvlink_error_counter(Device device, unsigned link, int counter) const {
  if (!available_ || !device) return std::nullopt;
  return query<unsigned long long>(fn_->get_nvlink_error_counter, device, link, counter);
}

nvml::EventSet Nvml::xid_event_set(const std::vector<Device>& devices, std::string& error) const {
  if (!available_ || !fn_->event_set_create || !fn_->register_events || !fn_->event_set_wait_v2) {
    error = available_ ? "this NVML has no event API" : error_;
    return nullptr;
  }
  nvml::EventSet set = nullptr;
  if (const Return rc = fn_->event_set_create(&set); rc != nvml::kSuccess) {
    error = "nvmlEventSetCreate: " + error_string(rc);
    return nullptr;
  }
  int registered = 0;
  for (Device device : devices) {
    const Return rc = device ? fn_->register_events(device, nvml::kEventXidCritical, set) : nvml::kErrorNotSupported;
    if (rc == nvml::kSuccess) ++registered;
    else error = "nvmlDeviceRegisterEvents: " + error_string(rc);
  }
  if (registered == static_cast<int>(devices.size()) && registered > 0) {
    error.clear();
    return set;
  }
  if (registered == 0) {
    free_event_set(set);
    return nullptr;
  }
  return set;  // some devices are watched; `error` names why the others are not
}

Return Nvml::wait_event(nvml::EventSet set, unsigned timeout_ms, nvml::EventData& event) const {
  if (!available_ || !set || !fn_->event_set_wait_v2) return nvml::kErrorNotSupported;
  return fn_->event_set_wait_v2(set, &event, timeout_ms);
}

void Nvml::free_event_set(nvml::EventSet set) const {
  if (set && fn_->event_set_free) fn_->event_set_free(set);
}

}  // namespace gpubench
