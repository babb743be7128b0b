// check and baseline: the baseline format and its errors, applies_to, every line result,
// health checks, retries, the baseline writer, and the commands' exit codes.
#include <gtest/gtest.h>

#include <algorithm>

#include "harness/analysis/check.h"
#include "harness/analysis/judgeable.h"
#include "harness/cli/commands.h"
#include "tests/check_support.h"

namespace gpubench {
namespace {

using namespace testing::check;
using testing::expect_bad_input;
using testing::ResultBuilder;
using testing::samples;

CheckOptions with_retries(int retries) {
  CheckOptions options;
  options.retries = retries;
  return options;
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
  EXPECT_EQ(r.count(LineResult::kPass), 1 + 5);  // health: pcie width, gen, nvlink, ecc, mig; 8 GPUs each
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
                                  {{"name", "gemm/matmul/type:bf16"}, {"metric", "tflops"}, {"floor", 500}}});
  const CheckReport r = check_run(b, run.parse());
  EXPECT_EQ(line_for(r, "transfer/copy/bytes:1").result, LineResult::kMissing);
  EXPECT_EQ(line_for(r, "conv/*").result, LineResult::kMissing);
  EXPECT_EQ(line_for(r, "gemm/matmul/type:bf16").result, LineResult::kError);
  EXPECT_NE(line_for(r, "gemm/matmul/type:bf16").note.find("result mismatch"), std::string::npos);
  EXPECT_EQ(r.count(LineResult::kMissing), 2);
  EXPECT_TRUE(r.failed());
}

// A metric that no benchmark of the entry's family has is a misspelt baseline, not a node that
// failed: exit 2 naming the entry, on every node alike. A benchmark missing or failed on the node,
// which leaves its metrics unknown, stays a failing line (exit 1).
TEST(Check, AMetricNoBenchmarkOfItsFamilyHasIsBadInput) {
  const Baseline misspelt = baseline_of({{{"name", kCopy}, {"floor", 1}},
                                         {{"name", kTriad}, {"metric", "bandwith_gbps"}, {"floor", 1}}});
  expect_bad_input([&] { check_run(misspelt, healthy_run().parse()); },
                   "h200.json: /benchmarks/1/metric: \"memory/stream/op:triad/type:fp32\" names the metric "
                   "\"bandwith_gbps\", which no benchmark of memory/stream in");
  const Baseline by_pattern = baseline_of({{{"pattern", "memory/stream/*"}, {"metric", "tflops"}, {"floor", 1}}});
  expect_bad_input([&] { check_run(by_pattern, healthy_run().parse()); }, "(they have: bandwidth_gbps)");

  ResultBuilder failed = healthy_run();
  failed.bench("gemm/matmul/type:bf16", "tflops", {}).status_of_last("failed", "result mismatch");
  const Baseline gemm = baseline_of({{{"name", "gemm/matmul/type:bf16"}, {"metric", "tflop"}, {"floor", 500}},
                                     {{"name", "conv/forward/n:1"}, {"metric", "tflop"}, {"floor", 1}}});
  const CheckReport r = check_run(gemm, failed.parse());
  EXPECT_EQ(line_for(r, "gemm/matmul/type:bf16").result, LineResult::kError);
  EXPECT_EQ(line_for(r, "conv/forward/n:1").result, LineResult::kMissing);
  EXPECT_TRUE(r.failed());
}

TEST(Check, AFailedBenchmarkWithoutABoundStillFailsTheNode) {
  ResultBuilder run = healthy_run();
  run.bench("gemm/matmul/type:fp8_e4m3", "tflops", {}).status_of_last("failed", "cublasLtMatmul: not supported");
  run.bench("gemm/matmul/type:fp8_e5m2", "tflops", {}).status_of_last("skipped", "needs compute capability 8.9");
  const Baseline b = baseline_of({{{"name", kTriad}, {"floor", 4000}}});
  const CheckReport r = check_run(b, run.parse());
  EXPECT_EQ(line_for(r, kTriad).result, LineResult::kPass);
  const CheckLine& failed = line_for(r, "gemm/matmul/type:fp8_e4m3");
  EXPECT_EQ(failed.result, LineResult::kError);
  EXPECT_NE(failed.note.find("not supported"), std::string::npos);
  EXPECT_TRUE(std::none_of(r.lines.begin(), r.lines.end(),
                           [](const CheckLine& l) { return l.subject == "gemm/matmul/type:fp8_e5m2"; }));
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
  EXPECT_EQ(r.lines.size(), 2u + 5u + 1u);  // and health/error_counters: not recorded
}

