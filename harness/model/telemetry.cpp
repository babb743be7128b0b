#include "harness/model/telemetry.h"

#include <algorithm>
#include <map>

#include "harness/model/context.h"
#include "harness/model/number_text.h"
#include "harness/model/stats.h"

namespace gpubench {
namespace {

using nlohmann::json;

// Bytes per second of a cumulative counter between two readings, in 10^9 bytes/s.
std::optional<double> rate_gbps(const std::optional<std::uint64_t>& before, const std::optional<std::uint64_t>& after,
                                double dt_s, double bytes_per_unit) {
  if (!before || !after || *after < *before || dt_s <= 0) return std::nullopt;
  return static_cast<double>(*after - *before) * bytes_per_unit / dt_s / 1e9;
}

std::string number_cell(const std::optional<double>& v) {
  if (!v) return "";
  return significant_text(*v, 6);
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

json optional_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

}  // namespace

const std::vector<TelemetryQuantity>& telemetry_quantities() {
  static const std::vector<TelemetryQuantity> quantities = {
      {"sm_clock_mhz", [](const TelemetrySample& s) { return s.reading.sm_clock_mhz; }},
      {"mem_clock_mhz", [](const TelemetrySample& s) { return s.reading.mem_clock_mhz; }},
      {"power_w", [](const TelemetrySample& s) { return s.reading.power_w; }},
      {"temp_c", [](const TelemetrySample& s) { return s.reading.temp_c; }},
      {"gpu_util_pct", [](const TelemetrySample& s) { return s.reading.gpu_util_pct; }},
      {"mem_util_pct", [](const TelemetrySample& s) { return s.reading.mem_util_pct; }},
      {"pcie_tx_gbps", [](const TelemetrySample& s) { return s.pcie_tx_gbps; }},
      {"pcie_rx_gbps", [](const TelemetrySample& s) { return s.pcie_rx_gbps; }},
      {"nvlink_tx_gbps", [](const TelemetrySample& s) { return s.nvlink_tx_gbps; }},
      {"nvlink_rx_gbps", [](const TelemetrySample& s) { return s.nvlink_rx_gbps; }},
  };
  return quantities;
}

void add_throughput(std::vector<TelemetrySample>& samples) {
  std::map<int, const TelemetrySample*> previous;
  for (TelemetrySample& s : samples) {
    if (const auto p = previous.find(s.gpu); p != previous.end()) {
      const TelemetryReading& a = p->second->reading;
      const double dt = s.t_s - p->second->t_s;
      s.pcie_tx_gbps = rate_gbps(a.pcie_tx_bytes, s.reading.pcie_tx_bytes, dt, 1);
      s.pcie_rx_gbps = rate_gbps(a.pcie_rx_bytes, s.reading.pcie_rx_bytes, dt, 1);
      s.nvlink_tx_gbps = rate_gbps(a.nvlink_tx_kib, s.reading.nvlink_tx_kib, dt, 1024);
      s.nvlink_rx_gbps = rate_gbps(a.nvlink_rx_kib, s.reading.nvlink_rx_kib, dt, 1024);
    }
    previous[s.gpu] = &s;
  }
}

json summarize_telemetry(const std::vector<TelemetrySample>& samples, int gpu) {
  std::uint64_t reasons = 0;
  std::size_t count = 0;
  for (const TelemetrySample& s : samples)
    if (s.gpu == gpu) {
      ++count;
      reasons |= s.reading.clock_event_reasons.value_or(0);
    }
  json out = {{"samples", count}};
  for (const TelemetryQuantity& q : telemetry_quantities()) {
    std::vector<double> values;
    for (const TelemetrySample& s : samples)
      if (s.gpu == gpu)
        if (const auto v = q.value(s)) values.push_back(*v);
    if (values.empty()) {
      out[q.name] = nullptr;
      continue;
    }
    const Summary summary = summarize(values);
    out[q.name] = {{"min", summary.min}, {"median", summary.median}, {"max", summary.max}};
  }
  out["throttle_reasons"] = throttle_reason_names(reasons);
  out["throttled"] = is_throttled(reasons);
  return out;
}

std::string telemetry_trace_csv(const std::vector<TelemetrySample>& samples) {
  std::string csv = "t_s,gpu,benchmark";
  for (const TelemetryQuantity& q : telemetry_quantities()) csv += std::string(",") + q.name;
  csv += ",clock_event_reasons\n";
  for (const TelemetrySample& s : samples) {
    csv += number_cell(s.t_s) + "," + std::to_string(s.gpu) + "," + csv_field(s.benchmark);
    for (const TelemetryQuantity& q : telemetry_quantities()) csv += "," + number_cell(q.value(s));
    std::string reasons;
    if (s.reading.clock_event_reasons)
      for (const auto& name : throttle_reason_names(*s.reading.clock_event_reasons))
        reasons += (reasons.empty() ? "" : "|") + name;
    csv += "," + reasons + "\n";
  }
  return csv;
}

json to_json(const TelemetrySample& s) {
  const TelemetryReading& r = s.reading;
  json reading = json::object();
  const std::pair<const char*, std::optional<double>> numbers[] = {
      {"sm_clock_mhz", r.sm_clock_mhz}, {"mem_clock_mhz", r.mem_clock_mhz}, {"power_w", r.power_w},
      {"temp_c", r.temp_c}, {"gpu_util_pct", r.gpu_util_pct}, {"mem_util_pct", r.mem_util_pct}};
  for (const auto& [key, value] : numbers)
    if (value) reading[key] = *value;
  const std::pair<const char*, std::optional<std::uint64_t>> counters[] = {
      {"clock_event_reasons", r.clock_event_reasons}, {"pcie_tx_bytes", r.pcie_tx_bytes},
      {"pcie_rx_bytes", r.pcie_rx_bytes}, {"nvlink_tx_kib", r.nvlink_tx_kib}, {"nvlink_rx_kib", r.nvlink_rx_kib}};
  for (const auto& [key, value] : counters)
    if (value) reading[key] = *value;
  return {{"t_s", s.t_s}, {"gpu", s.gpu}, {"benchmark", s.benchmark}, {"reading", reading}};
}

TelemetrySample telemetry_sample_from_json(const json& j) {
  TelemetrySample s;
  s.t_s = j.at("t_s");
  s.gpu = j.at("gpu");
  s.benchmark = j.at("benchmark");
  const json& r = j.at("reading");
  const auto number = [&r](const char* key) {
    return r.contains(key) ? std::optional<double>(r[key].get<double>()) : std::nullopt;
  };
  const auto counter = [&r](const char* key) {
    return r.contains(key) ? std::optional<std::uint64_t>(r[key].get<std::uint64_t>()) : std::nullopt;
  };
  TelemetryReading& t = s.reading;
  t.sm_clock_mhz = number("sm_clock_mhz");
  t.mem_clock_mhz = number("mem_clock_mhz");
  t.power_w = number("power_w");
  t.temp_c = number("temp_c");
  t.gpu_util_pct = number("gpu_util_pct");
  t.mem_util_pct = number("mem_util_pct");
  t.clock_event_reasons = counter("clock_event_reasons");
  t.pcie_tx_bytes = counter("pcie_tx_bytes");
  t.pcie_rx_bytes = counter("pcie_rx_bytes");
  t.nvlink_tx_kib = counter("nvlink_tx_kib");
  t.nvlink_rx_kib = counter("nvlink_rx_kib");
  return s;
}

json benchmark_telemetry(const std::vector<TelemetrySample>& samples, int device, const std::string& sampling,
                         int interval_ms, const CooldownRecord& cooldown) {
  json out = summarize_telemetry(samples, device);
  out["sampling"] = sampling;
  if (sampling == "interval") out["interval_ms"] = interval_ms;
  out["cooldown"] = to_json(cooldown);
  std::map<int, bool> others;
  for (const TelemetrySample& s : samples)
    if (s.gpu != device) others[s.gpu] = true;
  if (others.empty()) return out;
  std::uint64_t reasons = 0;
  for (const TelemetrySample& s : samples) reasons |= s.reading.clock_event_reasons.value_or(0);
  json gpus = json::object();
  for (const auto& [gpu, seen] : others) gpus["gpu" + std::to_string(gpu)] = summarize_telemetry(samples, gpu);
  out["gpus"] = std::move(gpus);
  out["throttle_reasons"] = throttle_reason_names(reasons);
  out["throttled"] = is_throttled(reasons);
  return out;
}

json to_json(const CooldownRecord& c) {
  return {{"waited_s", c.waited_s}, {"stopped", c.stopped}, {"temp_c", optional_json(c.temp_c)},
          {"target_c", optional_json(c.target_c)}};
}

}  // namespace gpubench
