// gemm/sustained: a large BF16 GEMM back to back for a set time, second by second, with the
// clocks, power and throttle reasons beside each second: a GPU that cannot hold its rate under
// load shows it here.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "benches/gemm/gemm_case.h"
#include "harness/core/gpubench.h"
#include "harness/core/host_clock.h"
#include "harness/core/timing_events.h"

namespace {

using gpubench::gemm::PreparedGemm;

// The load is measured as this many windows (the run's minimum samples), each of seconds / 10,
// each timed in slices of at most kMaxSliceS.
constexpr int kWindows = 10;
constexpr double kMaxSliceS = 1.0;

// A slice's figure and the telemetry the harness's sampler read at its end (none where the run
// samples no telemetry).
gpubench::TimeSlice slice_of_load(gpubench::State& s, double at_s, double tflops) {
  gpubench::TimeSlice slice;
  slice.t_s = at_s;
  slice.values["tflops"] = tflops;
  const std::optional<gpubench::TelemetryReading> t = s.telemetry_now();
  if (!t) return slice;
  for (const auto& [key, value] : {std::pair{"sm_clock_mhz", t->sm_clock_mhz}, {"power_w", t->power_w}, {"temp_c", t->temp_c}})
    if (value) slice.values[key] = *value;
  if (t->clock_event_reasons) {
    slice.throttle_reasons = gpubench::throttle_reason_names(*t->clock_event_reasons);
    slice.throttled = gpubench::is_throttled(*t->clock_event_reasons);
  }
  return slice;
}

void run_sustained(gpubench::State& s) {
  const gpubench::gemm::GemmSpec spec = gpubench::gemm::spec_of(s.params());
  const double seconds = static_cast<double>(s.get_int("seconds"));
  if (seconds <= 0) s.fail("seconds must be positive");
  PreparedGemm gemm(s, spec, 1);
  cudaStream_t stream = s.stream();
  gpubench::TimingEvents events;
  const double window_s = seconds / kWindows;
  const int slices = std::max(1, static_cast<int>(std::ceil(window_s / kMaxSliceS)));
  const double flops = gpubench::gemm::gemm_flops(spec.shape);

  s.count_flops(flops);
  s.set_primary_metric("tflops");
  gpubench::gemm::set_tflops_peak(s, *spec.precision);
  s.declare_metric("sustained_ratio", "ratio", true);
  double first_window_tflops = 0, last_ratio = 0;
  int throttled_seconds = 0;
  gpubench::BatchRule window;
  window.target_s = window_s;
  window.max_ops = std::numeric_limits<int>::max();
  window.probes = 3;
  const double start = gpubench::host_now_s();
  s.measure_batched(
      [&](int gemms) {
        // The harness's probes are single GEMMs, not windows of load: neither slices nor the first window.
        if (gemms == 1) return events.time(stream, [&] { gemm.run(0, stream); });
        double elapsed = 0;
        for (int slice = 0; slice < slices; ++slice) {
          const int in_slice = static_cast<int>(std::int64_t{gemms} * (slice + 1) / slices -
                                                std::int64_t{gemms} * slice / slices);
          const double t = events.time(stream, [&] {
            for (int i = 0; i < in_slice; ++i) gemm.run(0, stream);
          });
          elapsed += t;
          gpubench::TimeSlice reading = slice_of_load(s, gpubench::host_now_s() - start, in_slice * flops / t / 1e12);
          throttled_seconds += reading.throttled.value_or(false) ? 1 : 0;
          s.record_slice(std::move(reading));
        }
        const double tflops = gemms * flops / elapsed / 1e12;
        if (first_window_tflops == 0) first_window_tflops = tflops;
        last_ratio = tflops / first_window_tflops;
        s.record("sustained_ratio", last_ratio);
        return elapsed;
      },
      window);
  s.note("sustained_ratio_last", last_ratio);
  s.note("throttled_slices", throttled_seconds);
  s.note("window_s", window_s);
  s.note("slices_per_window", slices);
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
                  "the sweep, 1 under --quick, 60 in configs/acceptance/h200.json), as 10 windows of seconds/10 "
                  "after the harness's warm-up windows. tflops per window counts 2 m n k per GEMM. notes.series "
                  "has each slice of at most a second of the whole load (warm-up included): its TFLOP/s, SM "
                  "clock, power, temperature and throttle reasons (NVML, read by the run's telemetry sampler). sustained_ratio is each window's "
                  "TFLOP/s over the load's first window; notes.sustained_ratio_last the end against the start. "
                  "Verified as gemm/matmul, to a relative " +
                  std::to_string(gpubench::gemm::find_precision("bf16").tolerance) + ".")
        .axis_str("type", {"bf16"})
        .axis_int("m", {8192})
        .axis_int("n", {8192})
        .axis_int("k", {8192})
        .axis_str("layout", {"tn"})
        .axis_int("seconds", {10}, {1})
        .per_device()
        .needs_library("cublasLt")
        .settings(sustained_settings())
        .known_length([](const gpubench::Params& p) { return static_cast<double>(p.integer("seconds")); })
        .where(gpubench::gemm::options_valid)
        .run(run_sustained);

}  // namespace
