// The result-file loader: its errors name the file and the place, and figures no reader may
// trust (above the physical peak, unverified) are failed as they are read.
#include <gtest/gtest.h>

#include "harness/report/result_file.h"
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
  doc["benchmarks"][0]["gpubench"]["metrics"]["bandwidth_gbps"]["median"] = nullptr;
  doc["benchmarks"][0]["gpubench"]["metrics"]["bandwidth_gbps"].erase("values");  // the median is the figure
  expect_bad_input([&] { parse_result_document(doc, "f.json"); },
                   "f.json: /benchmarks/0/gpubench/metrics/bandwidth_gbps/median: null where a number is required");
  expect_bad_input([] { parse_result_text("{\n  \"x\": 1e999}", "h.json"); },
                   "h.json: byte 9 (line 2): number out of range: 1e999");
}

TEST(ResultFile, ImpossibleFiguresAreFailed) {
  ResultBuilder b;
  b.bench(kTriad, "bandwidth_gbps", samples(3640, 1, 10));  // 58 x a 64 GB/s PCIe link
  b.last()["gpubench"]["peak"] = 63.0;
  b.bench("transfer/peer/src:gpu0/dst:gpu1", "bandwidth_gbps", samples(7530, 1, 10));
  b.last()["gpubench"]["pct_of_peak"] = 1673.0;  // recorded as % of peak only
  b.bench("memory/stream/op:copy", "bandwidth_gbps", samples(4400, 1, 10));
  b.last()["gpubench"]["peak"] = 4800.0;  // 92 %: fine
  b.bench("launch/empty", "latency_us", samples(2, 1, 10), false);
  b.last()["gpubench"]["peak"] = 1.0;  // a time has no such ceiling
  const ResultFile r = b.parse();
  EXPECT_EQ(r.find(kTriad)->status, "failed");
  EXPECT_EQ(r.find(kTriad)->error, "exceeds the physical peak (5778 % of 63): the measurement is wrong");
  EXPECT_EQ(r.find("transfer/peer/src:gpu0/dst:gpu1")->status, "failed");
  EXPECT_TRUE(r.find("memory/stream/op:copy")->ok());
  EXPECT_TRUE(r.find("launch/empty")->ok());
}

TEST(ResultFile, ARecordedPlausibilityFactorIsTheBoundReadersApply) {
  ResultBuilder b;
  const std::string winograd = "conv/forward/layer:res3_3x3_128/type:fp32";
  b.bench(winograd, "tflops", samples(80, 1, 10));  // 133 % of a 60 TFLOP/s peak, under 9 x it
  b.last()["gpubench"]["peak"] = 60.0;
  b.last()["gpubench"]["plausibility_factor"] = 9.0;
  b.bench("conv/forward/layer:res3_1x1/type:fp32", "tflops", samples(80, 1, 10));  // a 1x1: no factor
  b.last()["gpubench"]["peak"] = 60.0;
  const ResultFile r = b.parse();
  EXPECT_TRUE(r.find(winograd)->ok());
  EXPECT_DOUBLE_EQ(r.find(winograd)->plausibility_factor, 9.0);
  EXPECT_EQ(r.find("conv/forward/layer:res3_1x1/type:fp32")->status, "failed");
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
  EXPECT_EQ(r.status, "failed");
  EXPECT_NE(r.error.find("\"verified\" is false"), std::string::npos);
}

}  // namespace
}  // namespace gpubench