TEST(Check, HealthChecks) {
  ResultBuilder run = healthy_run();
  run.gpu(1)["pcie"]["width"] = 8;               // narrow link: fail
  run.gpu(2)["pcie"]["gen"] = 1;                 // idle downshift: warn
  run.gpu(3)["nvlink"]["links_active"] = 16;     // two links down: fail
  run.gpu(4)["ecc_enabled"] = false;             // ECC off: fail
  run.bench("gemm/matmul/type:bf16", "tflops", samples(700, 1, 10)).throttle_last({"sw_power_cap"});
  const Baseline b = baseline_of(any_entry());
  const CheckReport r = check_run(b, run.parse());
  EXPECT_EQ(line_for(r, "health/gpu1/pcie_width").result, LineResult::kFail);
  EXPECT_EQ(line_for(r, "health/gpu2/pcie_gen").result, LineResult::kWarn);
  EXPECT_EQ(line_for(r, "health/pcie_width").result, LineResult::kPass);  // the other seven, folded
  EXPECT_EQ(line_for(r, "health/pcie_width").note, "7 GPU(s) pass");
  EXPECT_EQ(line_for(r, "health/ecc").note, "7 GPU(s): ECC enabled");
  EXPECT_EQ(line_for(r, "health/gpu3/nvlink").result, LineResult::kFail);
  EXPECT_NE(line_for(r, "health/gpu3/nvlink").note.find("16 of 18"), std::string::npos);
  EXPECT_EQ(line_for(r, "health/gpu4/ecc").result, LineResult::kFail);
  EXPECT_EQ(line_for(r, "health/throttling").result, LineResult::kWarn);
  EXPECT_NE(line_for(r, "health/throttling").note.find("sw_power_cap"), std::string::npos);
  EXPECT_EQ(r.count(LineResult::kFail), 3);

  nlohmann::json doc = baseline_doc(any_entry());
  doc["health"] = {{"throttling", "fail"}, {"ecc", "off"}, {"pcie_width", "warn"}};
  const CheckReport strict = check_run(parse_baseline(doc, "b.json"), run.parse());
  EXPECT_EQ(line_for(strict, "health/throttling").result, LineResult::kFail);
  EXPECT_EQ(line_for(strict, "health/gpu1/pcie_width").result, LineResult::kWarn);
  for (const auto& l : strict.lines) EXPECT_EQ(l.subject.find("ecc"), std::string::npos);

  ResultBuilder no_nvml = healthy_run();
  no_nvml.gpubench_context()["nvml"] = {{"available", false}, {"error", "libnvidia-ml.so.1 not found"}};
  EXPECT_EQ(line_for(check_run(b, no_nvml.parse()), "health/nvml").result, LineResult::kWarn);
}

TEST(Check, AppliesToRefusesOtherMachines) {
  const Baseline b = baseline_of(any_entry());
  EXPECT_NO_THROW(verify_applies_to(b, healthy_run().parse()));
  expect_bad_input([&] { verify_applies_to(b, ResultBuilder(8, "NVIDIA H100 NVL").parse("nvl.json")); },
                   "h200.json: /applies_to/gpu_model: baseline does not apply to nvl.json: baseline is for "
                   "\"NVIDIA H200\", gpu0 is \"NVIDIA H100 NVL\"");
  EXPECT_NO_THROW(verify_applies_to(b, ResultBuilder(4).parse()));  // any GPU count
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
  const CheckReport r = check_with_retries(b, healthy_run().parse(), with_retries(3), rerun);
  ASSERT_EQ(asked.size(), 2u);  // fails, fails again, then passes
  EXPECT_EQ(asked[0], std::vector<std::string>{kTriad});
  EXPECT_EQ(line_for(r, kTriad).result, LineResult::kPass);
  EXPECT_EQ(line_for(r, kTriad).retries, 2);
  EXPECT_EQ(line_for(r, kCopy).retries, 0);
  EXPECT_FALSE(r.failed());
  EXPECT_NE(render_check(r, "table").find("after 2 retries (first run: fail at 4400)"), std::string::npos);

  asked.clear();
  auto always_slow = [&](const std::vector<std::string>& names) {
    asked.push_back(names);
    return healthy_run().parse("(retry)");
  };
  const CheckReport stuck = check_with_retries(b, healthy_run().parse(), with_retries(2), always_slow);
  EXPECT_EQ(asked.size(), 2u);
  EXPECT_EQ(line_for(stuck, kTriad).result, LineResult::kFail);
  EXPECT_NE(render_check(stuck, "table").find("still failing after 2 retries"), std::string::npos);
}

