// check and baseline: the baseline format and its errors, applies_to, every line result,
// health checks, retries, the baseline writer, and the commands' exit codes.
#include <gtest/gtest.h>

#include "harness/analysis/check.h"
#include "harness/cli/commands.h"
#include "tests/result_builder.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

using testing::expect_bad_input;
using testing::ResultBuilder;
using testing::samples;

const char* kTriad = "memory/stream/op:triad/type:fp32";
const char* kCopy = "memory/stream/op:copy/type:fp32";
const char* kLaunch = "launch/empty/mode:sync";

nlohmann::json baseline_doc(nlohmann::json benchmarks) {
  return {{"gpubench_baseline", 1},
          {"applies_to", {{"gpu_model", "NVIDIA H200"}, {"gpu_count", 8}, {"nvlinks_per_gpu", 18},
                          {"pcie_gen", 5}, {"pcie_width", 16}}},
          {"benchmarks", benchmarks}};
}

Baseline baseline_of(nlohmann::json benchmarks) {
  return parse_baseline(baseline_doc(std::move(benchmarks)), "h200.json");
}

// A healthy run: triad 4400 GB/s, copy 4000 GB/s, launch 4 us.
ResultBuilder healthy_run() {
  ResultBuilder b;
  b.bench(kTriad, "bandwidth_gbps", samples(4400, 0.5, 10));
  b.bench(kCopy, "bandwidth_gbps", samples(4000, 0.5, 10));
  b.bench(kLaunch, "latency_us", samples(4, 0.5, 10), false);
  return b;
}

const CheckLine& line_for(const CheckReport& r, const std::string& subject) {
  for (const auto& l : r.lines)
    if (l.subject == subject) return l;
  throw std::runtime_error("no line for " + subject);
}

TEST(Check, FloorCeilingAndReferenceLines) {
  const Baseline b = baseline_of({{{"name", kTriad}, {"floor", 4000}},                 // +10 %: pass
                                  {{"name", kCopy}, {"floor", 3900}},                  // +2.6 %: warn
                                  {{"name", kLaunch}, {"metric", "latency_us"}, {"ceiling", 3.8}}});
  const CheckReport r = check_run(b, healthy_run().parse());
  EXPECT_EQ(line_for(r, kTriad).result, LineResult::kPass);
  EXPECT_NEAR(*line_for(r, kTriad).margin_pct, 10.0, 1e-9);
  EXPECT_EQ(line_for(r, kTriad).expected, ">= 4000");
  EXPECT_EQ(line_for(r, kCopy).result, LineResult::kWarn);
  EXPECT_EQ(line_for(r, kLaunch).result, LineResult::kFail);
  EXPECT_LT(*line_for(r, kLaunch).margin_pct, 0);
  EXPECT_TRUE(r.failed());
  EXPECT_EQ(r.count(LineResult::kPass), 1 + 3);  // health: pcie, nvlink, ecc, 8 GPUs each
}

TEST(Check, ReferenceBoundsOnlyTheBadDirection) {
  const Baseline b = baseline_of({{{"name", kTriad}, {"reference", 5000}, {"tolerance_pct", 5}},
                                  {{"name", kCopy}, {"reference", 3000}},  // default 5 %: far faster
                                  {{"name", kLaunch}, {"reference", 3.9}, {"tolerance_pct", 10}}});
  const CheckReport r = check_run(b, healthy_run().parse());
  EXPECT_EQ(line_for(r, kTriad).result, LineResult::kFail);  // 4400 < 4750
  EXPECT_EQ(line_for(r, kTriad).expected, ">= 4750");
  EXPECT_EQ(line_for(r, kCopy).result, LineResult::kPass);
  EXPECT_EQ(line_for(r, kLaunch).expected, "<= 4.333");  // lower is better: 3.9 / (1 - 10 %)
  EXPECT_EQ(line_for(r, kLaunch).result, LineResult::kPass);
}

TEST(Check, WarnBandIsConfigurable) {
  nlohmann::json doc = baseline_doc({{{"name", kTriad}, {"floor", 4000}},
                                     {{"name", kCopy}, {"floor", 3900}, {"warn_pct", 1}}});
  doc["defaults"] = {{"warn_pct", 12}};
  const CheckReport r = check_run(parse_baseline(doc, "b.json"), healthy_run().parse());
  EXPECT_EQ(line_for(r, kTriad).result, LineResult::kWarn);  // 10 % margin < 12 %
  EXPECT_EQ(line_for(r, kCopy).result, LineResult::kPass);   // 2.6 % margin > 1 %
  EXPECT_FALSE(r.failed());
}

