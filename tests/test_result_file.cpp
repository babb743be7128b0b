// The result-file loader: its errors name the file and the place, unverified figures are failed
// as they are read, and figures written as null are kept for the gate (test_judgeable.cpp).
#include <gtest/gtest.h>

#include <cmath>

#include "harness/model/result_file.h"
#include "tests/result_builder.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

using testing::expect_bad_input;
using testing::ResultBuilder;
using testing::samples;

const char* kTriad = "memory/stream/op:triad/type:fp32/array_bytes:1073741824";

TEST(ResultFile, LoaderErrorsNameFileAndPlace) {
  const std::string dir = ::gpubench::testing::temp_dir();
  expect_bad_input([&] { load_result_file(dir + "/absent.json"); }, dir + "/absent.json: cannot read");
  ::gpubench::testing::write_file(dir + "/trunc.json", R"({"context": {"gpubench": {"sch)");
  expect_bad_input([&] { load_result_file(dir + "/trunc.json"); }, dir + "/trunc.json: byte 31: ");
  ResultBuilder b;
  b.bench(kTriad, "bandwidth_gbps", samples(1, 1, 3));
  nlohmann::json doc = b.doc();
  doc["context"]["gpubench"]["schema"] = "gpubench/2";
  expect_bad_input([&] { parse_result_document(doc, "f.json"); },
                   "f.json: /context/gpubench/schema: unsupported schema \"gpubench/2\"");
  doc = b.doc();
  doc["context"]["gpubench"].erase("schema");
  expect_bad_input([&] { parse_result_document(doc, "f.json"); },
                   "/context/gpubench: missing required field \"schema\"");
  doc = b.doc();
  doc["benchmarks"][0].erase("name");
  expect_bad_input([&] { parse_result_document(doc, "f.json"); }, "/benchmarks/0: missing required field \"name\"");
  doc = b.doc();
  doc["benchmarks"][0]["gpubench"]["metrics"]["bandwidth_gbps"]["better"] = "more";
  expect_bad_input([&] { parse_result_document(doc, "f.json"); },
                   "/benchmarks/0/gpubench/metrics/bandwidth_gbps/better: expected \"higher\" or \"lower\"");
  doc = b.doc();
  doc["benchmarks"][0]["gpubench"]["status"] = "great";
  expect_bad_input([&] { parse_result_document(doc, "f.json"); }, "/benchmarks/0/gpubench/status");
  doc = b.doc();
  doc["context"]["gpubench"]["gpus"][2]["pcie"]["gen"] = "five";
  expect_bad_input([&] { parse_result_document(doc, "f.json"); },
                   "/context/gpubench/gpus/2/pcie/gen: expected a number, found a string");
  doc = b.doc();
  doc["benchmarks"] = nlohmann::json::object();
  expect_bad_input([&] { parse_result_document(doc, "f.json"); }, "/benchmarks: expected an array");
  expect_bad_input([&] { parse_result_text("[1, 2]", "g.json"); }, "g.json: /: expected an object");
}

TEST(ResultFile, AggregateRowsAreIgnored) {
  ResultBuilder b;
  b.bench(kTriad, "bandwidth_gbps", samples(10, 1, 3));
  nlohmann::json doc = b.doc();
  doc["benchmarks"].push_back({{"name", std::string(kTriad) + "_mean"}, {"run_type", "aggregate"}});
  EXPECT_EQ(parse_result_document(doc, "f.json").benchmarks.size(), 1u);
}


TEST(ResultFile, MessagesSayWhatIsWrong) {
  const std::string dir = ::gpubench::testing::temp_dir();
  expect_bad_input([&] { load_result_file(dir); }, dir + ": cannot read: is a directory");
  ResultBuilder b;
  b.bench(kTriad, "bandwidth_gbps", samples(1, 1, 3));
  nlohmann::json doc = b.doc();
  doc["benchmarks"][0]["gpubench"]["metrics"]["bandwidth_gbps"]["median"] = "fast";
  doc["benchmarks"][0]["gpubench"]["metrics"]["bandwidth_gbps"].erase("values");  // the median is the figure
  expect_bad_input([&] { parse_result_document(doc, "f.json"); },
                   "f.json: /benchmarks/0/gpubench/metrics/bandwidth_gbps/median: expected a number, found a string");
  expect_bad_input([] { parse_result_text("{\n  \"x\": 1e999}", "h.json"); },
                   "h.json: byte 9 (line 2): number out of range: 1e999");
}