TEST(Check, EveryGpuOfTheNodeIsChecked) {
  ResultBuilder run;
  for (int i = 0; i < 8; ++i)
    run.bench("memory/stream/op:triad/gpu:gpu" + std::to_string(i), "bandwidth_gbps",
              samples(i == 5 ? 3700 : 4400, 0.5, 10));  // GPU 5's HBM 15 % slow
  run.gpu(3)["nvlink"]["links_active"] = 12;
  const Baseline b = baseline_of({{{"name", "memory/stream/op:triad/gpu:*"}, {"floor", 4000}},
                                  {{"name", "transfer/peer/src:*/dst:*"}, {"floor", 300}}});
  const CheckReport r = check_run(b, run.parse());
  EXPECT_EQ(line_for(r, "memory/stream/op:triad/gpu:gpu5").result, LineResult::kFail);
  EXPECT_EQ(line_for(r, "memory/stream/op:triad/gpu:gpu4").result, LineResult::kPass);
  EXPECT_EQ(line_for(r, "transfer/peer/src:gpu7/dst:gpu6").result, LineResult::kMissing);
  EXPECT_EQ(r.count(LineResult::kMissing), 56);  // every ordered pair
  EXPECT_EQ(line_for(r, "health/gpu3/nvlink").note, "NVLink 12 of 18 links active");
  EXPECT_EQ(line_for(r, "health/gpu3/nvlink").result, LineResult::kFail);
}

TEST(Check, AGpuThatFellOffTheBusFails) {
  const Baseline b = baseline_of(any_entry());
  CheckOptions eight;
  eight.expected_gpus = 8;
  const CheckReport seven = check_run(b, ResultBuilder(7).bench(kTriad, "bandwidth_gbps", {4400}).parse(), eight);
  EXPECT_EQ(line_for(seven, "health/gpus").result, LineResult::kFail);
  EXPECT_NE(line_for(seven, "health/gpus").note.find("shows 7 of 8 GPUs"), std::string::npos);
  EXPECT_TRUE(seven.failed());
  EXPECT_FALSE(check_run(b, healthy_run().parse(), eight).failed());
}

TEST(Check, AllLinksDownIsAHealthFailureNotAnotherMachine) {
  ResultBuilder down = healthy_run();
  for (int i = 0; i < 8; ++i) down.gpu(i)["nvlink"]["links_active"] = 0;
  const Baseline b = baseline_of(any_entry());
  EXPECT_NO_THROW(verify_applies_to(b, down.parse()));
  const CheckReport r = check_run(b, down.parse());
  EXPECT_EQ(line_for(r, "health/gpu0/nvlink").result, LineResult::kFail);
  EXPECT_EQ(r.count(LineResult::kFail), 8);
  // One GPU shows no links to check: the rule is for GPUs joined to peers.
  ResultBuilder single(1);
  single.gpu(0)["nvlink"]["links_active"] = 0;
  single.bench(kTriad, "bandwidth_gbps", {4400});
  EXPECT_FALSE(check_run(b, single.parse()).failed());
}

TEST(Check, ImpossibleAndUnverifiedFiguresFail) {
  ResultBuilder run = healthy_run();
  run.last()["gpubench"]["peak"] = 0.5;  // launch latency: a time, no ceiling
  run.bench("transfer/host_device/bytes:65536/engine:sm", "bandwidth_gbps", samples(3640, 0.5, 10));
  run.last()["gpubench"]["peak"] = 63.0;
  run.bench("memory/stream/op:dot", "bandwidth_gbps", samples(4000, 0.5, 10));
  run.last()["gpubench"]["verified"] = false;
  const Baseline b = baseline_of({{{"pattern", "*"}, {"floor", 1}}});
  ResultFile judged = run.parse();
  judge_run(judged);
  const CheckReport r = check_run(b, judged);
  EXPECT_EQ(line_for(r, "transfer/host_device/bytes:65536/engine:sm").result, LineResult::kError);
  EXPECT_NE(line_for(r, "transfer/host_device/bytes:65536/engine:sm").note.find("exceeds the physical peak"),
            std::string::npos);
  EXPECT_EQ(line_for(r, "memory/stream/op:dot").result, LineResult::kError);
  EXPECT_TRUE(r.failed());
  // Nor does baseline take such figures as floors: an unverified one is left out, and an
  // impossible one makes the run one that cannot be judged (test_judgeable.cpp).
  ResultBuilder unverified = healthy_run();
  unverified.bench("memory/stream/op:dot", "bandwidth_gbps", samples(4000, 0.5, 10));
  unverified.last()["gpubench"]["verified"] = false;
  int skipped = 0;
  const Baseline made = make_baseline({unverified.parse()}, 5, "", &skipped);
  EXPECT_EQ(skipped, 1);
  for (const Expectation& e : made.expectations) EXPECT_EQ(e.name.find("op:dot"), std::string::npos);
}

