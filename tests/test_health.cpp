// Health fields that could not be read (health.h): an unknown state of their rule, never a pass
// and never silence; `check` warns on it, and fails where the baseline asks for the field. A 0
// that is real (no NVLink on a PCIe card) stays apart from one that was not read (null).
#include <gtest/gtest.h>

#include <algorithm>

#include "harness/analysis/check.h"
#include "harness/model/health.h"
#include "harness/report/info_text.h"
#include "tests/check_support.h"

namespace gpubench {
namespace {

using namespace testing::check;
using testing::ResultBuilder;

const CheckLine* find_line(const CheckReport& r, const std::string& subject) {
  for (const auto& l : r.lines)
    if (l.subject == subject) return &l;
  return nullptr;
}

const HealthFinding* finding(const std::vector<HealthFinding>& findings, HealthRule rule) {
  for (const auto& f : findings)
    if (f.rule == rule) return &f;
  return nullptr;
}

Baseline baseline_with(const nlohmann::json& health, bool nvlinks = true) {
  nlohmann::json doc = baseline_doc(any_entry());
  if (!health.is_null()) doc["health"] = health;
  if (!nvlinks) doc["applies_to"].erase("nvlinks_per_gpu");
  return parse_baseline(doc, "b.json");
}

TEST(GpuHealth, UnreadFieldsAreUnknownFindingsNamingTheField) {
  GpuInfo g = testing::h200_gpu_info(0);
  g.ecc_enabled.reset();
  g.mig_mode.reset();
  g.pcie.width = 0;
  g.nvlinks_active.reset();
  const auto findings = gpu_health(g, 18);
  const std::pair<HealthRule, const char*> unknowns[] = {{HealthRule::kEcc, "ecc_enabled"},
                                                         {HealthRule::kMig, "mig_mode"},
                                                         {HealthRule::kPcieWidth, "pcie.width"},
                                                         {HealthRule::kNvlink, "nvlink.links_active"}};
  for (const auto& [rule, field] : unknowns) {
    const HealthFinding* f = finding(findings, rule);
    ASSERT_NE(f, nullptr) << to_string(rule);
    EXPECT_EQ(f->unknown, field);
    EXPECT_FALSE(f->bad);
    EXPECT_NE(f->text.find("could not be read"), std::string::npos) << f->text;
  }
  EXPECT_EQ(finding(findings, HealthRule::kEcc)->text, "ECC mode could not be read (ecc_enabled is null): unchecked");
  EXPECT_TRUE(finding(findings, HealthRule::kPcieGen)->unknown.empty());  // gen5 of gen5: read
}

TEST(GpuHealth, NoNvlinkOnAPcieCardIsARealZero) {
  GpuInfo g = testing::h200_gpu_info(0);
  g.nvlinks_active = 0;
  const HealthFinding* f = finding(gpu_health(g, 18), HealthRule::kNvlink);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->bad);  // read, and down: a failure, not an unknown
  EXPECT_TRUE(f->unknown.empty());

