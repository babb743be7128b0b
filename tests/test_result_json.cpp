// Benchmark results: the JSON entry (Google Benchmark's fields, flat counters, the gpubench
// object), its round trip, % of peak, and the reader's checks.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "harness/model/result.h"

namespace gpubench {
namespace {

BenchResult sample_result() {
  BenchResult r;
  r.name = "unittest/result/op:triad/n:4";
  r.suite = "unittest";
  r.family = "unittest/result";
  r.params = {{"op", "triad"}, {"n", 4}};
  r.status = Status::kOk;
  r.verified = true;
  r.repetition_index = 1;
  r.repetitions = 3;
  r.iterations = 120;
  r.ops_per_sample = 4;
  r.cpu_time_ns = 3000;
  r.primary_metric = "bandwidth_gbps";
  r.metrics["time_us"] = {"us", false, {10, 12, 11, 13, 9}};
  r.metrics["bandwidth_gbps"] = {"GB/s", true, {4000, 4100, 3900, 4050, 3950}};
  r.metrics["overlap_gain_us"] = {"us", true, {0.2, -0.1, 0, 0.3, 0.1}};
  r.metrics["overlap_gain_us"].difference = true;
  r.peak = 4800;
  r.peak_source = "HBM: 2 x 3201 MHz x 6144 bit";
  r.telemetry = {{"sm_clock_mhz", {1980, 1980}}, {"throttle_reasons", nlohmann::json::array()}, {"throttled", false}};
  r.notes = {{"batching", "graph"}, {"stopped_by", "noise_target"}};
  r.choice = {{"chosen", "algo:3"}, {"heuristic", "algo:0"}};
  return r;
}

// The sample result as a run that did not pass leaves it: no figures, not verified.
BenchResult unmeasured_result(Status status, const std::string& error) {
  BenchResult r = sample_result();
  r.status = status;
  r.error = error;
  r.verified = false;
  r.metrics.clear();
  r.cpu_time_ns.reset();
  return r;
}

BenchResult read_entry(const nlohmann::json& entry) { return read_bench_result(JsonAt(entry, "entry")); }

void expect_same(const BenchResult& a, const BenchResult& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.suite, b.suite);
  EXPECT_EQ(a.family, b.family);
  EXPECT_EQ(a.params, b.params);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.error, b.error);
  EXPECT_EQ(a.verified, b.verified);
  EXPECT_EQ(a.repetition_index, b.repetition_index);
  EXPECT_EQ(a.repetitions, b.repetitions);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.ops_per_sample, b.ops_per_sample);
  EXPECT_EQ(a.cpu_time_ns, b.cpu_time_ns);
  EXPECT_EQ(a.primary_metric, b.primary_metric);
  ASSERT_EQ(a.metrics.size(), b.metrics.size());
  for (const auto& [name, m] : a.metrics) {
    ASSERT_TRUE(b.metrics.count(name)) << name;
    EXPECT_EQ(m.unit, b.metrics.at(name).unit) << name;
    EXPECT_EQ(m.higher_is_better, b.metrics.at(name).higher_is_better) << name;
    EXPECT_EQ(m.difference, b.metrics.at(name).difference) << name;
    EXPECT_EQ(m.values, b.metrics.at(name).values) << name;
  }
  EXPECT_EQ(a.peak, b.peak);
  EXPECT_EQ(a.peak_source, b.peak_source);
  EXPECT_EQ(a.telemetry, b.telemetry);
  EXPECT_EQ(a.notes, b.notes);
  EXPECT_EQ(a.choice, b.choice);
}