TEST(Check, MissingAndErrorLines) {
  ResultBuilder run = healthy_run();
  run.bench("gemm/matmul/type:bf16", "tflops", {}).status_of_last("failed", "result mismatch");
  const Baseline b = baseline_of({{{"name", "transfer/copy/bytes:1"}, {"floor", 1}},
                                  {{"pattern", "conv/*"}, {"floor", 1}},
                                  {{"name", "gemm/matmul/type:bf16"}, {"floor", 500}},
                                  {{"name", kTriad}, {"metric", "tflops"}, {"floor", 1}}});
  const CheckReport r = check_run(b, run.parse());
  EXPECT_EQ(line_for(r, "transfer/copy/bytes:1").result, LineResult::kMissing);
  EXPECT_EQ(line_for(r, "conv/*").result, LineResult::kMissing);
  EXPECT_EQ(line_for(r, "gemm/matmul/type:bf16").result, LineResult::kError);
  EXPECT_NE(line_for(r, "gemm/matmul/type:bf16").note.find("result mismatch"), std::string::npos);
  EXPECT_EQ(line_for(r, kTriad).result, LineResult::kError);  // no such metric
  EXPECT_EQ(r.count(LineResult::kMissing), 2);
  EXPECT_TRUE(r.failed());
}

TEST(Check, PatternsMatchNamesAndExactEntriesWin) {
  const Baseline b = baseline_of({{{"pattern", "memory/stream/*"}, {"floor", 4200}},
                                  {{"name", kCopy}, {"floor", 3500}},
                                  {{"pattern", "memory/*/op:tri[a]d/*"}, {"floor", 4300}}});
  const CheckReport r = check_run(b, healthy_run().parse());
  // triad: the later pattern wins (4300); copy: its exact entry beats the pattern.
  EXPECT_EQ(line_for(r, kTriad).expected, ">= 4300");
  EXPECT_EQ(line_for(r, kCopy).expected, ">= 3500");
  EXPECT_EQ(line_for(r, kCopy).result, LineResult::kPass);
  EXPECT_EQ(r.lines.size(), 2u + 3u);
}

TEST(Check, HealthChecks) {
  ResultBuilder run = healthy_run();
  run.gpu(1)["pcie"]["width"] = 8;               // narrow link: fail
  run.gpu(2)["pcie"]["gen"] = 1;                 // idle downshift: warn
  run.gpu(3)["nvlink"]["links_active"] = 16;     // two links down: fail
  run.gpu(4)["ecc_enabled"] = false;             // ECC off: fail
  run.bench("gemm/matmul/type:bf16", "tflops", samples(700, 1, 10)).throttle_last({"sw_power_cap"});
  const Baseline b = baseline_of(nlohmann::json::array());
  const CheckReport r = check_run(b, run.parse());
  EXPECT_EQ(line_for(r, "health/gpu1/pcie").result, LineResult::kFail);
  EXPECT_EQ(line_for(r, "health/gpu2/pcie").result, LineResult::kWarn);
  EXPECT_EQ(line_for(r, "health/pcie").result, LineResult::kPass);  // the other six, folded
  EXPECT_EQ(line_for(r, "health/pcie").note, "6 GPU(s): link at gen5 x16");
  EXPECT_EQ(line_for(r, "health/gpu3/nvlink").result, LineResult::kFail);
  EXPECT_NE(line_for(r, "health/gpu3/nvlink").note.find("16 of 18"), std::string::npos);
  EXPECT_EQ(line_for(r, "health/gpu4/ecc").result, LineResult::kFail);
  EXPECT_EQ(line_for(r, "health/throttling").result, LineResult::kWarn);
  EXPECT_NE(line_for(r, "health/throttling").note.find("sw_power_cap"), std::string::npos);
  EXPECT_EQ(r.count(LineResult::kFail), 3);

  nlohmann::json doc = baseline_doc(nlohmann::json::array());
  doc["health"] = {{"throttling", "fail"}, {"ecc", "off"}, {"pcie_width", "warn"}};
  const CheckReport strict = check_run(parse_baseline(doc, "b.json"), run.parse());
  EXPECT_EQ(line_for(strict, "health/throttling").result, LineResult::kFail);
  EXPECT_EQ(line_for(strict, "health/gpu1/pcie").result, LineResult::kWarn);
  for (const auto& l : strict.lines) EXPECT_EQ(l.subject.find("ecc"), std::string::npos);

  ResultBuilder no_nvml = healthy_run();
  no_nvml.gpubench_context()["nvml"] = {{"available", false}, {"error", "libnvidia-ml.so.1 not found"}};
  EXPECT_EQ(line_for(check_run(b, no_nvml.parse()), "health/nvml").result, LineResult::kWarn);
}