  const nlohmann::json written = to_json(g);
  EXPECT_EQ(written["nvlink"]["links_active"], 0);
  g.nvlinks_active.reset();
  EXPECT_TRUE(to_json(g)["nvlink"]["links_active"].is_null());
  EXPECT_FALSE(read_gpu_info(JsonAt(to_json(g), "t.json")).nvlinks_active.has_value());
  EXPECT_EQ(read_gpu_info(JsonAt(written, "t.json")).nvlinks_active, 0);
  nlohmann::json negative = written;
  negative["nvlink"]["links_active"] = -1;
  testing::expect_bad_input([&] { read_gpu_info(JsonAt(negative, "t.json")); }, "/nvlink/links_active");
}

TEST(CheckUnknown, EccNullWarnsByDefaultAndFailsWhereTheBaselineAsksForEcc) {
  ResultBuilder run = healthy_run();
  run.gpu(2)["ecc_enabled"] = nullptr;
  const CheckReport plain = check_run(baseline_with(nullptr), run.parse());
  const CheckLine* line = find_line(plain, "health/gpu2/ecc");
  ASSERT_NE(line, nullptr);
  EXPECT_EQ(line->result, LineResult::kWarn);
  EXPECT_EQ(line->unknown, "ecc_enabled");
  EXPECT_EQ(value_text(*line), "unknown");
  EXPECT_FALSE(plain.failed());
  EXPECT_EQ(find_line(plain, "health/ecc")->note, "7 GPU(s): ECC enabled");

  const CheckReport asked = check_run(baseline_with({{"ecc", "fail"}}), run.parse());
  EXPECT_EQ(find_line(asked, "health/gpu2/ecc")->result, LineResult::kFail);
  EXPECT_TRUE(asked.failed());
  EXPECT_EQ(find_line(check_run(baseline_with({{"ecc", "warn"}}), run.parse()), "health/gpu2/ecc")->result,
            LineResult::kWarn);
  EXPECT_EQ(find_line(check_run(baseline_with({{"ecc", "off"}}), run.parse()), "health/gpu2/ecc"), nullptr);

  const std::string table = render_check(asked, "table");
  EXPECT_NE(table.find("health/gpu2/ecc"), std::string::npos);
  EXPECT_NE(table.find("unknown"), std::string::npos) << table;
  // ECC, and the error counters this run did not record.
  EXPECT_NE(table.find("-> FAIL; 2 health line(s) unknown"), std::string::npos) << table;
  const nlohmann::json json = nlohmann::json::parse(render_check(asked, "json"));
  EXPECT_EQ(json["summary"]["unknown"], 2);
  const auto lines = json["lines"];
  const auto ecc =
      std::find_if(lines.begin(), lines.end(), [](const auto& l) { return l["subject"] == "health/gpu2/ecc"; });
  ASSERT_NE(ecc, lines.end());
  EXPECT_EQ((*ecc)["unknown"], "ecc_enabled");
  EXPECT_EQ((*ecc)["result"], "fail");
  EXPECT_TRUE((*ecc)["value"].is_null());
}

TEST(CheckUnknown, PcieWidthZeroFailsWhereTheBaselineStatesTheWidth) {
  ResultBuilder run = healthy_run();
  run.gpu(5)["pcie"]["width"] = 0;
  const CheckReport asked = check_run(baseline_of(any_entry()), run.parse());
  const CheckLine* line = find_line(asked, "health/gpu5/pcie_width");
  ASSERT_NE(line, nullptr);  // applies_to.pcie_width 16: asked for
  EXPECT_EQ(line->result, LineResult::kFail);
  EXPECT_EQ(line->unknown, "pcie.width");
  EXPECT_EQ(line->note, "PCIe link width could not be read (pcie.width 0): unchecked");
  nlohmann::json doc = baseline_doc(any_entry());
  doc["applies_to"].erase("pcie_width");
  const CheckReport unasked = check_run(parse_baseline(doc, "b.json"), run.parse());
  EXPECT_EQ(find_line(unasked, "health/gpu5/pcie_width")->result, LineResult::kWarn);
  EXPECT_FALSE(unasked.failed());
}

TEST(CheckUnknown, AnUnknownEveryGpuSharesIsOneLine) {
  ResultBuilder run = healthy_run();
  for (int i = 0; i < 8; ++i) run.gpu(i)["mig_mode"] = nullptr;
  const CheckReport r = check_run(baseline_of(any_entry()), run.parse());
  const CheckLine* line = find_line(r, "health/mig");
  ASSERT_NE(line, nullptr);
  EXPECT_EQ(line->result, LineResult::kWarn);
  EXPECT_EQ(line->unknown, "mig_mode");
  EXPECT_EQ(line->note, "8 GPU(s): MIG mode could not be read (mig_mode is null): unchecked");
  EXPECT_EQ(find_line(r, "health/gpu0/mig"), nullptr);
}

TEST(CheckUnknown, ActiveLinksNullFailWhereTheBaselineExpectsNvlinks) {
  ResultBuilder run = healthy_run();
  run.gpu(3)["nvlink"]["links_active"] = nullptr;
  const CheckReport r = check_run(baseline_with(nullptr), run.parse());
  const CheckLine* line = find_line(r, "health/gpu3/nvlink");
  ASSERT_NE(line, nullptr);
  EXPECT_EQ(line->result, LineResult::kFail);  // nvlinks_per_gpu 18
  EXPECT_EQ(line->unknown, "nvlink.links_active");
  // Without nvlinks_per_gpu the peers' 18 links are expected, and the unread count only warns.
  EXPECT_EQ(find_line(check_run(baseline_with(nullptr, false), run.parse()), "health/gpu3/nvlink")->result,
            LineResult::kWarn);
}

// One suite window with every counter read, on links 0 and 1 when `links`.
nlohmann::json counters(bool links = true) {
  ErrorCounters c;
  c.ecc_corrected = c.ecc_uncorrected = c.remapped_correctable = c.remapped_uncorrectable = c.pcie_replay = 0;
  c.remap_pending = c.remap_failure = false;
  if (links)
    for (unsigned link = 0; link < 2; ++link) c.nvlinks.push_back({link, 0, 0, 0, 0});
  return nlohmann::json::array({to_json(CounterWindow{"memory", 60, c, c, "", {}})});
}

TEST(CheckUnknown, ErrorCountersMissingOnOneGpuWarnNamingItOrFailWhereAsked) {
  ResultBuilder run = healthy_run();
  for (int i = 0; i < 8; ++i)
    if (i != 6) run.gpu(i)["error_counters"] = counters();
  const CheckReport r = check_run(baseline_with(nullptr), run.parse());
  const CheckLine* line = find_line(r, "health/gpu6/error_counters");
  ASSERT_NE(line, nullptr);
  EXPECT_EQ(line->result, LineResult::kWarn);
  EXPECT_EQ(line->unknown, "error_counters");
  EXPECT_EQ(line->note, "no error counters recorded for this GPU, 7 other GPU(s) have them: unchecked");
  EXPECT_EQ(find_line(r, "health/error_counters"), nullptr);  // the run has them
  EXPECT_FALSE(r.failed());
  EXPECT_EQ(find_line(check_run(baseline_with({{"error_counters", "fail"}}), run.parse()),
                      "health/gpu6/error_counters")->result,
            LineResult::kFail);
  // And a run without any still says so once, failing where the baseline asks for counters,
  // also where NVML was not there to record them.
  EXPECT_EQ(find_line(check_run(baseline_with({{"error_counters", "fail"}}), healthy_run().parse()),
                      "health/error_counters")->result,
            LineResult::kFail);
  ResultBuilder no_nvml = healthy_run();
  no_nvml.gpubench_context()["nvml"] = {{"available", false}, {"error", "libnvidia-ml.so.1 not found"}};
  const CheckReport blind = check_run(baseline_with({{"error_counters", "fail"}}), no_nvml.parse());
  EXPECT_EQ(find_line(blind, "health/nvml")->result, LineResult::kWarn);
  EXPECT_EQ(find_line(blind, "health/error_counters")->note,
            "the run has no error counters (NVML unavailable): unchecked");
  EXPECT_EQ(find_line(blind, "health/error_counters")->result, LineResult::kFail);
}

TEST(CheckUnknown, NvlinkCountersAbsentWhereNvlinksAreExpected) {
  ResultBuilder run = healthy_run();
  for (int i = 0; i < 8; ++i) run.gpu(i)["error_counters"] = counters(i != 1);
  const CheckReport r = check_run(baseline_with(nullptr), run.parse());
  const CheckLine* line = find_line(r, "health/gpu1/nvlink_errors");
  ASSERT_NE(line, nullptr);
  EXPECT_EQ(line->result, LineResult::kFail);  // nvlinks_per_gpu 18 asks for them
  EXPECT_EQ(line->unknown, "error_counters.nvlinks");
  EXPECT_EQ(line->note, "NVLink error counters could not be read (no suite lists a link, 18 expected): unchecked");
  EXPECT_EQ(find_line(r, "health/nvlink_errors")->note,
            "7 GPU(s): NVLink error counters within limits over 1 suite(s)");
  // A one-GPU PCIe node without links has nothing to read.
  ResultBuilder pcie(1);
  pcie.bench(kTriad, "bandwidth_gbps", testing::samples(4400, 0.5, 10));
  pcie.gpu(0)["nvlink"]["links_active"] = 0;
  pcie.gpu(0)["error_counters"] = counters(false);
  EXPECT_EQ(find_line(check_run(baseline_with(nullptr, false), pcie.parse()), "health/gpu0/nvlink_errors"), nullptr);
}

TEST(CheckUnknown, AnUnreadCounterFailsWhereTheBaselineAsksForCounters) {
  ResultBuilder run = healthy_run();
  for (int i = 0; i < 8; ++i) run.gpu(i)["error_counters"] = counters();
  run.gpu(4)["error_counters"][0]["after"]["pcie_replay"] = nullptr;
  const CheckReport r = check_run(baseline_with(nullptr), run.parse());
  const CheckLine* warned = find_line(r, "health/gpu4/pcie_replay");
  ASSERT_NE(warned, nullptr);
  EXPECT_EQ(warned->result, LineResult::kWarn);
  EXPECT_EQ(warned->unknown, "error_counters.pcie_replay");
  EXPECT_EQ(find_line(check_run(baseline_with({{"error_counters", "fail"}}), run.parse()), "health/gpu4/pcie_replay")
                ->result,
            LineResult::kFail);
}

TEST(BaselineHealth, AGeneratedBaselineAsksForWhatItsRunsRead) {
  ResultBuilder run = healthy_run();
  run.gpu(0)["mig_mode"] = nullptr;
  const Baseline made = make_baseline({run.parse()}, 10, "");
  const nlohmann::json health = to_json(made)["health"];
  EXPECT_EQ(health["ecc"], "fail");
  EXPECT_EQ(health["pcie_width"], "fail");
  EXPECT_FALSE(health.contains("mig"));             // unread in the run it was made from
  EXPECT_FALSE(health.contains("error_counters"));  // none recorded
  EXPECT_TRUE(health.contains("counter_limits"));
  EXPECT_EQ(parse_baseline(to_json(made), "again.json").health.stated, made.health.stated);
  // A baseline that names no check writes none back.
  EXPECT_EQ(to_json(baseline_of(any_entry()))["health"].size(), 1u);
}

TEST(InfoHealth, UnreadFieldsAreShownAsUnknown) {
  Context c;
  c.nvml_available = true;
  c.gpus = {testing::h200_gpu_info(0)};
  c.gpus[0].ecc_enabled.reset();
  const std::string text = format_info(c);
  EXPECT_NE(text.find("unknown (ecc_enabled): ECC mode could not be read"), std::string::npos) << text;
}

}  // namespace
}  // namespace gpubench
