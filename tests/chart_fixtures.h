#pragma once
// Small runs for the chart and HTML report tests, built with ResultBuilder: a few figures of
// each suite the charts read, with failed and skipped results beside them.
#include <string>

#include "harness/report/chart_data.h"
#include "tests/result_builder.h"

namespace gpubench::testing {

// A run as the report reads it: the document and its merged figures, kept together.
struct ChartRunFixture {
  RunDocument document;
  ResultFile figures;
  ChartRunFixture(const nlohmann::json& doc, const std::string& label)
      : document(read_run_document(doc, label)), figures(result_file_of(document, label)) {}
  ChartRun view() const { return {&figures, &document}; }
};

inline void add_h2d(ResultBuilder& b, const std::string& engine, double scale) {
  for (long long bytes : {4096LL, 1048576LL, 268435456LL})
    b.bench("transfer/host_device/host:pinned/dir:h2d/engine:" + engine + "/numa:local/bytes:" +
                std::to_string(bytes) + "/gpu:gpu0",
            "bandwidth_gbps", samples(scale * (bytes == 4096 ? 2 : bytes == 1048576 ? 40 : 55), 1, 5));
}

// The sustained GEMM with its slices in notes.series, as benches/gemm writes them.
inline void add_sustained(ResultBuilder& b) {
  b.bench("gemm/sustained/type:bf16/m:8192/n:8192/k:8192/layout:tn/seconds:10/gpu:gpu0", "tflops",
          samples(734, 0.1, 5));
  b.last()["gpubench"]["notes"]["series"] = {
      {{"t_s", 1.1}, {"sm_clock_mhz", 1560}, {"power_w", 698.4}, {"tflops", 735.8}},
      {{"t_s", 2.2}, {"sm_clock_mhz", 1635}, {"power_w", 693.6}, {"tflops", 731.6}},
      {{"t_s", 3.3}, {"sm_clock_mhz", 1650}, {"power_w", 693.5}, {"tflops", 733.5}}};
}

// One GPU: host-to-device at three sizes on two engines (one size failed on sm), a skipped peer
// benchmark, GEMM in bf16 (two shapes) and fp8 (failed), and the sustained GEMM.
inline ResultBuilder small_run() {
  ResultBuilder b(1);
  add_h2d(b, "ce", 1.0);
  add_h2d(b, "sm", 0.9);
  b.status_of_last("failed", "verification failed: element 7");
  b.bench("transfer/peer", "bandwidth_gbps", {}).status_of_last("skipped", "needs 2 GPUs (1 selected)");
  b.bench("gemm/matmul/type:bf16/m:8192/n:8192/k:8192/layout:tn/algo:best/gpu:gpu0", "tflops", samples(850, 1, 5));
  b.last()["gpubench"]["peak"] = 989.4;
  b.bench("gemm/matmul/type:bf16/m:4096/n:4096/k:4096/layout:tn/algo:best/gpu:gpu0", "tflops", samples(700, 1, 5));
  b.last()["gpubench"]["peak"] = 989.4;
  b.bench("gemm/matmul/type:fp8_e4m3/m:8192/n:8192/k:8192/layout:tn/algo:best/gpu:gpu0", "tflops", {})
      .status_of_last("failed", "every tuning candidate failed");
  add_sustained(b);
  return b;
}

inline const Chart* find_chart(const std::vector<ReportChart>& charts, const std::string& id) {
  for (const ReportChart& c : charts)
    if (c.chart.id == id) return &c.chart;
  return nullptr;
}

}  // namespace gpubench::testing
