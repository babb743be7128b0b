// Telemetry as data (harness/model/telemetry.h): throughput from cumulative counters, the
// per-benchmark summary and its reasons, the trace CSV, and the samples' JSON round trip.
#include <gtest/gtest.h>

#include "harness/model/result.h"
#include "harness/model/telemetry.h"

namespace gpubench {
namespace {

TelemetrySample sample(double t, int gpu, double sm_mhz, double power_w, std::uint64_t reasons = 0) {
  TelemetrySample s;
  s.t_s = t;
  s.gpu = gpu;
  s.benchmark = "gemm/sustained/gpu:gpu" + std::to_string(gpu);
  s.reading.sm_clock_mhz = sm_mhz;
  s.reading.power_w = power_w;
  s.reading.temp_c = 40 + t;
  s.reading.clock_event_reasons = reasons;
  return s;
}

TEST(Telemetry, SummaryHasMinMedianMaxAndEveryReasonSeen) {
  std::vector<TelemetrySample> samples = {sample(0, 0, 1980, 300), sample(0.05, 0, 1755, 700, 0x4),
                                          sample(0.1, 0, 1830, 690), sample(0.1, 1, 900, 100, 0x20)};
  const auto summary = summarize_telemetry(samples, 0);
  EXPECT_EQ(summary["samples"], 3);
  EXPECT_EQ(summary["sm_clock_mhz"]["min"], 1755);
  EXPECT_EQ(summary["sm_clock_mhz"]["median"], 1830);
  EXPECT_EQ(summary["sm_clock_mhz"]["max"], 1980);
  EXPECT_EQ(summary["power_w"]["max"], 700);
  EXPECT_EQ(summary["throttle_reasons"], nlohmann::json({"sw_power_cap"}));  // not GPU 1's thermal
  EXPECT_TRUE(summary["throttled"]);
}

TEST(Telemetry, AQuantityNoSampleHadIsNullNotZero) {
  const auto summary = summarize_telemetry({sample(0, 0, 1980, 300)}, 0);
  EXPECT_TRUE(summary["gpu_util_pct"].is_null());
  EXPECT_TRUE(summary["nvlink_tx_gbps"].is_null());
  EXPECT_FALSE(summary["throttled"]);
}

TEST(Telemetry, ThroughputFromCumulativeCountersPerGpu) {
  std::vector<TelemetrySample> samples = {sample(10, 0, 1980, 300), sample(10, 1, 1980, 300),
                                          sample(10.5, 0, 1980, 300), sample(11, 0, 1980, 300)};
  samples[0].reading.pcie_tx_bytes = 1'000'000'000;
  samples[2].reading.pcie_tx_bytes = 1'000'000'000 + 25'000'000'000ull;  // 25 GB in 0.5 s
  samples[3].reading.pcie_tx_bytes = 5;                                    // a reset: no figure
  samples[0].reading.nvlink_rx_kib = 0;
  samples[2].reading.nvlink_rx_kib = 1'000'000;  // KiB
  add_throughput(samples);
  EXPECT_FALSE(samples[0].pcie_tx_gbps);
  EXPECT_FALSE(samples[1].pcie_tx_gbps);  // GPU 1's first sample: nothing before it
  ASSERT_TRUE(samples[2].pcie_tx_gbps);
  EXPECT_DOUBLE_EQ(*samples[2].pcie_tx_gbps, 50);
  EXPECT_DOUBLE_EQ(*samples[2].nvlink_rx_gbps, 1'000'000 * 1024.0 / 0.5 / 1e9);
  EXPECT_FALSE(samples[3].pcie_tx_gbps);
}

TEST(Telemetry, TraceCsvHasARowPerSampleAndEmptyCellsForUnreadable) {
  TelemetrySample odd = sample(1.5, 2, 1410, 250.5, 0x4 | 0x20);
  odd.benchmark = "x/y,\"z\"";
  odd.reading.power_w.reset();
  const std::string csv = telemetry_trace_csv({sample(1, 0, 1980, 300), odd});
  const std::string header =
      "t_s,gpu,benchmark,sm_clock_mhz,mem_clock_mhz,power_w,temp_c,gpu_util_pct,mem_util_pct,"
      "pcie_tx_gbps,pcie_rx_gbps,nvlink_tx_gbps,nvlink_rx_gbps,clock_event_reasons\n";
  EXPECT_EQ(csv, header + "1,0,gemm/sustained/gpu:gpu0,1980,,300,41,,,,,,,\n" +
                     "1.5,2,\"x/y,\"\"z\"\"\",1410,,,41.5,,,,,,,sw_power_cap|sw_thermal_slowdown\n");
}

TEST(Telemetry, SamplesRoundTripThroughJson) {
  TelemetrySample s = sample(1.25, 3, 1980, 300, 0x4);
  s.reading.pcie_rx_bytes = 123456789012ull;
  s.reading.gpu_util_pct = 99;
  const TelemetrySample back = telemetry_sample_from_json(to_json(s));
  EXPECT_EQ(back.t_s, 1.25);
  EXPECT_EQ(back.gpu, 3);
  EXPECT_EQ(back.benchmark, s.benchmark);
  EXPECT_EQ(back.reading.pcie_rx_bytes, s.reading.pcie_rx_bytes);
  EXPECT_EQ(back.reading.gpu_util_pct, 99);
  EXPECT_EQ(back.reading.clock_event_reasons, 0x4u);
  EXPECT_FALSE(back.reading.mem_util_pct);
}

TEST(Telemetry, BenchmarkTelemetryCarriesCooldownAndOtherGpus) {
  CooldownRecord cooldown{12.5, "idle", 44, 45};
  const auto t = benchmark_telemetry({sample(0, 0, 1980, 300), sample(0, 1, 1980, 300, 0x40)}, 0, "interval", 50,
                                     cooldown);
  EXPECT_EQ(t["sampling"], "interval");
  EXPECT_EQ(t["interval_ms"], 50);
  EXPECT_EQ(t["cooldown"]["waited_s"], 12.5);
  EXPECT_EQ(t["cooldown"]["stopped"], "idle");
  EXPECT_EQ(t["gpus"]["gpu1"]["samples"], 1);
  EXPECT_TRUE(t["throttled"]);  // GPU 1 of a two-GPU benchmark held its clocks down
}

TEST(Telemetry, SummaryRoundTripsThroughTheResultEntry) {
  BenchResult r;
  r.name = r.family = "gemm/sustained";
  r.suite = "gemm";
  r.status = Status::kSkipped;
  r.telemetry = benchmark_telemetry({sample(0, 0, 1980, 300, 0x4)}, 0, "before_after", 50, CooldownRecord{});
  const auto entry = to_json(r);
  const BenchResult back = read_bench_result(JsonAt(entry, "run.json"));
  EXPECT_EQ(back.telemetry, r.telemetry);
  EXPECT_TRUE(back.throttled());
  EXPECT_TRUE(back.trace.empty());  // the time series is not part of the entry
}

}  // namespace
}  // namespace gpubench
