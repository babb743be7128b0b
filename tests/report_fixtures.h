#pragma once
// A fixed run for the report tests: one H200 context and results of every kind (ok with a
// peak, throttled, failed, timed out, skipped), and a way to render a document through a
// reporter as the runner would drive it.
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "harness/report/reporter.h"
#include "harness/model/run_document.h"
#include "tests/test_support.h"

namespace gpubench::testing {

inline Context one_gpu_context() {
  Context c;
  c.driver_version = "570.86.15";
  c.cuda_driver = "12.8";
  c.cuda_runtime = "12.8";
  c.cublas = "12.8.3";
  c.cudnn = "9.7.0";
  c.nccl = "2.25.1";
  c.nvml_available = true;
  GpuInfo g = h200_gpu_info(0);
  g.uuid = "GPU-1234";
  g.pci_bus_id = "00000000:1B:00.0";
  c.gpus.push_back(g);
  c.links = {{GpuLink{"X", 0, false}}};
  return c;
}

inline BenchResult ok_result(const std::string& name, double gbps, double peak = 0) {
  BenchResult r;
  r.name = name;
  r.suite = name.substr(0, name.find('/'));
  r.family = name.substr(0, name.find('/', name.find('/') + 1));
  r.status = Status::kOk;
  r.verified = true;
  r.primary_metric = "bandwidth_gbps";
  r.metrics["time_us"] = {"us", false, {10, 10, 10}};
  r.metrics["bandwidth_gbps"] = {"GB/s", true, {gbps * 0.99, gbps, gbps * 1.01}};
  r.cpu_time_ns = 2000;
  if (peak > 0) r.peak = peak;
  r.telemetry = {{"throttle_reasons", nlohmann::json::array()}, {"throttled", false}};
  return r;
}

inline BenchResult bad_result(const std::string& name, Status status, const std::string& error) {
  BenchResult r;
  r.name = name;
  r.suite = name.substr(0, name.find('/'));
  r.family = name.substr(0, name.find('/', name.find('/') + 1));
  r.status = status;
  r.error = error;
  return r;
}

// Four rows: ok with a peak, ok but throttled, failed, timed out, skipped.
inline std::vector<BenchResult> mixed_results() {
  std::vector<BenchResult> results;
  results.push_back(ok_result("memory/stream/op:triad/array_bytes:1073741824/gpu:gpu0", 4000, 4800));
  BenchResult throttled = ok_result("memory/stream/op:dot/array_bytes:1073741824/gpu:gpu0", 3000);
  throttled.telemetry = {{"throttle_reasons", {"sw_power_cap"}}, {"throttled", true}};
  results.push_back(throttled);
  results.push_back(bad_result("memory/stream/op:copy/array_bytes:1073741824/gpu:gpu0", Status::kFailed,
                               "verification failed: element 3, expected 1"));
  results.push_back(bad_result("selftest/cpu_faults/fault:hang", Status::kTimeout, "no result within 2 s"));
  results.push_back(bad_result("transfer/p2p", Status::kSkipped, "needs 2 GPUs (1 selected)"));
  return results;
}

// A document as the runner leaves it: this host, this build, the results in run order.
inline RunDocument document_of(const Context& context, const std::vector<BenchResult>& results,
                               const std::string& command_line) {
  RunDocument doc = start_run_document(context, command_line);
  doc.results = results;
  doc.complete = true;
  return doc;
}

// What `reporter` prints when the runner streams `doc` through it.
inline void render_with(Reporter& reporter, const RunDocument& doc) {
  RunDocument start = doc;
  start.results.clear();
  start.complete = false;
  reporter.context(start);
  for (const BenchResult& r : doc.results) reporter.result(r);
  reporter.finish(doc);
}

inline std::string render(const RunDocument& doc, Format format) {
  std::ostringstream out;
  render_with(*make_reporter(format, out), doc);
  return out.str();
}

// `text` must equal tests/golden/`file` byte for byte; GPUBENCH_UPDATE_GOLDEN=1 rewrites the file.
inline void expect_golden(const std::string& text, const std::string& file) {
  const std::string path = std::string(GPUBENCH_SOURCE_DIR) + "/tests/golden/" + file;
  const char* update = std::getenv("GPUBENCH_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    testing::write_file(path, text);
    GTEST_SKIP() << "rewrote " << path;
  }
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing; GPUBENCH_UPDATE_GOLDEN=1 writes it";
  EXPECT_EQ(text, read_file(path)) << "differs from " << path << " (GPUBENCH_UPDATE_GOLDEN=1 rewrites it)";
}

}  // namespace gpubench::testing
