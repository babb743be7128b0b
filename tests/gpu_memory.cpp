// GPU tests (ctest label `gpu`): the memory suite in --quick mode measures and verifies every
// configuration, and the GPU fault families show that a spinning kernel and an out-of-bounds
// write are contained in their worker while the run continues in a fresh one.
// Without a GPU every test here skips.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace gpubench {
namespace {

using gpubench::testing::CommandResult;
using gpubench::testing::describe;
using gpubench::testing::read_file;
using gpubench::testing::run_gpubench;
using gpubench::testing::temp_dir;
using gpubench::testing::write_file;
using json = nlohmann::json;

json load(const std::string& path) {
  const json doc = json::parse(read_file(path), nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << path << " is not JSON";
  return doc;
}

TEST(GpuMemory, QuickSuiteMeasuresAndVerifiesEverything) {
  GPUBENCH_REQUIRE_GPU();
  const std::string path = temp_dir() + "/memory.json";
  const CommandResult r = run_gpubench("--suite memory --quick --out " + path);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const json doc = load(path);
  const auto& g = doc.at("context").at("gpubench");
  EXPECT_EQ(g.at("schema"), "gpubench/1");
  ASSERT_FALSE(g.at("gpus").empty());
  EXPECT_GT(g.at("gpus")[0].at("memory_bytes").get<double>(), 0);

  const auto& benchmarks = doc.at("benchmarks");
  ASSERT_FALSE(benchmarks.empty());
  int stream = 0, triad = 0, latency = 0;
  for (const auto& b : benchmarks) {
    const std::string name = b.at("name");
    const auto& gb = b.at("gpubench");
    EXPECT_EQ(gb.at("status"), "ok") << name << ": " << gb.value("error", "");
    EXPECT_EQ(gb.at("verified"), true) << name;
    const std::string primary = gb.at("primary_metric");
    ASSERT_TRUE(gb.at("metrics").contains(primary)) << name;
    EXPECT_GT(gb.at("metrics").at(primary).at("median").get<double>(), 0) << name;
    EXPECT_GT(b.at("real_time").get<double>(), 0) << name;
    EXPECT_EQ(b.at("time_unit"), "ns");
    if (gb.at("family") == "memory/stream") {
      ++stream;
      EXPECT_EQ(primary, "bandwidth_gbps") << name;
      EXPECT_GT(b.at("bandwidth_gbps").get<double>(), 0) << name;  // the flat counter too
    }
    if (gb.at("family") == "memory/latency") ++latency;
    if (name.rfind("memory/stream/op:triad/", 0) == 0) {
      ++triad;
      const double gbps = gb.at("metrics").at("bandwidth_gbps").at("median");
      EXPECT_GT(gbps, 0) << name;
      // Far from a plausible figure means miscounted bytes or a broken timer, not a slow GPU.
      EXPECT_LT(gbps, 1e5) << name;
      if (gb.at("pct_of_peak").is_number() && name.find("array_bytes:268435456/") != std::string::npos)
        EXPECT_LT(gb.at("pct_of_peak").get<double>(), 100) << name << ": faster than the HBM peak";
    }
  }
  EXPECT_GT(stream, 0);
  EXPECT_GT(triad, 0);
  EXPECT_GT(latency, 0) << "no memory/latency results";
}

TEST(GpuMemory, FaultsAreContainedAndTheRunContinuesInAFreshWorker) {
  GPUBENCH_REQUIRE_GPU();
  const std::string path = temp_dir() + "/gpu_faults.json";
  const CommandResult r =
      run_gpubench("--suite selftest --filter 'gpu_faults' --devices 0 --timeout 10 --out " + path);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  const json doc = load(path);
  const auto& benchmarks = doc.at("benchmarks");
  ASSERT_EQ(benchmarks.size(), 4u) << doc.dump(2);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"selftest/gpu_faults/fault:none", "ok"}, {"selftest/gpu_faults/fault:spin", "timeout"},
      {"selftest/gpu_faults/fault:oob_write", "failed"}, {"selftest/gpu_faults/fault:none_after", "ok"}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(benchmarks[i].at("name"), expected[i].first);
    EXPECT_EQ(benchmarks[i].at("gpubench").at("status"), expected[i].second) << benchmarks[i].dump(2);
  }
  const std::string oob_error = benchmarks[2].at("gpubench").at("error");
  EXPECT_TRUE(oob_error.find("cudaErrorIllegalAddress") != std::string::npos ||
              oob_error.find("illegal memory access") != std::string::npos)
      << oob_error;
  EXPECT_NE(benchmarks[1].at("gpubench").at("error").get<std::string>().find("10 s"), std::string::npos);
  // The healthy case after both faults ran on a clean context: measured and verified.
  const auto& after = benchmarks[3].at("gpubench");
  EXPECT_EQ(after.at("verified"), true);
  EXPECT_FALSE(after.at("metrics").at("time_us").at("values").empty());
}

TEST(GpuMemory, SizeThatDoesNotFitIsSkippedWithTheReason) {
  GPUBENCH_REQUIRE_GPU();
  const std::string dir = temp_dir();
  // Three arrays of 1 TiB each: no GPU has that memory. A skip, not a failure: exit 0.
  write_file(dir + "/huge.json",
             R"({"families": {"memory/stream": {"op": ["triad"], "type": ["fp32"], "array_bytes": [1099511627776]}}})");
  const CommandResult r = run_gpubench("--suite memory --filter 'memory/stream' --devices 0 --config " + dir +
                                       "/huge.json --out " + dir + "/huge-run.json");
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  const json doc = load(dir + "/huge-run.json");
  ASSERT_EQ(doc.at("benchmarks").size(), 1u) << doc.dump(2);
  const auto& b = doc.at("benchmarks")[0];
  EXPECT_EQ(b.at("name"), "memory/stream/op:triad/type:fp32/array_bytes:1099511627776/gpu:gpu0");
  EXPECT_EQ(b.at("gpubench").at("status"), "skipped");
  EXPECT_NE(b.at("gpubench").at("error").get<std::string>().find("does not fit in device memory"), std::string::npos)
      << b.dump(2);
  EXPECT_TRUE(b.at("gpubench").at("metrics").empty());
}

}  // namespace
}  // namespace gpubench