TEST(Check, AppliesToRefusesOtherMachines) {
  const Baseline b = baseline_of(nlohmann::json::array());
  EXPECT_NO_THROW(verify_applies_to(b, healthy_run().parse()));
  expect_bad_input([&] { verify_applies_to(b, ResultBuilder(8, "NVIDIA H100 NVL").parse("nvl.json")); },
                   "h200.json: /applies_to/gpu_model: baseline does not apply to nvl.json: baseline is for "
                   "\"NVIDIA H200\", gpu0 is \"NVIDIA H100 NVL\"");
  expect_bad_input([&] { verify_applies_to(b, ResultBuilder(4).parse()); }, "/applies_to/gpu_count");
  ResultBuilder pcie_only;
  for (int i = 0; i < 8; ++i) pcie_only.gpu(i)["nvlink"]["links_active"] = 0;
  expect_bad_input([&] { verify_applies_to(b, pcie_only.parse()); }, "/applies_to/nvlinks_per_gpu");
  ResultBuilder one_short;  // one GPU short of links is the same machine, unhealthy
  one_short.gpu(6)["nvlink"]["links_active"] = 17;
  EXPECT_NO_THROW(verify_applies_to(b, one_short.parse()));
  ResultBuilder gen4;
  gen4.gpu(0)["pcie"]["gen_max"] = 4;
  expect_bad_input([&] { verify_applies_to(b, gen4.parse()); }, "/applies_to/pcie_gen");
  ResultBuilder idle;  // a link trained down at idle is not a different machine
  idle.gpu(0)["pcie"]["gen"] = 1;
  EXPECT_NO_THROW(verify_applies_to(b, idle.parse()));
}

TEST(Check, RetriesRerunOnlyFailingBenchmarks) {
  const Baseline b = baseline_of({{{"name", kTriad}, {"floor", 4500}}, {{"name", kCopy}, {"floor", 3000}}});
  std::vector<std::vector<std::string>> asked;
  auto rerun = [&](const std::vector<std::string>& names) {
    asked.push_back(names);
    ResultBuilder again(8);
    again.bench(kTriad, "bandwidth_gbps", samples(asked.size() == 2 ? 5000 : 4400, 0.5, 10));
    return again.parse("(retry)");
  };
  const CheckReport r = check_with_retries(b, healthy_run().parse(), 3, rerun);
  ASSERT_EQ(asked.size(), 2u);  // fails, fails again, then passes
  EXPECT_EQ(asked[0], std::vector<std::string>{kTriad});
  EXPECT_EQ(line_for(r, kTriad).result, LineResult::kPass);
  EXPECT_EQ(line_for(r, kTriad).retries, 2);
  EXPECT_EQ(line_for(r, kCopy).retries, 0);
  EXPECT_FALSE(r.failed());
  EXPECT_NE(render_check(r, "table").find("after 2 retries"), std::string::npos);

  asked.clear();
  auto always_slow = [&](const std::vector<std::string>& names) {
    asked.push_back(names);
    return healthy_run().parse("(retry)");
  };
  const CheckReport stuck = check_with_retries(b, healthy_run().parse(), 2, always_slow);
  EXPECT_EQ(asked.size(), 2u);
  EXPECT_EQ(line_for(stuck, kTriad).result, LineResult::kFail);
  EXPECT_NE(render_check(stuck, "table").find("still failing after 2 retries"), std::string::npos);
}

TEST(Check, SuitesForRun) {
  EXPECT_EQ(suites_for(baseline_of({{{"name", kTriad}, {"floor", 1}}, {{"pattern", "launch/*"}, {"floor", 1}}})),
            (std::vector<std::string>{"launch", "memory"}));
  EXPECT_EQ(suites_for(baseline_of({{{"pattern", "*/stream/*"}, {"floor", 1}}})), std::vector<std::string>{"all"});
}