TEST(ResultJson, GoogleBenchmarkFieldsArePresent) {
  const nlohmann::json entry = to_json(sample_result());
  EXPECT_EQ(entry.at("name"), "unittest/result/op:triad/n:4");
  EXPECT_EQ(entry.at("run_name"), "unittest/result/op:triad/n:4");
  EXPECT_EQ(entry.at("run_type"), "iteration");
  EXPECT_EQ(entry.at("repetitions"), 3);
  EXPECT_EQ(entry.at("repetition_index"), 1);
  EXPECT_EQ(entry.at("iterations"), 120);
  EXPECT_EQ(entry.at("time_unit"), "ns");
  // real_time: the median time of one operation, 11 us, in the time unit; cpu_time: the
  // process's measured CPU time per operation.
  EXPECT_DOUBLE_EQ(entry.at("real_time").get<double>(), 11000);
  EXPECT_DOUBLE_EQ(entry.at("cpu_time").get<double>(), 3000);
  EXPECT_FALSE(entry.contains("error_occurred"));
}

TEST(ResultJson, PrimaryMetricsAreFlatCountersAndTheGpubenchObjectIsComplete) {
  const nlohmann::json entry = to_json(sample_result());
  EXPECT_DOUBLE_EQ(entry.at("bandwidth_gbps").get<double>(), 4000);  // median
  EXPECT_DOUBLE_EQ(entry.at("time_us").get<double>(), 11);
  const auto& g = entry.at("gpubench");
  EXPECT_EQ(g.at("suite"), "unittest");
  EXPECT_EQ(g.at("family"), "unittest/result");
  EXPECT_EQ(g.at("params"), (nlohmann::json{{"op", "triad"}, {"n", 4}}));
  EXPECT_EQ(g.at("status"), "ok");
  EXPECT_EQ(g.at("error"), "");
  EXPECT_EQ(g.at("verified"), true);
  EXPECT_TRUE(g.contains("telemetry"));
  const auto& bw = g.at("metrics").at("bandwidth_gbps");
  EXPECT_EQ(bw.at("unit"), "GB/s");
  EXPECT_EQ(bw.at("better"), "higher");
  EXPECT_DOUBLE_EQ(bw.at("median").get<double>(), 4000);
  EXPECT_DOUBLE_EQ(bw.at("mean").get<double>(), 4000);
  EXPECT_DOUBLE_EQ(bw.at("min").get<double>(), 3900);
  EXPECT_DOUBLE_EQ(bw.at("max").get<double>(), 4100);
  EXPECT_NEAR(bw.at("stddev").get<double>(), 79.0569, 1e-3);
  EXPECT_NEAR(bw.at("cv_pct").get<double>(), 1.97642, 1e-4);
  EXPECT_EQ(bw.at("samples"), 5);
  EXPECT_EQ(bw.at("values"), (std::vector<double>{4000, 4100, 3900, 4050, 3950}));
  EXPECT_EQ(g.at("metrics").at("time_us").at("better"), "lower");
}

TEST(ResultJson, PctOfPeak) {
  BenchResult r = sample_result();
  ASSERT_TRUE(r.pct_of_peak().has_value());
  EXPECT_NEAR(*r.pct_of_peak(), 100.0 * 4000 / 4800, 1e-9);
  EXPECT_NEAR(to_json(r).at("gpubench").at("pct_of_peak").get<double>(), 100.0 * 4000 / 4800, 1e-9);

  r.peak.reset();
  EXPECT_FALSE(r.pct_of_peak().has_value());
  EXPECT_TRUE(to_json(r).at("gpubench").at("pct_of_peak").is_null());
  r.peak = 0;
  EXPECT_FALSE(r.pct_of_peak().has_value());
  r.peak = 4800;
  r.primary_metric = "tflops";  // no such metric measured
  EXPECT_FALSE(r.pct_of_peak().has_value());
  r.primary_metric = "bandwidth_gbps";
  r.metrics["bandwidth_gbps"].values.clear();
  EXPECT_FALSE(r.pct_of_peak().has_value());
}