TEST(ResultFile, ARecordedPlausibilityFactorIsTheBoundReadersApply) {
  ResultBuilder b;
  const std::string winograd = "conv/forward/layer:res3_3x3_128/type:fp32";
  b.bench(winograd, "tflops", samples(80, 1, 10));  // 133 % of a 60 TFLOP/s peak, under 9 x it
  b.last()["gpubench"]["peak"] = 60.0;
  b.last()["gpubench"]["plausibility_factor"] = 9.0;
  const ResultFile r = b.parse();
  EXPECT_DOUBLE_EQ(r.find(winograd)->plausibility_factor, 9.0);
  ResultBuilder bad;
  bad.bench(winograd, "tflops", samples(80, 1, 10));
  bad.last()["gpubench"]["plausibility_factor"] = 0.5;
  expect_bad_input([&] { bad.parse(); }, "/benchmarks/0/gpubench/plausibility_factor: expected a number of at least 1");
}

TEST(ResultFile, UnverifiedOkFiguresAreFailed) {
  ResultBuilder b;
  b.bench(kTriad, "bandwidth_gbps", samples(4000, 1, 10));
  b.last()["gpubench"]["verified"] = false;
  const ResultFile run = b.parse();
  const BenchmarkResult& r = *run.find(kTriad);
  EXPECT_EQ(r.status, Status::kFailed);
  EXPECT_NE(r.error.find("\"verified\" is false"), std::string::npos);
}

// Null is how a non-finite number is written: it reads as NaN, and where it stands beside
// figures that say otherwise, its place is kept, so that the gate can name it.
TEST(ResultFile, NullFiguresAreKeptForTheGate) {
  ResultBuilder b;
  b.bench(kTriad, "bandwidth_gbps", samples(4000, 1, 4));
  b.last()["bandwidth_gbps"] = nullptr;
  b.last()["gpubench"]["metrics"]["bandwidth_gbps"]["values"][1] = nullptr;
  b.last()["gpubench"]["metrics"]["bandwidth_gbps"]["median"] = nullptr;
  b.bench("memory/stream/op:copy", "bandwidth_gbps", {});
  b.last()["gpubench"]["metrics"]["bandwidth_gbps"]["median"] = nullptr;
  const ResultFile run = b.parse();
  const BenchmarkResult& triad = *run.find(kTriad);
  EXPECT_TRUE(std::isnan(triad.metrics.at("bandwidth_gbps").values[1]));
  EXPECT_EQ(triad.null_figures, (std::vector<std::string>{"/benchmarks/0/gpubench/metrics/bandwidth_gbps/median",
                                                          "/benchmarks/0/bandwidth_gbps"}));
  EXPECT_TRUE(std::isnan(run.find("memory/stream/op:copy")->metrics.at("bandwidth_gbps").median));
  EXPECT_TRUE(run.find("memory/stream/op:copy")->null_figures.empty());
}

// Node mode's causes travel with the figure to the verdict; notes of another shape do not stop
// the run from being read.
TEST(ResultFile, NodeCausesAreReadBesideTheConcurrentFigure) {
  const std::string node = std::string(kTriad) + "/mode:node/gpu:gpu1";
  ResultBuilder b;
  for (int rep : {0, 1}) {
    b.bench(node, "bandwidth_gbps", samples(4000, 1, 4), true, rep, 2);
    b.last()["gpubench"]["notes"]["node"] = {{"shares_pcie_bridge_with", {{"gpu0", "0000:15:00.0"}, {"gpu2", 7}}},
                                             {"sm_clock_drop_pct", rep == 0 ? 12.0 : 28.5}};
  }
  b.bench(std::string(kTriad) + "/mode:node/gpu:gpu2", "bandwidth_gbps", samples(4000, 1, 4));
  b.last()["gpubench"]["notes"]["node"] = "damaged";
  const ResultFile run = b.parse();
  const BenchmarkResult& r = *run.find(node);
  EXPECT_EQ(r.shares_pcie_bridge_with, (std::map<std::string, std::string>{{"gpu0", "0000:15:00.0"}}));
  EXPECT_EQ(r.node_causes(), "shares PCIe bridge 0000:15:00.0 with gpu0; SM clock 28.5% lower than alone");
  EXPECT_EQ(run.find(std::string(kTriad) + "/mode:node/gpu:gpu2")->node_causes(), "");
}

TEST(ResultFile, KeepsWhatTheGateNeedsOfTheDocument) {
  ResultBuilder b;
  b.gpubench_context()["complete"] = false;
  b.gpubench_context()["interrupted"] = "SIGINT";
  for (int rep : {0, 1, 1}) b.bench(kTriad, "bandwidth_gbps", samples(4000, 1, 4), true, rep, 2);
  const ResultFile run = b.parse();
  EXPECT_FALSE(run.complete);
  EXPECT_EQ(run.interrupted, "SIGINT");
  EXPECT_EQ(run.find(kTriad)->repetition_indices, (std::vector<int>{0, 1, 1}));
  EXPECT_TRUE(run.unjudgeable.empty());  // judge_run decides
}

}  // namespace
}  // namespace gpubench
