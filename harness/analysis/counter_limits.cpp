#include "harness/analysis/counter_limits.h"

namespace gpubench {
namespace {

std::uint64_t read_limit(const JsonAt& node) {
  const long long value = node.integer();
  if (value < 0) node.fail("expected a count >= 0");
  return static_cast<std::uint64_t>(value);
}

double read_rate(const JsonAt& node) {
  const double value = node.num();
  if (value < 0) node.fail("expected a rate >= 0");
  return value;
}

}  // namespace

void read_counter_limits(const JsonAt& node, CounterLimits& l) {
  node.only_keys({"ecc_uncorrected", "ecc_corrected", "retired_pages", "pcie_replays_per_min",
                  "nvlink_crc_per_s", "nvlink_replay", "nvlink_recovery", "critical_xids"});
  if (auto v = node.find("ecc_uncorrected")) l.ecc_uncorrected = read_limit(*v);
  if (auto v = node.find("ecc_corrected")) l.ecc_corrected = read_limit(*v);
  if (auto v = node.find("retired_pages")) l.retired_pages = read_limit(*v);
  if (auto v = node.find("pcie_replays_per_min")) l.pcie_replays_per_min = read_rate(*v);
  if (auto v = node.find("nvlink_crc_per_s")) l.nvlink_crc_per_s = read_rate(*v);
  if (auto v = node.find("nvlink_replay")) l.nvlink_replay = read_limit(*v);
  if (auto v = node.find("nvlink_recovery")) l.nvlink_recovery = read_limit(*v);
  if (auto v = node.find("critical_xids")) {
    l.critical_xids.clear();
    for (const JsonAt& xid : v->items()) l.critical_xids.push_back(read_limit(xid));
  }
}

nlohmann::json counter_limits_json(const CounterLimits& l) {
  return {{"ecc_uncorrected", l.ecc_uncorrected},
          {"ecc_corrected", l.ecc_corrected ? nlohmann::json(*l.ecc_corrected) : nlohmann::json(nullptr)},
          {"retired_pages", l.retired_pages},
          {"pcie_replays_per_min", l.pcie_replays_per_min},
          {"nvlink_crc_per_s", l.nvlink_crc_per_s},
          {"nvlink_replay", l.nvlink_replay},
          {"nvlink_recovery", l.nvlink_recovery},
          {"critical_xids", l.critical_xids}};
}

}  // namespace gpubench
