#pragma once
// NVML, loaded at run time with dlopen so that the binary runs (and says why) where the driver's
// libnvidia-ml.so.1 is absent. We declare only what we use, copied in signature and value from
// NVIDIA's nvml.h (API 13); the real header is not needed to build.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {
namespace nvml {

using Return = int;  // nvmlReturn_t
typedef struct nvmlDevice_st* Device;  // nvmlDevice_t
typedef struct nvmlEventSet_st* EventSet;  // nvmlEventSet_t

constexpr Return kSuccess = 0;                 // NVML_SUCCESS
constexpr Return kErrorNotSupported = 3;       // NVML_ERROR_NOT_SUPPORTED
constexpr Return kErrorLibraryNotFound = 12;   // NVML_ERROR_LIBRARY_NOT_FOUND
constexpr Return kErrorFunctionNotFound = 13;  // NVML_ERROR_FUNCTION_NOT_FOUND
constexpr Return kErrorInsufficientSize = 7;   // NVML_ERROR_INSUFFICIENT_SIZE
constexpr Return kErrorTimeout = 10;           // NVML_ERROR_TIMEOUT

// nvmlMemoryErrorType_t, nvmlEccCounterType_t
constexpr int kMemoryErrorCorrected = 0, kMemoryErrorUncorrected = 1;
constexpr int kVolatileEcc = 0;
// nvmlPageRetirementCause_t
constexpr int kRetiredMultipleSingleBit = 0, kRetiredDoubleBit = 1;
// nvmlNvLinkErrorCounter_t
constexpr int kNvLinkErrorReplay = 0, kNvLinkErrorRecovery = 1, kNvLinkErrorCrcFlit = 2, kNvLinkErrorCrcData = 3;
// nvmlEventTypeXidCriticalError
constexpr unsigned long long kEventXidCritical = 0x8;
// Field ids of nvmlDeviceGetFieldValues: cumulative counters.
constexpr unsigned kFieldNvLinkDataTx = 138, kFieldNvLinkDataRx = 139;  // KiB; NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_*
constexpr unsigned kFieldPcieTxBytes = 197, kFieldPcieRxBytes = 198;    // NVML_FI_DEV_PCIE_COUNT_*_BYTES
constexpr unsigned kScopeAllLinks = 0xFFFFFFFFu;  // a scopeId of UINT_MAX: summed over links

// nvmlClockType_t
constexpr int kClockGraphics = 0, kClockSm = 1, kClockMem = 2;
// nvmlEnableState_t
constexpr int kFeatureDisabled = 0, kFeatureEnabled = 1;
// nvmlTemperatureSensors_t
constexpr int kTemperatureGpu = 0;
// NVML_DEVICE_MIG_DISABLE / NVML_DEVICE_MIG_ENABLE
constexpr unsigned kMigDisable = 0, kMigEnable = 1;
// nvmlIntNvLinkDeviceType_t
constexpr int kNvLinkDeviceGpu = 0, kNvLinkDeviceIbmNpu = 1, kNvLinkDeviceSwitch = 2,
              kNvLinkDeviceUnknown = 0xFF;
// nvmlGpuTopologyLevel_t
constexpr int kTopologyInternal = 0, kTopologySingle = 10, kTopologyMultiple = 20,
              kTopologyHostBridge = 30, kTopologyNode = 40, kTopologySystem = 50;
// NVML_NVLINK_MAX_LINKS of API 13 (18 in older headers; drivers reject indices they lack).
constexpr unsigned kNvLinkMaxLinks = 36;

// nvmlPciInfo_t, field for field.
struct PciInfo {
  char bus_id_legacy[16];  // NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE
  unsigned domain, bus, device;
  unsigned pci_device_id;     // device id << 16 | vendor id
  unsigned pci_subsystem_id;  // not filled by nvmlDeviceGetNvLinkRemotePciInfo_v2
  char bus_id[32];            // NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE
};
static_assert(sizeof(PciInfo) == 68, "nvmlPciInfo_t layout");

// nvmlFieldValue_t; value is the nvmlValue_t union, read by valueType.
struct FieldValue {
  unsigned field_id, scope_id;
  long long timestamp, latency_us;
  int value_type;  // nvmlValueType_t: 0 double, 1 uint, 2 ulong, 3 ulonglong, 4 slonglong, 5 sint
  Return result;
  union {
    double d;
    unsigned u;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    int si;
  } value;
};
static_assert(sizeof(FieldValue) == 40, "nvmlFieldValue_t layout");

// nvmlEventData_t
struct EventData {
  Device device;
  unsigned long long event_type, event_data;
  unsigned gpu_instance_id, compute_instance_id;
};

struct Utilization {  // nvmlUtilization_t, percent over the driver's last sample period
  unsigned gpu, memory;
};

struct RemappedRows {  // nvmlDeviceGetRemappedRows
  unsigned correctable = 0, uncorrectable = 0;
  bool pending = false, failure = false;
};

}  // namespace nvml

