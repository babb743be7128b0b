#include "harness/model/health.h"

#include <algorithm>
#include <functional>

#include "harness/model/number_text.h"

namespace gpubench {

const char* to_string(HealthRule rule) {
  switch (rule) {
    case HealthRule::kPcieWidth: return "pcie_width";
    case HealthRule::kPcieGen: return "pcie_gen";
    case HealthRule::kNvlink: return "nvlink";
    case HealthRule::kEcc: return "ecc";
    case HealthRule::kMig: return "mig";
    case HealthRule::kClocks: return "clocks";
    case HealthRule::kEccErrors: return "ecc_errors";
    case HealthRule::kMemoryRetirement: return "memory_retirement";
    case HealthRule::kPcieReplay: return "pcie_replay";
    case HealthRule::kNvlinkErrors: return "nvlink_errors";
    case HealthRule::kXid: return "xid";
  }
  return "?";
}

namespace {

constexpr std::uint64_t kGpuIdle = 0x1;  // nvmlClocksEventReasonGpuIdle

// A rule whose field could not be read: "ECC mode could not be read (ecc_enabled is null): unchecked".
HealthFinding unknown(HealthRule rule, const std::string& expected, const std::string& field,
                      const std::string& what, const std::string& why = "") {
  HealthFinding f{rule, false, expected,
                  what + " could not be read (" + (why.empty() ? field + " is null" : why) + "): unchecked"};
  f.unknown = field;
  return f;
}

// The fields of a link that read 0 (a link is never 0 wide nor gen 0): "pcie.width, pcie.width_max".
std::string unread(const std::vector<std::pair<int, const char*>>& fields) {
  std::string names;
  for (const auto& [value, name] : fields)
    if (value <= 0) names += (names.empty() ? "" : ", ") + std::string(name);
  return names;
}

std::vector<HealthFinding> pcie_health(const GpuInfo& g) {
  std::vector<HealthFinding> out;
  const PcieLink& p = g.pcie;
  const std::string now = "gen" + std::to_string(p.gen) + " x" + (p.width > 0 ? std::to_string(p.width) : "?");
  if (const std::string fields = unread({{p.width, "pcie.width"}, {p.width_max, "pcie.width_max"}}); !fields.empty())
    out.push_back(unknown(HealthRule::kPcieWidth, p.width_max > 0 ? "x" + std::to_string(p.width_max) : "full width",
                          fields, "PCIe link width", fields + " 0"));
  else
    out.push_back({HealthRule::kPcieWidth, p.width < p.width_max, "x" + std::to_string(p.width_max),
                   p.width < p.width_max ? "PCIe link x" + std::to_string(p.width) + ", x" +
                                               std::to_string(p.width_max) + " possible"
                                         : "PCIe link at " + now});
  // An idle GPU lowers its link speed to save power, so a low generation is a finding only
  // where the GPU is not known to be idle; the message says which case it is.
  if (const std::string fields = unread({{p.gen, "pcie.gen"}, {p.gen_max, "pcie.gen_max"}}); !fields.empty()) {
    out.push_back(unknown(HealthRule::kPcieGen, p.gen_max > 0 ? "gen" + std::to_string(p.gen_max) : "full speed",
                          fields, "PCIe link generation", fields + " 0"));
  } else {
    const bool idle = g.throttle_mask && (*g.throttle_mask & kGpuIdle);
    const bool low = p.gen < p.gen_max && !idle;
    const std::string why = g.throttle_mask ? " while busy" : " (an idle link may train down)";
    out.push_back({HealthRule::kPcieGen, low, "gen" + std::to_string(p.gen_max),
                   low ? "PCIe Gen" + std::to_string(p.gen) + why + ", Gen" + std::to_string(p.gen_max) +
                             " possible"
                       : "PCIe link at " + now});
  }
  return out;
}

}  // namespace

std::vector<HealthFinding> gpu_health(const GpuInfo& g, int expected_nvlinks) {
  std::vector<HealthFinding> out = pcie_health(g);
  const std::string links = ">= " + std::to_string(expected_nvlinks) + " links";
  if (expected_nvlinks > 0 && !g.nvlinks_active)
    out.push_back(unknown(HealthRule::kNvlink, links, "nvlink.links_active", "active NVLinks"));
  else if (expected_nvlinks > 0)
    out.push_back({HealthRule::kNvlink, *g.nvlinks_active < expected_nvlinks, links,
                   "NVLink " + std::to_string(*g.nvlinks_active) + " of " + std::to_string(expected_nvlinks) +
                       " links active"});
  if (!g.ecc_enabled)
    out.push_back(unknown(HealthRule::kEcc, "enabled", "ecc_enabled", "ECC mode"));
  else
    out.push_back({HealthRule::kEcc, !*g.ecc_enabled, "enabled", *g.ecc_enabled ? "ECC enabled" : "ECC disabled"});
  if (!g.mig_mode)
    out.push_back(unknown(HealthRule::kMig, "off", "mig_mode", "MIG mode"));
  else
    out.push_back({HealthRule::kMig, *g.mig_mode, "off",
                   *g.mig_mode ? "MIG mode on: benchmarks see one instance, not the GPU" : "MIG mode off"});
  // gpu_idle is what an idle GPU shows; anything else holds the clocks down now. The reasons
  // are read live for `info` and are not part of a result file, whose benchmarks carry their
  // own throttle reasons: no reading here is no finding, not an unknown one.
  if (g.throttle_mask) {
    const std::uint64_t mask = *g.throttle_mask & ~kGpuIdle;
    std::string text = !mask ? "clocks not limited" : is_throttled(mask) ? "clocks throttled now:" : "clocks limited now:";
    for (const auto& name : throttle_reason_names(mask)) text += " " + name;
    out.push_back({HealthRule::kClocks, mask != 0, "not limited", text});
  }
  return out;
}

namespace {

// One rule's verdict on one suite window.
struct WindowVerdict {
  bool bad = false, notice = false;
  std::string text;
  std::string unknown{};  // the counter that could not be read
};
using Judge = std::function<WindowVerdict(const CounterWindow&, const ErrorCounters& delta)>;

// A counter NVML could not read (null), or one whose delta says nothing (it went backwards).
WindowVerdict unavailable(const std::string& what, const std::string& field) {
  return {false, false, what + " unavailable on this GPU: unchecked", "error_counters." + field};
}

std::string number_text(double value) { return significant_text(value, 3); }

void append(std::string& list, const std::string& item, const char* separator = "; ") {
  list += (list.empty() ? "" : separator) + item;
}

// The rule over every window: bad where any window is, else unknown where a counter of any
// could not be read, else a notice where any has one.
HealthFinding over_windows(HealthRule rule, const std::string& expected, const std::string& pass_text,
                           const GpuInfo& g, const Judge& judge) {
  std::string bad, unknowns, fields, notices;
  for (const CounterWindow& w : g.error_counters) {
    const WindowVerdict v = judge(w, counter_delta(w.before, w.after));
    if (v.bad) {
      append(bad, w.suite + ": " + v.text);
    } else if (!v.unknown.empty()) {
      append(unknowns, w.suite + ": " + v.text);
      if (fields.find(v.unknown) == std::string::npos) append(fields, v.unknown, ", ");
    } else if (v.notice) {
      append(notices, w.suite + ": " + v.text);
    }
  }
  HealthFinding f{rule, !bad.empty(), expected, ""};
  if (bad.empty()) f.unknown = fields;
  f.notice = bad.empty() && fields.empty() && !notices.empty();
  const std::string seen = unknowns + (!unknowns.empty() && !notices.empty() ? "; " : "") + notices;
  f.text = !bad.empty() ? bad : !seen.empty() ? seen
                              : pass_text + " over " + std::to_string(g.error_counters.size()) + " suite(s)";
  return f;
}

WindowVerdict ecc_errors(const ErrorCounters& d, const CounterLimits& l) {
  if (!d.ecc_uncorrected) return unavailable("ECC error counts", "ecc_uncorrected");
  if (*d.ecc_uncorrected > l.ecc_uncorrected)
    return {true, false, std::to_string(*d.ecc_uncorrected) + " new uncorrectable ECC error(s)"};
  if (l.ecc_corrected && !d.ecc_corrected) return unavailable("corrected ECC error count", "ecc_corrected");
  if (l.ecc_corrected && *d.ecc_corrected > *l.ecc_corrected)
    return {true, false, std::to_string(*d.ecc_corrected) + " new corrected ECC errors, limit " +
                             std::to_string(*l.ecc_corrected)};
  return {};
}

WindowVerdict memory_retirement(const ErrorCounters& d, const CounterLimits& l) {
  const bool pages = d.retired_pages_sbe || d.retired_pages_dbe;
  const bool rows = d.remapped_uncorrectable || d.remap_failure;
  if (!pages && !rows) return unavailable("retired pages and remapped rows", "remapped_uncorrectable");
  if (d.remap_failure.value_or(false)) return {true, false, "row remapping failed (no spare rows left)"};
  const std::uint64_t retired = d.retired_pages_sbe.value_or(0) + d.retired_pages_dbe.value_or(0);
  const std::uint64_t remapped = d.remapped_uncorrectable.value_or(0);
  if (retired + remapped > l.retired_pages)
    return {true, false, std::to_string(retired) + " new retired page(s), " + std::to_string(remapped) +
                             " new row remap(s) for uncorrectable errors"};
  if (d.remap_pending.value_or(false) || d.retired_pages_pending.value_or(false))
    return {false, true, "a page retirement or row remap is pending: reset the GPU to apply it"};
  return {};
}

WindowVerdict pcie_replay(const CounterWindow& w, const ErrorCounters& d, const CounterLimits& l) {
  if (!d.pcie_replay) return unavailable("PCIe replay counter", "pcie_replay");
  // A rate per minute, over at least a minute, so that two replays in a short suite pass.
  const double limit = l.pcie_replays_per_min * std::max(1.0, w.duration_s / 60);
  if (static_cast<double>(*d.pcie_replay) > limit)
    return {true, false, std::to_string(*d.pcie_replay) + " PCIe replays in " + number_text(w.duration_s) +
                             " s, limit " + number_text(l.pcie_replays_per_min) + " per minute"};
  return {};
}

WindowVerdict nvlink_errors(const CounterWindow& w, const ErrorCounters& d, const CounterLimits& l) {
  std::string bad, missing;
  for (const NvLinkErrorCounts& link : d.nvlinks) {
    const std::string name = "link " + std::to_string(link.link);
    if (!link.crc_flit && !link.crc_data && !link.replay && !link.recovery) {
      missing += (missing.empty() ? "" : ", ") + name;
      continue;
    }
    const double crc = static_cast<double>(link.crc_flit.value_or(0) + link.crc_data.value_or(0));
    const double crc_rate = crc / std::max(1.0, w.duration_s);
    std::string problems;
    if (crc_rate > l.nvlink_crc_per_s) problems += " " + number_text(crc_rate) + " CRC errors/s";
    if (link.replay.value_or(0) > l.nvlink_replay) problems += " " + std::to_string(*link.replay) + " replays";
    if (link.recovery.value_or(0) > l.nvlink_recovery)
      problems += " " + std::to_string(*link.recovery) + " recoveries";
    if (!problems.empty()) bad += (bad.empty() ? "" : "; ") + name + ":" + problems;
  }
  if (!bad.empty()) return {true, false, bad};
  if (!missing.empty()) return unavailable("NVLink error counters of " + missing, "nvlinks");
  return {};
}

WindowVerdict xids(const CounterWindow& w, const CounterLimits& l) {
  if (!w.xid_error.empty()) return {false, false, "XID events not watched: " + w.xid_error, "xid_events"};
  std::string critical, other;
  for (const XidEvent& e : w.xids) {
    const bool is_critical =
        std::find(l.critical_xids.begin(), l.critical_xids.end(), e.xid) != l.critical_xids.end();
    std::string& list = is_critical ? critical : other;
    list += (list.empty() ? "XID " : ", XID ") + std::to_string(e.xid);
  }
  if (!critical.empty()) return {true, false, critical + (other.empty() ? "" : " (also " + other + ")")};
  if (!other.empty()) return {false, true, other + " (not in the critical set)"};
  return {};
}

}  // namespace

std::vector<HealthFinding> counter_health(const GpuInfo& g, const CounterLimits& l, int expected_nvlinks) {
  if (g.error_counters.empty()) return {};
  std::vector<HealthFinding> out;
  out.push_back(over_windows(HealthRule::kEccErrors, "<= " + std::to_string(l.ecc_uncorrected) + " uncorrectable",
                             "no new uncorrectable ECC errors", g,
                             [&](const CounterWindow&, const ErrorCounters& d) { return ecc_errors(d, l); }));
  out.push_back(over_windows(HealthRule::kMemoryRetirement, "<= " + std::to_string(l.retired_pages) + " new",
                             "no new retired pages or row remaps", g,
                             [&](const CounterWindow&, const ErrorCounters& d) { return memory_retirement(d, l); }));
  out.push_back(over_windows(HealthRule::kPcieReplay, "<= " + number_text(l.pcie_replays_per_min) + "/min",
                             "PCIe replays within limits", g,
                             [&](const CounterWindow& w, const ErrorCounters& d) { return pcie_replay(w, d, l); }));
  const std::string nvlink_limits = "CRC <= " + number_text(l.nvlink_crc_per_s) + "/s, no replay/recovery";
  const bool has_links = std::any_of(g.error_counters.begin(), g.error_counters.end(),
                                     [](const CounterWindow& w) { return !w.after.nvlinks.empty(); });
  const int links = std::max(expected_nvlinks, g.nvlinks_active.value_or(0));
  if (has_links)
    out.push_back(over_windows(HealthRule::kNvlinkErrors, nvlink_limits, "NVLink error counters within limits", g,
                               [&](const CounterWindow& w, const ErrorCounters& d) { return nvlink_errors(w, d, l); }));
  else if (links > 0)
    out.push_back(unknown(HealthRule::kNvlinkErrors, nvlink_limits, "error_counters.nvlinks", "NVLink error counters",
                          "no suite lists a link, " + std::to_string(links) + " expected"));
  out.push_back(over_windows(HealthRule::kXid, "no critical XID", "no XID events", g,
                             [&](const CounterWindow& w, const ErrorCounters&) { return xids(w, l); }));
  return out;
}

}  // namespace gpubench