TEST(Baseline, BadBaselinesNameFileAndPlace) {
  auto bad = [&](nlohmann::json doc, const std::string& fragment) {
    expect_bad_input([&] { parse_baseline(doc, "b.json"); }, fragment);
  };
  nlohmann::json doc = baseline_doc(nlohmann::json::array());
  doc["aplies_to"] = 1;
  bad(doc, "b.json: /aplies_to: unknown field \"aplies_to\"");
  bad(baseline_doc({{{"name", kTriad}, {"flor", 1}}}), "b.json: /benchmarks/0/flor: unknown field");
  bad(baseline_doc({{{"pattern", "memory/[abc"}, {"floor", 1}}}), "/benchmarks/0/pattern: bad pattern");
  bad(baseline_doc({{{"pattern", "memory/[]"}, {"floor", 1}}}), "bad pattern");
  bad(baseline_doc({{{"pattern", "memory\\"}, {"floor", 1}}}), "trailing backslash");
  bad(baseline_doc({{{"name", "memory/*"}, {"floor", 1}}}), "use \"pattern\"");
  bad(baseline_doc({{{"name", kTriad}, {"pattern", "x"}, {"floor", 1}}}), "exactly one of \"name\" and \"pattern\"");
  bad(baseline_doc({{{"name", kTriad}}}), "/benchmarks/0: give exactly one of \"floor\"");
  bad(baseline_doc({{{"name", kTriad}, {"floor", 1}, {"ceiling", 2}}}), "exactly one of \"floor\"");
  bad(baseline_doc({{{"name", kTriad}, {"floor", 1}, {"tolerance_pct", 2}}}), "goes with \"reference\"");
  bad(baseline_doc({{{"name", kTriad}, {"floor", "1"}}}), "/benchmarks/0/floor: expected a number");
  doc = baseline_doc(nlohmann::json::array());
  doc["health"] = {{"ecc", "maybe"}};
  bad(doc, "/health/ecc: expected \"off\", \"warn\" or \"fail\"");
  doc = baseline_doc(nlohmann::json::array());
  doc["gpubench_baseline"] = 2;
  bad(doc, "/gpubench_baseline: unsupported");
  doc = baseline_doc(nlohmann::json::array());
  doc["run"] = {{"filter", "("}};
  bad(doc, "/run/filter: bad regex");
  doc = baseline_doc(nlohmann::json::array());
  doc["applies_to"].erase("gpu_model");
  bad(doc, "/applies_to: missing required field \"gpu_model\"");
  expect_bad_input([] { parse_baseline_text("{\"gpubench_baseline\": 1,", "t.json"); }, "t.json: byte 25: ");
}

TEST(Baseline, WrittenFromRunsAndRoundTrips) {
  ResultBuilder a = healthy_run(), b, c;
  b.bench(kTriad, "bandwidth_gbps", samples(4500, 0.5, 10));
  b.bench(kLaunch, "latency_us", samples(5, 0.5, 10), false);
  b.bench(kCopy, "bandwidth_gbps", {}).status_of_last("failed", "mismatch");
  c.bench(kTriad, "bandwidth_gbps", samples(4300, 0.5, 10));
  c.bench(kLaunch, "latency_us", samples(4.5, 0.5, 10), false);
  int skipped = 0;
  const Baseline made = make_baseline({a.parse(), b.parse(), c.parse()}, 10, "", &skipped);
  EXPECT_EQ(skipped, 1);  // copy failed in one run
  EXPECT_EQ(made.applies_to.gpu_model, "NVIDIA H200");
  EXPECT_EQ(made.applies_to.gpu_count, 8);
  EXPECT_EQ(made.applies_to.nvlinks_per_gpu, 18);
  EXPECT_EQ(made.applies_to.pcie_gen, 5);
  EXPECT_EQ(made.run.suites, (std::vector<std::string>{"launch", "memory"}));
  EXPECT_FALSE(made.run.quick);
  ResultBuilder quick = healthy_run();
  quick.gpubench_context()["command_line"] = "gpubench --suite memory --quick --out x.json";
  EXPECT_TRUE(make_baseline({quick.parse()}, 5, "").run.quick);
  ASSERT_EQ(made.expectations.size(), 2u);
  EXPECT_EQ(made.expectations[0].name, kLaunch);  // sorted by name
  EXPECT_EQ(made.expectations[0].bound, Bound::kCeiling);
  EXPECT_NEAR(made.expectations[0].value, 4.5 / 0.9, 1e-9);
  EXPECT_EQ(made.expectations[1].bound, Bound::kFloor);
  EXPECT_NEAR(made.expectations[1].value, 4400 * 0.9, 1e-9);
  const Baseline again = parse_baseline(to_json(made), "again.json");
  EXPECT_EQ(to_json(again), to_json(made));
  // A run holds against a baseline made from it.
  EXPECT_FALSE(check_run(again, a.parse()).failed());

  EXPECT_EQ(make_baseline({a.parse()}, 5, "launch").expectations.size(), 1u);
  expect_bad_input([&] { make_baseline({a.parse()}, 5, "[unclosed"); }, "--filter: bad regex");
  expect_bad_input([&] { make_baseline({a.parse("h200.json"), ResultBuilder(8, "NVIDIA H100").parse("h100.json")}, 5, ""); },
                   "h100.json: GPU model \"NVIDIA H100\" differs from \"NVIDIA H200\" of h200.json");
}