TEST(ResultJson, RoundTrip) {
  const BenchResult original = sample_result();
  const nlohmann::json entry = to_json(original);
  const BenchResult back = read_entry(entry);
  expect_same(original, back);
  EXPECT_EQ(to_json(back), entry);
  // And through text, as a file on disk would carry it.
  EXPECT_EQ(to_json(read_entry(nlohmann::json::parse(entry.dump(2)))), entry);
}

TEST(ResultJson, RoundTripOfEveryStatus) {
  for (Status status : {Status::kOk, Status::kFailed, Status::kSkipped, Status::kTimeout, Status::kInterrupted}) {
    const BenchResult r = status == Status::kOk ? sample_result()
                                                : unmeasured_result(status, std::string("because ") + to_string(status));
    const BenchResult back = read_entry(to_json(r));
    EXPECT_EQ(back.status, status);
    EXPECT_EQ(back.error, r.error);
    EXPECT_EQ(status_from_string(to_string(status)), status);
  }
  EXPECT_STREQ(to_string(Status::kTimeout), "timeout");
  EXPECT_STREQ(to_string(Status::kSkipped), "skipped");
  EXPECT_STREQ(to_string(Status::kInterrupted), "interrupted");
  EXPECT_THROW(status_from_string("exploded"), std::invalid_argument);
}

TEST(ResultJson, FailedResultHasNoFigures) {
  const nlohmann::json entry = to_json(unmeasured_result(Status::kFailed, "verification failed: element 17"));
  EXPECT_EQ(entry.at("error_occurred"), true);
  EXPECT_EQ(entry.at("error_message"), "verification failed: element 17");
  EXPECT_FALSE(entry.contains("bandwidth_gbps"));
  EXPECT_FALSE(entry.contains("time_us"));
  EXPECT_TRUE(entry.at("gpubench").at("metrics").empty());
  EXPECT_TRUE(entry.at("gpubench").at("pct_of_peak").is_null());
  EXPECT_EQ(entry.at("gpubench").at("status"), "failed");
}

// Every status but ok carries Google Benchmark's skipped or error_occurred with its message, the
// zero times Google Benchmark writes for a run that did not run (its compare.py reads them for
// its geometric mean), and no time_unit, so that compare.py pairs it with nothing.
TEST(ResultJson, EveryStatusButOkIsLeftOutByGoogleBenchmarksTools) {
  for (Status status : {Status::kFailed, Status::kSkipped, Status::kTimeout, Status::kInterrupted}) {
    const nlohmann::json entry = to_json(unmeasured_result(status, std::string("because ") + to_string(status)));
    const bool skipped = status == Status::kSkipped;
    EXPECT_EQ(entry.value("skipped", false), skipped) << to_string(status);
    EXPECT_EQ(entry.value("error_occurred", false), !skipped) << to_string(status);
    EXPECT_EQ(entry.at(skipped ? "skip_message" : "error_message"), std::string("because ") + to_string(status));
    EXPECT_FALSE(entry.contains(skipped ? "error_message" : "skip_message"));
    EXPECT_EQ(entry.at("real_time"), 0);
    EXPECT_EQ(entry.at("cpu_time"), 0);
    EXPECT_FALSE(entry.contains("time_unit")) << to_string(status);
    for (const char* key : {"name", "run_name", "run_type", "iterations"}) EXPECT_TRUE(entry.contains(key)) << key;
  }
}

TEST(ResultJson, CpuTimeIsReadBackAndAFileWithoutItStillLoads) {
  nlohmann::json entry = to_json(sample_result());
  entry["cpu_time"] = 2.5;
  entry["time_unit"] = "us";  // another writer's unit
  EXPECT_DOUBLE_EQ(*read_entry(entry).cpu_time_ns, 2500);
  entry.erase("cpu_time");  // a file from before it was measured, or a hand-made one
  const BenchResult old = read_entry(entry);
  EXPECT_FALSE(old.cpu_time_ns.has_value());
  EXPECT_FALSE(to_json(old).contains("cpu_time"));  // never made up from real_time
  entry["cpu_time"] = 1;
  entry["time_unit"] = "fortnights";
  EXPECT_THROW(read_entry(entry), UsageError);
  // A file that did not pass states no CPU time, whatever the entry says.
  nlohmann::json failed = to_json(unmeasured_result(Status::kFailed, "no"));
  failed["cpu_time"] = 5;
  EXPECT_FALSE(read_entry(failed).cpu_time_ns.has_value());
}

