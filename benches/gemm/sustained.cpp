// gemm/sustained: a large BF16 GEMM back to back for a set time, second by second, with the
// clocks, power and throttle reasons beside each second: a GPU that cannot hold its rate under
// load shows it here.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "benches/gemm/gemm_case.h"
#include "harness/core/gpubench.h"
#include "harness/core/timing_events.h"
#include "harness/system/gpu_probe.h"

namespace {

using gpubench::gemm::PreparedGemm;

// The load is measured as this many windows (the run's minimum samples), each of seconds / 10,
// each timed in slices of at most a second.
constexpr int kWindows = 10;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

nlohmann::json second_of_load(double at_s, double tflops, int device) {
  nlohmann::json entry = {{"t_s", at_s}, {"tflops", tflops}};
  const gpubench::TelemetryReading t = gpubench::nvml_probe().read(device);
  for (const auto& [key, value] : {std::pair{"sm_clock_mhz", t.sm_clock_mhz}, {"power_w", t.power_w}, {"temp_c", t.temp_c}})
    if (value) entry[key] = *value;
  if (t.clock_event_reasons) {
    entry["throttle_reasons"] = gpubench::throttle_reason_names(*t.clock_event_reasons);
    entry["throttled"] = gpubench::is_throttled(*t.clock_event_reasons);
  }
  return entry;
}

void run_sustained(gpubench::State& s) {
  const gpubench::gemm::GemmSpec spec = gpubench::gemm::spec_of(s.params());
  const double seconds = static_cast<double>(s.get_int("seconds"));
  if (seconds <= 0) s.fail("seconds must be positive");
  PreparedGemm gemm(s, spec, 1);
  cudaStream_t stream = s.stream();
  gpubench::TimingEvents events;
  double gemm_s = 0;
  for (int i = 0; i < 3; ++i) gemm_s = events.time(stream, [&] { gemm.run(0, stream); });
  const double window_s = seconds / kWindows;
  const int per_slice = std::max(1, static_cast<int>(std::min(1.0, window_s) / gemm_s));
  const int slices = std::max(1, static_cast<int>(std::lround(window_s / (per_slice * gemm_s))));
  const double flops = gpubench::gemm::gemm_flops(spec.shape);

  s.count_flops(flops);
  s.set_primary_metric("tflops");
  gpubench::gemm::set_tflops_peak(s, *spec.precision);
  s.declare_metric("sustained_ratio", "ratio", true);
  nlohmann::json series = nlohmann::json::array();
  double first_window_tflops = 0, last_ratio = 0;
  int throttled_seconds = 0;
  const auto start = std::chrono::steady_clock::now();
  s.measure_manual(
      [&] {
        double window = 0;
        for (int slice = 0; slice < slices; ++slice) {
          const double t = events.time(stream, [&] {
            for (int i = 0; i < per_slice; ++i) gemm.run(0, stream);
          });
          window += t;
          series.push_back(second_of_load(seconds_since(start), per_slice * flops / t / 1e12, s.device()));
          throttled_seconds += series.back().value("throttled", false) ? 1 : 0;
        }
        const double tflops = slices * per_slice * flops / window / 1e12;
        if (first_window_tflops == 0) first_window_tflops = tflops;
        last_ratio = tflops / first_window_tflops;
        s.record("sustained_ratio", last_ratio);
        return window;
      },
      slices * per_slice);
  s.note("series", series);
  s.note("sustained_ratio_last", last_ratio);
  s.note("throttled_slices", throttled_seconds);
  s.note("window_s", window_s);
  s.note("gemms_per_slice", per_slice);
  gemm.verify(s);
}

gpubench::FamilySettings sustained_settings() {
  gpubench::FamilySettings settings;
  settings.min_samples = kWindows;
  settings.timeout_s = 600;  // the acceptance preset's 60 s of load, and its warm-up
  return settings;
}

const auto& sustained_family =
    gpubench::family("gemm/sustained")
        .describe("One cuBLASLt GEMM (bf16, 8192 cubed, tn, heuristic pick) back to back for `seconds` (10 in "
                  "the sweep, 2 under --quick, 60 in configs/acceptance/h200.json), as 10 windows of seconds/10 "
                  "after the harness's warm-up windows. tflops per window counts 2 m n k per GEMM. notes.series "
                  "has each slice of at most a second of the whole load (warm-up included): its TFLOP/s, SM "
                  "clock, power, temperature and throttle reasons (NVML). sustained_ratio is each window's "
                  "TFLOP/s over the load's first window; notes.sustained_ratio_last the end against the start. "
                  "Verified as gemm/matmul, to a relative " +
                  std::to_string(gpubench::gemm::find_precision("bf16").tolerance) + ".")
        .axis_str("type", {"bf16"})
        .axis_int("m", {8192})
        .axis_int("n", {8192})
        .axis_int("k", {8192})
        .axis_str("layout", {"tn"})
        .axis_int("seconds", {10}, {2})
        .per_device()
        .needs_library("cublasLt")
        .settings(sustained_settings())
        .where(gpubench::gemm::options_valid)
        .run(run_sustained);

}  // namespace
