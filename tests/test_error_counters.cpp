// Error counters (harness/model/error_counters.h) and the health rules over their deltas
// (health.h counter_health), as `check` applies them with the baseline's counter limits.
#include <gtest/gtest.h>

#include "harness/analysis/check.h"
#include "harness/model/error_counters.h"
#include "harness/model/health.h"
#include "tests/check_support.h"

namespace gpubench {
namespace {

using namespace testing::check;
using testing::ResultBuilder;

ErrorCounters h200_counters(std::uint64_t uncorrected = 0, std::uint64_t replays = 3) {
  ErrorCounters c;
  c.ecc_corrected = 2;
  c.ecc_uncorrected = uncorrected;
  c.remapped_correctable = 0;
  c.remapped_uncorrectable = 0;
  c.remap_pending = false;
  c.remap_failure = false;
  c.pcie_replay = replays;
  for (unsigned link = 0; link < 2; ++link) c.nvlinks.push_back({link, 0, 0, 0, 0});
  return c;  // retired pages: unset, as on every GPU since Ampere
}

CounterWindow window(const ErrorCounters& before, const ErrorCounters& after, double seconds = 120) {
  return {"gemm", seconds, before, after, "", {}};
}

const CheckLine* find_line(const CheckReport& r, const std::string& subject) {
  for (const auto& l : r.lines)
    if (l.subject == subject) return &l;
  return nullptr;
}

// A healthy 8-GPU run whose GPU `sick` shows `after` at the end of its one suite.
CheckReport check_with(const ErrorCounters& after, int sick = 3, const nlohmann::json& limits = nullptr,
                       const std::vector<XidEvent>& xids = {}) {
  ResultBuilder run = healthy_run();
  for (int i = 0; i < 8; ++i) {
    CounterWindow w = window(h200_counters(), i == sick ? after : h200_counters());
    if (i == sick) w.xids = xids;
    run.gpu(i)["error_counters"] = nlohmann::json::array({to_json(w)});
  }
  nlohmann::json doc = baseline_doc(any_entry());
  if (!limits.is_null()) doc["health"] = {{"counter_limits", limits}};
  return check_run(parse_baseline(doc, "h200.json"), run.parse());
}

TEST(ErrorCounters, DeltaIsUnsetWhereEitherSideIsOrACounterWentBack) {
  ErrorCounters before = h200_counters(0, 10), after = h200_counters(2, 4);
  after.ecc_corrected.reset();
  after.nvlinks[1].replay = 7;
  const ErrorCounters d = counter_delta(before, after);
  EXPECT_EQ(d.ecc_uncorrected, 2u);
  EXPECT_FALSE(d.ecc_corrected);   // unreadable after: unknown, not 0
  EXPECT_FALSE(d.pcie_replay);     // 10 -> 4: the driver reset it; the delta says nothing
  EXPECT_FALSE(d.retired_pages_dbe);
  ASSERT_EQ(d.nvlinks.size(), 2u);
  EXPECT_EQ(d.nvlinks[1].replay, 7u);
}

TEST(ErrorCounters, UnavailableCountersRoundTripAsNull) {
  CounterWindow w = window(h200_counters(), h200_counters(1, 5));
  w.xids = {{1764590000.5, 79}};
  const nlohmann::json j = to_json(w);
  EXPECT_TRUE(j["before"]["retired_pages_dbe"].is_null());
  EXPECT_EQ(j["delta"]["ecc_uncorrected"], 1);
  EXPECT_EQ(j["delta"]["pcie_replay"], 2);
  const CounterWindow back = read_counter_window(JsonAt(j, "run.json"));
  EXPECT_FALSE(back.after.retired_pages_dbe);
  EXPECT_EQ(back.after.ecc_uncorrected, 1u);
  EXPECT_EQ(back.after.nvlinks.size(), 2u);
  ASSERT_EQ(back.xids.size(), 1u);
  EXPECT_EQ(back.xids[0].xid, 79u);
  EXPECT_EQ(to_json(back), j);
}

TEST(ErrorCounters, ContextOfAGpuCarriesItsWindows) {
  GpuInfo g;
  g.error_counters = {window(h200_counters(), h200_counters())};
  const GpuInfo back = read_gpu_info(JsonAt(to_json(g), "run.json"));
  ASSERT_EQ(back.error_counters.size(), 1u);
  EXPECT_EQ(back.error_counters[0].suite, "gemm");
  EXPECT_EQ(to_json(back)["error_counters"], to_json(g)["error_counters"]);
}

TEST(ErrorCounters, NegativeCountIsBadInput) {
  nlohmann::json j = to_json(window(h200_counters(), h200_counters()));
  j["after"]["pcie_replay"] = -1;
  EXPECT_THROW(read_counter_window(JsonAt(j, "run.json")), UsageError);
}

TEST(CounterHealth, CleanWindowsPassEveryRule) {
  GpuInfo g;
  g.error_counters = {window(h200_counters(), h200_counters())};
  const auto findings = counter_health(g, CounterLimits{});
  ASSERT_EQ(findings.size(), 5u);  // ecc, retirement, pcie replay, nvlink, xid
  for (const auto& f : findings) {
    EXPECT_FALSE(f.bad) << f.text;
    EXPECT_FALSE(f.notice) << f.text;
  }
}

TEST(CounterHealth, NoWindowsNoFindings) { EXPECT_TRUE(counter_health(GpuInfo{}, CounterLimits{}).empty()); }

TEST(CheckCounters, UncorrectableEccFailsNamingGpuSuiteAndCount) {
  const CheckReport r = check_with(h200_counters(2));
  const CheckLine* line = find_line(r, "health/gpu3/ecc_errors");
  ASSERT_NE(line, nullptr);
  EXPECT_EQ(line->result, LineResult::kFail);
  EXPECT_EQ(line->note, "gemm: 2 new uncorrectable ECC error(s)");
  EXPECT_TRUE(r.failed());
  EXPECT_EQ(find_line(r, "health/ecc_errors")->note, "7 GPU(s): no new uncorrectable ECC errors over 1 suite(s)");
}

TEST(CheckCounters, PcieReplaysAreARatePerMinute) {
  EXPECT_FALSE(find_line(check_with(h200_counters(0, 3 + 16)), "health/gpu3/pcie_replay"));  // 16 in 2 min: ok
  const CheckReport r = check_with(h200_counters(0, 3 + 17));
  const CheckLine* line = find_line(r, "health/gpu3/pcie_replay");
  ASSERT_NE(line, nullptr);
  EXPECT_EQ(line->result, LineResult::kFail);
  EXPECT_EQ(line->note, "gemm: 17 PCIe replays in 120 s, limit 8 per minute");
  EXPECT_EQ(find_line(check_with(h200_counters(0, 3 + 17), 3, {{"pcie_replays_per_min", 10}}),
                      "health/gpu3/pcie_replay"),
            nullptr);
}

TEST(CheckCounters, NvlinkReplayAndCrcRateFail) {
  ErrorCounters after = h200_counters();
  after.nvlinks[1].replay = 1;
  after.nvlinks[0].crc_flit = 100 * 120 + 1;
  const CheckReport r = check_with(after);
  const CheckLine* line = find_line(r, "health/gpu3/nvlink_errors");
  ASSERT_NE(line, nullptr);
  EXPECT_EQ(line->result, LineResult::kFail);
  EXPECT_EQ(line->note, "gemm: link 0: 100 CRC errors/s; link 1: 1 replays");
}

TEST(CheckCounters, RemapFailureAndNewRemapsFail) {
  ErrorCounters after = h200_counters();
  after.remap_failure = true;
  EXPECT_EQ(find_line(check_with(after), "health/gpu3/memory_retirement")->result, LineResult::kFail);
  after = h200_counters();
  after.remapped_uncorrectable = 1;
  EXPECT_EQ(find_line(check_with(after), "health/gpu3/memory_retirement")->note,
            "gemm: 0 new retired page(s), 1 new row remap(s) for uncorrectable errors");
  after = h200_counters();
  after.remap_pending = true;
  EXPECT_EQ(find_line(check_with(after), "health/gpu3/memory_retirement")->result, LineResult::kWarn);
}

TEST(CheckCounters, CriticalXidFailsOthersWarn) {
  const CheckReport critical = check_with(h200_counters(), 3, nullptr, {{1.0, 13}, {2.0, 79}});
  EXPECT_EQ(find_line(critical, "health/gpu3/xid")->result, LineResult::kFail);
  EXPECT_EQ(find_line(critical, "health/gpu3/xid")->note, "gemm: XID 79 (also XID 13)");
  const CheckReport other = check_with(h200_counters(), 3, nullptr, {{1.0, 13}});
  EXPECT_EQ(find_line(other, "health/gpu3/xid")->result, LineResult::kWarn);
  EXPECT_FALSE(other.failed());
  const CheckReport listed = check_with(h200_counters(), 3, {{"critical_xids", {13}}}, {{1.0, 13}});
  EXPECT_EQ(find_line(listed, "health/gpu3/xid")->result, LineResult::kFail);
}

TEST(CheckCounters, UnreadableCountersWarnNeverPass) {
  ErrorCounters blind = h200_counters();
  blind.ecc_uncorrected.reset();
  blind.pcie_replay.reset();
  blind.remapped_uncorrectable.reset();
  blind.remap_failure.reset();
  const CheckReport r = check_with(blind);
  for (const char* rule : {"ecc_errors", "pcie_replay", "memory_retirement"}) {
    const CheckLine* line = find_line(r, std::string("health/gpu3/") + rule);
    ASSERT_NE(line, nullptr) << rule;
    EXPECT_EQ(line->result, LineResult::kWarn) << rule;
    EXPECT_NE(line->note.find("unavailable on this GPU: unchecked"), std::string::npos) << line->note;
  }
  EXPECT_FALSE(r.failed());
}

TEST(CheckCounters, ARunWithoutCountersSaysSo) {
  const CheckReport r = check_run(baseline_of(any_entry()), healthy_run().parse());
  const CheckLine* line = find_line(r, "health/error_counters");
  ASSERT_NE(line, nullptr);
  EXPECT_EQ(line->result, LineResult::kWarn);
}

TEST(CheckCounters, SeverityOffSilencesTheRules) {
  ResultBuilder run = healthy_run();
  run.gpu(0)["error_counters"] = nlohmann::json::array({to_json(window(h200_counters(), h200_counters(5)))});
  nlohmann::json doc = baseline_doc(any_entry());
  doc["health"] = {{"error_counters", "off"}};
  const CheckReport r = check_run(parse_baseline(doc, "h200.json"), run.parse());
  EXPECT_EQ(find_line(r, "health/gpu0/ecc_errors"), nullptr);
  EXPECT_FALSE(r.failed());
}

TEST(CounterLimits, BaselineRejectsUnknownAndNegativeLimits) {
  nlohmann::json doc = baseline_doc(any_entry());
  doc["health"] = {{"counter_limits", {{"pcie_replay_per_min", 8}}}};
  EXPECT_THROW(parse_baseline(doc, "h200.json"), UsageError);
  doc["health"] = {{"counter_limits", {{"ecc_uncorrected", -1}}}};
  EXPECT_THROW(parse_baseline(doc, "h200.json"), UsageError);
  doc["health"] = {{"counter_limits", {{"nvlink_crc_per_s", 50}, {"ecc_corrected", 1000}}}};
  const Baseline b = parse_baseline(doc, "h200.json");
  EXPECT_EQ(b.health.counter_limits.nvlink_crc_per_s, 50);
  EXPECT_EQ(b.health.counter_limits.ecc_corrected, 1000u);
  const Baseline again = parse_baseline(to_json(b), "h200.json");
  EXPECT_EQ(to_json(again)["health"], to_json(b)["health"]);
}

}  // namespace
}  // namespace gpubench