TEST(Check, ARetryThatErrorsLeavesTheFirstReport) {
  const Baseline b = baseline_of({{{"name", kTriad}, {"floor", 4500}}, {{"name", kCopy}, {"floor", 3000}}});
  auto broken = [](const std::vector<std::string>&) -> ResultFile {
    throw UsageError{kExitBadInput, "configs/acceptance/h200.json: cannot open config file"};
  };
  const CheckReport r = check_with_retries(b, healthy_run().parse(), with_retries(1), broken);
  EXPECT_EQ(line_for(r, kTriad).result, LineResult::kFail);
  EXPECT_EQ(line_for(r, kCopy).result, LineResult::kPass);
  ASSERT_EQ(r.retry_errors.size(), 1u);
  EXPECT_TRUE(r.failed());
  const std::string text = render_check(r, "table");
  EXPECT_NE(text.find(kTriad), std::string::npos);
  EXPECT_NE(text.find("check: retry 1: configs/acceptance/h200.json: cannot open config file (the report above"),
            std::string::npos) << text;
}

TEST(Check, SuitesForRun) {
  EXPECT_EQ(suites_for(baseline_of({{{"name", kTriad}, {"floor", 1}}, {{"pattern", "launch/*"}, {"floor", 1}}})),
            (std::vector<std::string>{"launch", "memory"}));
  EXPECT_EQ(suites_for(baseline_of({{{"pattern", "*/stream/*"}, {"floor", 1}}})), std::vector<std::string>{"all"});
}

TEST(CheckCli, ExitCodesAndRunner) {
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/run.json", healthy_run().doc().dump());
  testing::write_file(dir + "/pass.json", baseline_doc({{{"name", kTriad}, {"floor", 4000}}}).dump());
  testing::write_file(dir + "/fail.json", baseline_doc({{{"name", kTriad}, {"floor", 5000}}}).dump());
  nlohmann::json h100 = baseline_doc(any_entry());
  h100["applies_to"]["gpu_model"] = "NVIDIA H100 80GB HBM3";
  testing::write_file(dir + "/h100.json", h100.dump());
  std::string out;
  EXPECT_EQ(run_cli({"check", "--baseline", dir + "/pass.json", dir + "/run.json"}, {}, &out), kExitOk);
  // The one warning: the fixture records no error counters.
  EXPECT_NE(out.find("check: 6 pass, 1 warn, 0 fail, 0 missing, 0 error"), std::string::npos) << out;
  EXPECT_EQ(run_cli({"check", "--baseline", dir + "/fail.json", dir + "/run.json"}), kExitFailure);
  expect_bad_input([&] { run_cli({"check", "--baseline", dir + "/h100.json", dir + "/run.json"}); },
                   "/applies_to/gpu_model");
  expect_bad_input([&] { run_cli({"check", "--baseline", dir + "/none.json", dir + "/run.json"}); }, "cannot read");
  testing::write_file(dir + "/misspelt.json",
                      baseline_doc({{{"name", kTriad}, {"metric", "bandwith_gbps"}, {"floor", 4000}}}).dump());
  expect_bad_input([&] { run_cli({"check", "--baseline", dir + "/misspelt.json", dir + "/run.json"}); },
                   "/benchmarks/0/metric: \"memory/stream/op:triad/type:fp32\" names the metric \"bandwith_gbps\"");
  expect_bad_input([&] { run_cli({"check", "--baseline", dir + "/pass.json"}); }, "built without CUDA");

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

}  // namespace
}  // namespace gpubench