TEST(ResultJson, ThrottledComesFromTelemetry) {
  BenchResult r = sample_result();
  EXPECT_FALSE(r.throttled());
  r.telemetry["throttled"] = true;
  EXPECT_TRUE(r.throttled());
  EXPECT_TRUE(read_entry(to_json(r)).throttled());
  r.telemetry = {{"available", false}};
  EXPECT_FALSE(r.throttled());
}

TEST(ResultJson, EntryWithoutGpubenchObjectIsRejected) {
  try {
    read_entry({{"name", "x"}, {"real_time", 1}});
    FAIL() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.code, kExitBadInput);
    EXPECT_EQ(e.message, "entry: /: missing required field \"gpubench\"");
  }
}

TEST(ResultJson, SkippedIsGoogleBenchmarksSkipNotAnError) {
  const nlohmann::json entry = to_json(unmeasured_result(Status::kSkipped, "needs 2 GPUs (1 selected)"));
  EXPECT_EQ(entry.at("skipped"), true);
  EXPECT_EQ(entry.at("skip_message"), "needs 2 GPUs (1 selected)");
  EXPECT_FALSE(entry.contains("error_occurred"));
  EXPECT_FALSE(entry.contains("error_message"));
  EXPECT_FALSE(to_json(sample_result()).contains("skipped"));
}

TEST(ResultJson, RealTimeIsThePrimaryMetricWhereItIsATime) {
  BenchResult r = sample_result();
  r.primary_metric = "latency_ns";
  r.metrics["latency_ns"] = {"ns", false, {700, 710, 690}};
  EXPECT_DOUBLE_EQ(to_json(r).at("real_time").get<double>(), 700);
  r.metrics.erase("time_us");
  r.primary_metric = "bandwidth_gbps";  // not a time, and no time_us: unknown
  EXPECT_DOUBLE_EQ(to_json(r).at("real_time").get<double>(), 0);
}

TEST(ResultJson, NonFiniteNumbersAreNullWithTheReasonInError) {
  BenchResult r = sample_result();
  r.metrics["bandwidth_gbps"].values[2] = std::numeric_limits<double>::quiet_NaN();
  r.peak = std::numeric_limits<double>::infinity();
  const nlohmann::json entry = to_json(r);
  const auto& g = entry.at("gpubench");
  EXPECT_TRUE(g.at("metrics").at("bandwidth_gbps").at("values")[2].is_null());
  EXPECT_TRUE(g.at("peak").is_null());
  const std::string error = g.at("error");
  EXPECT_NE(error.find("non-finite numbers written as null"), std::string::npos) << error;
  EXPECT_NE(error.find("bandwidth_gbps values"), std::string::npos) << error;
  EXPECT_NE(error.find("peak"), std::string::npos) << error;
  // What is written parses as JSON, and reads back with the sample not a number.
  const BenchResult back = read_entry(nlohmann::json::parse(entry.dump()));
  EXPECT_TRUE(std::isnan(back.metrics.at("bandwidth_gbps").values[2]));
}

TEST(ResultJson, ReaderNamesThePlaceOfAMistypedField) {
  nlohmann::json entry = to_json(sample_result());
  entry["gpubench"]["metrics"]["time_us"]["values"][1] = "12";
  try {
    read_entry(entry);
    FAIL() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.message, "entry: /gpubench/metrics/time_us/values/1: expected a number, found a string");
  }
}

}  // namespace
}  // namespace gpubench
