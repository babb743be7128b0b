#include "harness/run/runner.h"

#include <algorithm>
#include <thread>

#include "harness/core/cuda_check.h"
#include "harness/core/resource.h"
#include "harness/core/node_barrier.h"
#include "harness/model/node_figures.h"
#include "harness/run/cooldown.h"
#include "harness/run/node_plan.h"
#include "harness/run/telemetry_sampler.h"
#include "harness/system/gpu_probe.h"

namespace gpubench {
namespace {

// The GPUs a benchmark's telemetry covers: its own, or every selected one for a family that
// spans several (peer transfers, collectives).
std::vector<int> sampled_devices(const Instance& instance, const RunSettings& settings) {
  if (instance.family->min_gpus() > 1) return settings.devices;
  return {instance.device};
}

TelemetrySampler::Mode sampling_mode(const Instance& instance, const RunSettings& settings) {
  if (settings.telemetry.interval_ms <= 0) return TelemetrySampler::Mode::kOff;
  // Family::quiet_host: no NVML call beside a host-sensitive measurement.
  return instance.family->is_quiet_host() ? TelemetrySampler::Mode::kBeforeAfter : TelemetrySampler::Mode::kInterval;
}

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
  for (const auto& group : node_groups(instances)) {
    const int repetitions = settings.repetitions_of(group.front()->family->name());
    for (int repetition = 0; repetition < repetitions; ++repetition) {
      if (stop_requested()) return InProcessEnd::kStopped;
      for (const Instance* instance : group) sink.started(instance->name, repetition);
      bool poisoned = false;
      if (group.size() == 1 && !is_node_instance(*group.front()))
        sink.finished(run_instance(*group.front(), settings, context, repetition, poisoned));
      else
        for (const BenchResult& result : run_node_group(group, settings, context, repetition, poisoned))
          sink.finished(result);
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
  // --quick keeps its shorter limit where a family would sample longer.
  if (family.max_time_s)
    own.stop.max_time_s = settings.quick ? std::min(own.stop.max_time_s, *family.max_time_s) : *family.max_time_s;
  if (family.min_samples) own.stop.min_samples = *family.min_samples;
  if (family.batch_below_s) own.batch_below_s = *family.batch_below_s;
  if (family.batch_target_s) own.batch_target_s = *family.batch_target_s;
  if (!settings.quick) {  // a smoke run checks that a benchmark works, not the rate its GPU holds
    if (family.settle_s) own.settle_s = *family.settle_s;
    if (family.rest_s) own.rest_s = *family.rest_s;
    if (family.min_time_s) own.stop.min_time_s = std::max(own.stop.min_time_s, *family.min_time_s);
    if (family.max_halves_apart_pct) own.stop.max_halves_apart_pct = *family.max_halves_apart_pct;
    if (family.steady_window_s) own.stop.steady_window_s = *family.steady_window_s;
  }
  return own;
}

BenchResult run_instance(const Instance& instance, const RunSettings& run_settings, const Context& context,
                         int repetition, bool& poisoned, const NodeLane* node) {
  const RunSettings settings = settings_for(instance, run_settings);
  poisoned = false;
  if (!instance.skip_reason.empty())
    return unrun_result(instance, Status::kSkipped, instance.skip_reason, repetition,
                        settings.repetitions_of(instance.family->name()));
  BenchResult result;
  std::optional<TelemetrySampler> sampler;
  CooldownRecord cooldown;
  GpuProbe& probe = nvml_probe();
  try {
    if (instance.family->needs_gpu()) {
      GPUBENCH_CUDA(cudaSetDevice(instance.device));
      const std::vector<int> devices = sampled_devices(instance, settings);
      if (probe.available()) {
        cooldown = cool_down(probe, devices, settings.telemetry, steady_cooldown_clock());
        sampler.emplace(probe, devices, instance.name, sampling_mode(instance, settings),
                        settings.telemetry.interval_ms);
      }
    }
    State state(instance, settings, context);
    if (node) state.run_in_node(*node);
    if (sampler) state.read_telemetry_from([&](int device) { return sampler->read_now(device); });
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
  if (sampler) {
    result.trace = sampler->finish();
    result.telemetry = benchmark_telemetry(result.trace, instance.device, TelemetrySampler::to_string(sampler->mode()),
                                           settings.telemetry.interval_ms, cooldown);
  } else if (instance.family->needs_gpu()) {
    result.telemetry = {{"available", false}};
  }
  result.repetition_index = repetition;
  result.repetitions = settings.repetitions_of(instance.family->name());
  return result;
}

InProcessEnd run_in_process(const std::vector<const Instance*>& instances, const RunSettings& settings,
                            const Context& context, ResultSink& sink, const std::function<bool()>& stop_requested) {
  const InProcessEnd end = run_each(instances, settings, context, sink, stop_requested);
  destroy_worker_resources();
  return end;
}

namespace {

const char* const kOverlapMethod =
    "host steady clock around each sample's call (issue to completion), read by every GPU's thread of one process";

}  // namespace

std::vector<BenchResult> run_node_group(const std::vector<const Instance*>& group, const RunSettings& settings,
                                        const Context& context, int repetition, bool& poisoned) {
  const std::size_t lanes = group.size();
  std::vector<std::string> gpus;
  for (const Instance* instance : group) gpus.push_back("gpu" + std::to_string(instance->device));
  NodeBarrier barrier(gpus, settings_for(*group.front(), settings).timeout_s);
  std::vector<BenchResult> results(lanes);
  std::vector<std::vector<ClockSpan>> spans(lanes);
  std::vector<char> lane_poisoned(lanes, 0);
  {
    std::vector<std::thread> threads;
    for (std::size_t lane = 0; lane < lanes; ++lane)
      threads.emplace_back([&, lane] {
        const NodeLane node{&barrier, static_cast<int>(lane), &spans[lane]};
        bool mine = false;
        results[lane] = run_instance(*group[lane], settings, context, repetition, mine, &node);
        lane_poisoned[lane] = mine;
        if (results[lane].status == Status::kFailed)
          barrier.fail(static_cast<int>(lane), results[lane].error);
        else
          barrier.leave(static_cast<int>(lane));
      });
    for (std::thread& thread : threads) thread.join();
  }
  poisoned = false;
  for (std::size_t lane = 0; lane < lanes; ++lane) {
    poisoned = poisoned || lane_poisoned[lane];
    std::vector<std::vector<ClockSpan>> peers;
    for (std::size_t other = 0; other < lanes; ++other)
      if (other != lane) peers.push_back(spans[other]);
    nlohmann::json node = {{node_note::kGpus, gpus}};
    if (results[lane].status == Status::kOk && !peers.empty()) {
      node[node_note::kOverlapPct] = overlap_pct(spans[lane], peers);
      node[node_note::kOverlapMethod] = kOverlapMethod;
    }
    results[lane].notes[node_note::kNotes] = std::move(node);
  }
  return results;
}

}  // namespace gpubench