// A PCI address domain:bus:device.function, parsed so that "00000000:1B:00.0" (NVML),
// "0000:1b:00.0" (CUDA, sysfs) and the like compare equal.
struct PciAddress {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  bool operator==(const PciAddress& o) const {
    return domain == o.domain && bus == o.bus && device == o.device && function == o.function;
  }
};
std::optional<PciAddress> parse_pci_address(const std::string& text);
std::string sysfs_pci_name(const PciAddress& address);  // "0000:1b:00.0", as in /sys/bus/pci

struct NvLinkPort {
  unsigned link = 0;
  bool active = false;
  unsigned version = 0;  // nvmlNvlinkVersion_t: an enum, not the generation (A100 answers 5 = 3.1)
  int remote_type = nvml::kNvLinkDeviceUnknown;
  std::optional<PciAddress> remote;
};

class Nvml {
 public:
  // The process-wide instance, loaded and initialised on first use (thread-safe) from
  // $GPUBENCH_NVML_LIBRARY when set, else libnvidia-ml.so.1. Lives until exit.
  static Nvml& get();
  // An independent load of `path` (tests ask for one after changing the environment, since
  // get() answers from its first load). NVML counts nvmlInit calls, so instances coexist.
  static std::unique_ptr<Nvml> load(const std::string& path);
  // The library get() loads: $GPUBENCH_NVML_LIBRARY, else libnvidia-ml.so.1.
  static std::string default_path();

  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  bool available() const { return available_; }
  const std::string& error() const { return error_; }  // why not available; empty when it is
  const std::string& path() const { return path_; }
  std::string error_string(nvml::Return code) const;

  // Queries: nullopt / empty / nullptr when NVML, the symbol or the answer is missing.
  std::string driver_version() const;
  nvml::Device handle_for_pci_bus_id(const std::string& bus_id) const;
  std::string uuid(nvml::Device device) const;
  std::optional<unsigned> clock_mhz(nvml::Device device, int clock_type) const;
  std::optional<unsigned> max_clock_mhz(nvml::Device device, int clock_type) const;
  std::optional<unsigned> power_mw(nvml::Device device) const;
  std::optional<unsigned> power_limit_mw(nvml::Device device) const;
  std::optional<unsigned> temperature_c(nvml::Device device) const;
  std::optional<std::uint64_t> clocks_event_reasons(nvml::Device device) const;
  std::optional<bool> ecc_enabled(nvml::Device device) const;
  std::optional<bool> mig_enabled(nvml::Device device) const;
  std::optional<unsigned> pcie_gen(nvml::Device device) const;
  std::optional<unsigned> pcie_width(nvml::Device device) const;
  std::optional<unsigned> pcie_gen_max(nvml::Device device) const;
  std::optional<unsigned> pcie_width_max(nvml::Device device) const;
  // Every link the device answers for, active or not.
  std::vector<NvLinkPort> nvlinks(nvml::Device device) const;
  // nvmlGpuTopologyLevel_t of the closest common ancestor of two devices.
  std::optional<int> topology_common_ancestor(nvml::Device a, nvml::Device b) const;

  std::optional<nvml::Utilization> utilization(nvml::Device device) const;
  // Cumulative counters of nvmlDeviceGetFieldValues, one per (field id, scope id) asked; unset
  // where the driver does not answer that field.
  std::vector<std::optional<std::uint64_t>> counter_fields(
      nvml::Device device, const std::vector<std::pair<unsigned, unsigned>>& fields) const;
  std::optional<std::uint64_t> volatile_ecc_errors(nvml::Device device, int memory_error_type) const;
  std::optional<std::uint64_t> retired_pages(nvml::Device device, int cause) const;
  std::optional<bool> retired_pages_pending(nvml::Device device) const;
  std::optional<nvml::RemappedRows> remapped_rows(nvml::Device device) const;
  std::optional<unsigned> pcie_replay_counter(nvml::Device device) const;
  std::optional<std::uint64_t> nvlink_error_counter(nvml::Device device, unsigned link, int counter) const;

  // XID events: a set that the devices report critical XID errors to. nullptr and `error` set
  // when NVML cannot (no event API, or no device supports it).
  nvml::EventSet xid_event_set(const std::vector<nvml::Device>& devices, std::string& error) const;
  // Waits up to timeout_ms for one event; nvml::kErrorTimeout when none came.
  nvml::Return wait_event(nvml::EventSet set, unsigned timeout_ms, nvml::EventData& event) const;
  void free_event_set(nvml::EventSet set) const;

  struct Symbols;  // the resolved entry points, in nvml.cpp

 private:
  Nvml() = default;
  void open(const std::string& path);

  void* library_ = nullptr;
  bool available_ = false;
  std::string error_, path_;
  std::unique_ptr<Symbols> fn_;
};

}  // namespace gpubench
