#include "harness/model/error_counters.h"

namespace gpubench {
namespace {

using nlohmann::json;

// Every count of ErrorCounters by its JSON name: one table serves writer, reader and delta.
constexpr std::pair<const char*, Count ErrorCounters::*> kCounts[] = {
    {"ecc_corrected", &ErrorCounters::ecc_corrected},
    {"ecc_uncorrected", &ErrorCounters::ecc_uncorrected},
    {"retired_pages_sbe", &ErrorCounters::retired_pages_sbe},
    {"retired_pages_dbe", &ErrorCounters::retired_pages_dbe},
    {"remapped_correctable", &ErrorCounters::remapped_correctable},
    {"remapped_uncorrectable", &ErrorCounters::remapped_uncorrectable},
    {"pcie_replay", &ErrorCounters::pcie_replay},
};
constexpr std::pair<const char*, std::optional<bool> ErrorCounters::*> kStates[] = {
    {"retired_pages_pending", &ErrorCounters::retired_pages_pending},
    {"remap_pending", &ErrorCounters::remap_pending},
    {"remap_failure", &ErrorCounters::remap_failure},
};
constexpr std::pair<const char*, Count NvLinkErrorCounts::*> kLinkCounts[] = {
    {"crc_flit", &NvLinkErrorCounts::crc_flit},
    {"crc_data", &NvLinkErrorCounts::crc_data},
    {"replay", &NvLinkErrorCounts::replay},
    {"recovery", &NvLinkErrorCounts::recovery},
};

json count_json(const Count& c) { return c ? json(*c) : json(nullptr); }

Count read_count(const JsonAt& object, const char* key) {
  const auto node = object.find(key);
  if (!node) return std::nullopt;
  const long long value = node->integer();
  if (value < 0) node->fail("expected a count >= 0");
  return static_cast<std::uint64_t>(value);
}

Count difference(const Count& before, const Count& after) {
  if (!before || !after || *after < *before) return std::nullopt;
  return *after - *before;
}

}  // namespace

ErrorCounters counter_delta(const ErrorCounters& before, const ErrorCounters& after) {
  ErrorCounters d;
  for (const auto& [name, member] : kCounts) d.*member = difference(before.*member, after.*member);
  for (const auto& [name, member] : kStates) d.*member = after.*member;
  for (const NvLinkErrorCounts& a : after.nvlinks) {
    NvLinkErrorCounts link{a.link, {}, {}, {}, {}};
    for (const NvLinkErrorCounts& b : before.nvlinks)
      if (b.link == a.link)
        for (const auto& [name, member] : kLinkCounts) link.*member = difference(b.*member, a.*member);
    d.nvlinks.push_back(link);
  }
  return d;
}

json to_json(const ErrorCounters& c) {
  json out = json::object();
  for (const auto& [name, member] : kCounts) out[name] = count_json(c.*member);
  for (const auto& [name, member] : kStates) out[name] = c.*member ? json(*(c.*member)) : json(nullptr);
  json links = json::array();
  for (const NvLinkErrorCounts& l : c.nvlinks) {
    json link = {{"link", l.link}};
    for (const auto& [name, member] : kLinkCounts) link[name] = count_json(l.*member);
    links.push_back(std::move(link));
  }
  out["nvlinks"] = std::move(links);
  return out;
}

ErrorCounters read_error_counters(const JsonAt& node) {
  ErrorCounters c;
  for (const auto& [name, member] : kCounts) c.*member = read_count(node, name);
  for (const auto& [name, member] : kStates) c.*member = optional_bool(node, name);
  if (auto links = node.find("nvlinks"))
    for (const JsonAt& l : links->items()) {
      NvLinkErrorCounts link;
      link.link = static_cast<unsigned>(optional_int(l, "link"));
      for (const auto& [name, member] : kLinkCounts) link.*member = read_count(l, name);
      c.nvlinks.push_back(link);
    }
  return c;
}

json to_json(const CounterWindow& w) {
  json xids = json::array();
  for (const XidEvent& e : w.xids) xids.push_back({{"t_s", e.t_s}, {"xid", e.xid}});
  return {{"suite", w.suite},
          {"duration_s", w.duration_s},
          {"before", to_json(w.before)},
          {"after", to_json(w.after)},
          {"delta", to_json(counter_delta(w.before, w.after))},
          {"xid_events", xids},
          {"xid_error", w.xid_error}};
}

CounterWindow read_counter_window(const JsonAt& node) {
  CounterWindow w;
  w.suite = optional_string(node, "suite");
  w.duration_s = optional_number(node, "duration_s");
  w.before = read_error_counters(node.at("before"));
  w.after = read_error_counters(node.at("after"));
  w.xid_error = optional_string(node, "xid_error");
  if (auto xids = node.find("xid_events"))
    for (const JsonAt& e : xids->items())
      w.xids.push_back({optional_number(e, "t_s"), static_cast<std::uint64_t>(e.at("xid").integer())});
  return w;
}

}  // namespace gpubench
