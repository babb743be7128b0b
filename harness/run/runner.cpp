#include "harness/run/runner.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "harness/core/cuda_check.h"
#include "harness/core/resource.h"
#include "harness/system/capture.h"

namespace gpubench {
namespace {

// Samples NVML every 50 ms while a benchmark runs, so throttling in the middle of it is seen,
// not only what the clocks read before and after. `polling` false (Family::quiet_host): before
// and after only, so that no NVML call runs beside a host-sensitive measurement.
class TelemetryMonitor {
 public:
  TelemetryMonitor(int device, bool polling) : device_(device), before_(read_telemetry(device)) {
    if (before_ && polling) thread_ = std::thread([this] { poll(); });
  }
  ~TelemetryMonitor() { stop(); }

  nlohmann::json finish() {
    stop();
    if (!before_) return {{"available", false}};
    const auto after = read_telemetry(device_);
    const Telemetry last = after ? *after : *before_;
    const std::uint64_t mask = mask_ | before_->throttle_mask | last.throttle_mask;
    return {{"sm_clock_mhz", {before_->sm_clock_mhz, last.sm_clock_mhz}},
            {"mem_clock_mhz", {before_->mem_clock_mhz, last.mem_clock_mhz}},
            {"power_w", {before_->power_w, last.power_w}},
            {"power_w_max", std::max(power_max_.load(), last.power_w)},
            {"temp_c", {before_->temp_c, last.temp_c}},
            {"throttle_reasons", throttle_reason_names(mask)},
            {"throttled", is_throttled(mask)}};
  }

 private:
  void poll() {
    while (!done_) {
      if (auto t = read_telemetry(device_)) {
        mask_ |= t->throttle_mask;
        if (t->power_w > power_max_) power_max_ = t->power_w;
      }
      for (int i = 0; i < 10 && !done_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  void stop() {
    done_ = true;
    if (thread_.joinable()) thread_.join();
  }

  int device_;
  std::optional<Telemetry> before_;
  std::atomic<bool> done_{false};
  std::atomic<std::uint64_t> mask_{0};
  std::atomic<double> power_max_{0};
  std::thread thread_;
};

// Sticky errors leave the context unusable; anything after them in this process would fail.
bool is_sticky(cudaError_t code) {
  switch (code) {
    case cudaErrorMemoryAllocation:
    case cudaErrorInvalidValue:
    case cudaErrorInvalidConfiguration:
    case cudaErrorInvalidDevice:
    case cudaErrorNotSupported:
    case cudaErrorPeerAccessUnsupported:
    case cudaErrorPeerAccessAlreadyEnabled:
    case cudaErrorPeerAccessNotEnabled:
      return false;
    default:
      return true;
  }
}

InProcessEnd run_each(const std::vector<const Instance*>& instances, const RunSettings& settings,
                      const Context& context, ResultSink& sink, const std::function<bool()>& stop_requested) {
  for (const Instance* instance : instances) {
    for (int repetition = 0; repetition < settings.repetitions; ++repetition) {
      if (stop_requested()) return InProcessEnd::kStopped;
      sink.started(instance->name, repetition);
      bool poisoned = false;
      sink.finished(run_instance(*instance, settings, context, repetition, poisoned));
      if (poisoned) return InProcessEnd::kPoisoned;
    }
  }
  return InProcessEnd::kCompleted;
}

}  // namespace

BenchResult unrun_result(const Instance& instance, Status status, const std::string& reason,
                         int repetition, int repetitions) {
  BenchResult result;
  result.name = instance.name;
  result.family = instance.family->name();
  result.suite = instance.family->suite();
  result.params = instance.params.to_json();
  result.status = status;
  result.error = reason;
  result.repetition_index = repetition;
  result.repetitions = repetitions;
  return result;
}

RunSettings settings_for(const Instance& instance, const RunSettings& settings) {
  RunSettings own = settings;
  const FamilySettings& family = instance.family->settings();
  if (family.timeout_s) own.timeout_s = *family.timeout_s;
  if (family.max_time_s) own.stop.max_time_s = *family.max_time_s;
  if (family.min_samples) own.stop.min_samples = *family.min_samples;
  if (family.tune_settle_s) own.tune_settle_s = *family.tune_settle_s;
  return own;
}

BenchResult run_instance(const Instance& instance, const RunSettings& run_settings, const Context& context,
                         int repetition, bool& poisoned) {
  const RunSettings settings = settings_for(instance, run_settings);
  poisoned = false;
  if (!instance.skip_reason.empty())
    return unrun_result(instance, Status::kSkipped, instance.skip_reason, repetition, settings.repetitions);
  BenchResult result;
  std::optional<TelemetryMonitor> monitor;
  try {
    if (instance.family->needs_gpu()) {
      GPUBENCH_CUDA(cudaSetDevice(instance.device));
      monitor.emplace(instance.device, !instance.family->is_quiet_host());
    }
    State state(instance, settings, context);
    instance.family->body()(state);
    if (instance.family->needs_gpu()) GPUBENCH_CUDA(cudaDeviceSynchronize());
    result = state.finish();
  } catch (const SkipSignal& skip) {
    result = unrun_result(instance, Status::kSkipped, skip.reason);
  } catch (const CudaError& error) {
    result = unrun_result(instance, Status::kFailed, error.what());
    poisoned = is_sticky(error.code) || cudaDeviceSynchronize() != cudaSuccess;
  } catch (const std::exception& error) {
    result = unrun_result(instance, Status::kFailed, error.what());
  }
  if (monitor) result.telemetry = monitor->finish();
  result.repetition_index = repetition;
  result.repetitions = settings.repetitions;
  return result;
}

InProcessEnd run_in_process(const std::vector<const Instance*>& instances, const RunSettings& settings,
                            const Context& context, ResultSink& sink, const std::function<bool()>& stop_requested) {
  const InProcessEnd end = run_each(instances, settings, context, sink, stop_requested);
  destroy_worker_resources();
  return end;
}

}  // namespace gpubench