// check and baseline, as main() adds them.
int run_cli(std::vector<std::string> args, SuiteRunner runner = {}, std::string* out = nullptr) {
  const auto result = testing::run_cli(
      [&](CLI::App& app, int* exit_code) {
        add_check_command(app, exit_code, runner);
        add_baseline_command(app, exit_code);
      },
      std::move(args));
  if (out) *out = result.out;
  return result.exit_code;
}

TEST(CheckCli, ExitCodesAndRunner) {
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/run.json", healthy_run().doc().dump());
  testing::write_file(dir + "/pass.json", baseline_doc({{{"name", kTriad}, {"floor", 4000}}}).dump());
  testing::write_file(dir + "/fail.json", baseline_doc({{{"name", kTriad}, {"floor", 5000}}}).dump());
  nlohmann::json h100 = baseline_doc(nlohmann::json::array());
  h100["applies_to"]["gpu_model"] = "NVIDIA H100 80GB HBM3";
  testing::write_file(dir + "/h100.json", h100.dump());
  std::string out;
  EXPECT_EQ(run_cli({"check", "--baseline", dir + "/pass.json", dir + "/run.json"}, {}, &out), kExitOk);
  EXPECT_NE(out.find("check: 4 pass, 0 warn, 0 fail, 0 missing, 0 error"), std::string::npos) << out;
  EXPECT_EQ(run_cli({"check", "--baseline", dir + "/fail.json", dir + "/run.json"}), kExitFailure);
  expect_bad_input([&] { run_cli({"check", "--baseline", dir + "/h100.json", dir + "/run.json"}); },
                   "/applies_to/gpu_model");
  expect_bad_input([&] { run_cli({"check", "--baseline", dir + "/none.json", dir + "/run.json"}); }, "cannot read");
  expect_bad_input([&] { run_cli({"check", "--baseline", dir + "/pass.json"}); }, "give a RUN.json");

  // Without RUN.json, check asks the runner for the baseline's suites; retries by exact name.
  std::vector<RunRequest> requests;
  auto runner = [&](const RunRequest& request) {
    requests.push_back(request);
    return read_run_document(healthy_run().doc(), "(benchmark run)");
  };
  EXPECT_EQ(run_cli({"check", "--baseline", dir + "/fail.json", "--retries", "2", "--format", "json"}, runner, &out),
            kExitFailure);
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].suites, std::vector<std::string>{"memory"});
  EXPECT_TRUE(requests[0].exact_names.empty());
  EXPECT_EQ(requests[1].exact_names, std::vector<std::string>{kTriad});
  EXPECT_EQ(nlohmann::json::parse(out)["lines"][0]["retries"], 2);
}

TEST(BaselineCli, WritesALoadableBaseline) {
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/run.json", healthy_run().doc().dump());
  EXPECT_EQ(run_cli({"baseline", dir + "/run.json", "--tolerance", "5", "--out", dir + "/b.json"}), kExitOk);
  const Baseline b = load_baseline(dir + "/b.json");
  EXPECT_EQ(b.expectations.size(), 3u);
  EXPECT_EQ(run_cli({"check", "--baseline", dir + "/b.json", dir + "/run.json"}), kExitOk);
  EXPECT_THROW(run_cli({"baseline", dir + "/run.json"}), CLI::RequiredError);  // --tolerance
  expect_bad_input([&] { run_cli({"baseline", dir + "/absent.json", "--tolerance", "5"}); }, "cannot read");
}

}  // namespace
}  // namespace gpubench
