#include "harness/system/gpu_probe.h"

#include <cuda_runtime_api.h>

#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "harness/system/nvml.h"

namespace gpubench {
namespace {

std::optional<double> to_double(const std::optional<unsigned>& v) {
  return v ? std::optional<double>(*v) : std::nullopt;
}

class NvmlProbe : public GpuProbe {
 public:
  explicit NvmlProbe(const Nvml& nvml) : nvml_(nvml) {}
  ~NvmlProbe() override { nvml_.free_event_set(events_); }

  bool available() const override { return nvml_.available(); }

  TelemetryReading read(int device) override {
    TelemetryReading r;
    const nvml::Device h = handle(device);
    if (!h) return r;
    r.sm_clock_mhz = to_double(nvml_.clock_mhz(h, nvml::kClockSm));
    r.mem_clock_mhz = to_double(nvml_.clock_mhz(h, nvml::kClockMem));
    if (const auto mw = nvml_.power_mw(h)) r.power_w = *mw / 1000.0;
    r.temp_c = to_double(nvml_.temperature_c(h));
    if (const auto u = nvml_.utilization(h)) r.gpu_util_pct = u->gpu, r.mem_util_pct = u->memory;
    r.clock_event_reasons = nvml_.clocks_event_reasons(h);
    // Cumulative counters: nvmlDeviceGetPcieThroughput would block 20 ms per direction.
    const auto fields = nvml_.counter_fields(h, {{nvml::kFieldPcieTxBytes, 0},
                                                 {nvml::kFieldPcieRxBytes, 0},
                                                 {nvml::kFieldNvLinkDataTx, nvml::kScopeAllLinks},
                                                 {nvml::kFieldNvLinkDataRx, nvml::kScopeAllLinks}});
    r.pcie_tx_bytes = fields[0];
    r.pcie_rx_bytes = fields[1];
    r.nvlink_tx_kib = fields[2];
    r.nvlink_rx_kib = fields[3];
    return r;
  }

  ErrorCounters counters(int device) override {
    ErrorCounters c;
    const nvml::Device h = handle(device);
    if (!h) return c;
    c.ecc_corrected = nvml_.volatile_ecc_errors(h, nvml::kMemoryErrorCorrected);
    c.ecc_uncorrected = nvml_.volatile_ecc_errors(h, nvml::kMemoryErrorUncorrected);
    c.retired_pages_sbe = nvml_.retired_pages(h, nvml::kRetiredMultipleSingleBit);
    c.retired_pages_dbe = nvml_.retired_pages(h, nvml::kRetiredDoubleBit);
    c.retired_pages_pending = nvml_.retired_pages_pending(h);
    if (const auto rows = nvml_.remapped_rows(h)) {
      c.remapped_correctable = rows->correctable;
      c.remapped_uncorrectable = rows->uncorrectable;
      c.remap_pending = rows->pending;
      c.remap_failure = rows->failure;
    }
    if (const auto replays = nvml_.pcie_replay_counter(h)) c.pcie_replay = *replays;
    for (const NvLinkPort& port : nvml_.nvlinks(h)) {
      if (!port.active) continue;
      NvLinkErrorCounts link;
      link.link = port.link;
      link.crc_flit = nvml_.nvlink_error_counter(h, port.link, nvml::kNvLinkErrorCrcFlit);
      link.crc_data = nvml_.nvlink_error_counter(h, port.link, nvml::kNvLinkErrorCrcData);
      link.replay = nvml_.nvlink_error_counter(h, port.link, nvml::kNvLinkErrorReplay);
      link.recovery = nvml_.nvlink_error_counter(h, port.link, nvml::kNvLinkErrorRecovery);
      c.nvlinks.push_back(link);
    }
    return c;
  }

  std::string watch_xids(const std::vector<int>& devices) override {
    std::lock_guard<std::mutex> lock(mutex_);
    nvml_.free_event_set(events_);
    watched_.clear();
    std::vector<nvml::Device> handles;
    for (int device : devices) {
      handles.push_back(handle_locked(device));
      watched_[handles.back()] = device;
    }
    std::string error;
    events_ = nvml_.xid_event_set(handles, error);
    return error;
  }

  std::optional<DeviceXid> wait_xid(int timeout_ms) override {
    nvml::EventSet set = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      set = events_;
    }
    if (!set) {
      std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
      return std::nullopt;
    }
    nvml::EventData event{};
    const nvml::Return rc = nvml_.wait_event(set, static_cast<unsigned>(timeout_ms), event);
    if (rc != nvml::kSuccess) {
      // An error that returns at once (a GPU lost) must not turn the watch into a busy loop.
      if (rc != nvml::kErrorTimeout) std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
      return std::nullopt;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    const auto device = watched_.find(event.device);
    return DeviceXid{device == watched_.end() ? -1 : device->second, event.event_data};
  }

 private:
  // CUDA ordinals and NVML indices differ (CUDA_VISIBLE_DEVICES, FASTEST_FIRST ordering), so
  // the handle is found by PCI address, once per device: the sampler asks every interval.
  nvml::Device handle(int device) {
    std::lock_guard<std::mutex> lock(mutex_);
    return handle_locked(device);
  }
  nvml::Device handle_locked(int device) {
    auto found = handles_.find(device);
    if (found == handles_.end()) {
      nvml::Device h = nullptr;
      char bus_id[64] = {};
      if (nvml_.available() && cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device) == cudaSuccess)
        h = nvml_.handle_for_pci_bus_id(bus_id);
      found = handles_.emplace(device, h).first;
    }
    return found->second;
  }

  const Nvml& nvml_;
  std::mutex mutex_;
  std::map<int, nvml::Device> handles_;
  std::map<nvml::Device, int> watched_;
  nvml::EventSet events_ = nullptr;
};

}  // namespace

GpuProbe& nvml_probe() {
  // Never destroyed, like Nvml::get(): samplers may still run from static destructors.
  static GpuProbe* const probe = new NvmlProbe(Nvml::get());
  return *probe;
}

}  // namespace gpubench
