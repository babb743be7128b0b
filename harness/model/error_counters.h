#pragma once
// A GPU's error counters before and after each suite, and the XID events NVML reported in
// between: the acceptance signals that say a node is sick whatever its figures (check's health
// rules, health.h). A counter NVML cannot read on a GPU is unset, written null: never 0.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/model/json_at.h"

namespace gpubench {

using Count = std::optional<std::uint64_t>;

struct NvLinkErrorCounts {
  unsigned link = 0;
  Count crc_flit, crc_data, replay, recovery;  // nvmlNvLinkErrorCounter_t DL_* counters
};

struct ErrorCounters {
  Count ecc_corrected, ecc_uncorrected;            // volatile (since the driver loaded)
  Count retired_pages_sbe, retired_pages_dbe;      // page retirement (before Ampere)
  std::optional<bool> retired_pages_pending;
  Count remapped_correctable, remapped_uncorrectable;  // row remapping (Ampere and later)
  std::optional<bool> remap_pending, remap_failure;
  Count pcie_replay;
  std::vector<NvLinkErrorCounts> nvlinks;  // active links only
};

// after - before per counter; unset where either side is, or where a counter went backwards (a
// reset between them says nothing of what happened). States (pending, failure) are after's.
ErrorCounters counter_delta(const ErrorCounters& before, const ErrorCounters& after);

struct XidEvent {
  double t_s = 0;  // seconds since the run's epoch
  std::uint64_t xid = 0;
};

// One suite's window on one GPU.
struct CounterWindow {
  std::string suite;
  double duration_s = 0;
  ErrorCounters before, after;
  // XID events arrive through NVML's event API; xid_error says why they could not be watched
  // (then `xids` is empty because nobody looked, not because none happened).
  std::string xid_error;
  std::vector<XidEvent> xids;
};

nlohmann::json to_json(const ErrorCounters& counters);
ErrorCounters read_error_counters(const JsonAt& counters);
// {"suite", "duration_s", "before", "after", "delta", "xid_events": [{"t_s","xid"}], "xid_error"}.
nlohmann::json to_json(const CounterWindow& window);
CounterWindow read_counter_window(const JsonAt& window);

}  // namespace gpubench
