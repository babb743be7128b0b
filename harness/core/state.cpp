#include "harness/core/state.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "harness/core/batching.h"
#include "harness/core/captured_graph.h"
#include "harness/core/cuda_check.h"
#include "harness/core/held_region.h"
#include "harness/core/host_clock.h"
#include "harness/core/l2_flush.h"
#include "harness/core/node_barrier.h"
#include "harness/core/streams.h"
#include "harness/core/timing_events.h"
#include "harness/model/plausibility.h"

namespace gpubench {
namespace {

// Back-to-back operations a power-limited family's batching is decided from, where a single
// call took under kBatchProbeBelow x the batching threshold.
constexpr int kBatchProbeOps = 4;
constexpr double kBatchProbeBelow = 5;
// A measurement's held samples are enqueued behind one hold of the blocker until they span about
// this long, so that the host's synchronisation idles the GPU for well under 1 % of the time.
constexpr double kHeldPipelineSpanS = 0.02;
// Queueing 16 held samples takes well under a millisecond; one that waits this long is waiting
// for the GPU behind the blocker.
constexpr double kHeldQueueingTimeoutS = 1.0;

// `together`, in node mode: passes the node's barrier with whether this GPU's rule wants another
// sample, and says whether any GPU does.
StopReason run_samples(const StopRule& rule, const std::function<double()>& sample, StopState& stop,
                       const std::function<bool(bool)>& together) {
  const double start = host_now_s();
  StopReason reason = StopReason::kContinue;
  while (together ? together(reason == StopReason::kContinue) : reason == StopReason::kContinue) {
    const double seconds = sample();
    stop.samples.push_back(seconds);
    stop.measured_s += seconds;
    stop.elapsed_s = host_now_s() - start;
    reason = should_stop(rule, stop);
  }
  return reason;
}


}  // namespace

State::State(const Instance& instance, const RunSettings& settings, const Context& context)
    : instance_(instance), settings_(settings), context_(context), devices_(settings.devices) {
  result_.name = instance.name;
  result_.family = instance.family->name();
  result_.suite = instance.family->suite();
  result_.params = instance.params.to_json();
}

const GpuInfo& State::gpu(int device) const {
  for (const auto& g : context_.gpus)
    if (g.index == device) return g;
  throw std::out_of_range("no context for GPU " + std::to_string(device));
}

cudaStream_t State::stream() { return worker_stream(device()); }

std::optional<TelemetryReading> State::telemetry_now() {
  if (!telemetry_source_) return std::nullopt;
  return telemetry_source_(device());
}

double State::warm_up(const std::function<double()>& sample, bool brief) {
  const double start = host_now_s();
  sample();  // the first call loads modules and faults pages in: not a time of the operation
  std::vector<double> seconds;
  while (seconds.size() < (brief ? 2u : 1u) || (!brief && host_now_s() - start < settings_.warmup_s))
    seconds.push_back(sample());
  // The fastest call, the operation's own time free of the stalls some calls meet: batching is
  // decided from it, and one slow call (or a median near the threshold) would flip a benchmark
  // between batched and unbatched from one process to the next, moving its figure several-fold.
  return *std::min_element(seconds.begin(), seconds.end());
}

void State::before_each_sample(std::function<void(cudaStream_t)> setup) {
  if (measured_) throw std::logic_error("before_each_sample() after the measured region");
  before_sample_ = std::move(setup);
}

void State::flush_l2_between_samples() {
  if (measured_) throw std::logic_error("flush_l2_between_samples() after the measured region");
  flush_l2_ = true;
  L2Flush& flush = resource<L2Flush>();
  result_.notes["l2_flush_bytes"] = flush.bytes();
}

State::Samples State::collect_samples(const std::function<double()>& sample, int ops_per_sample, bool record,
                                      const std::function<std::size_t()>& pending) {
  // Samples the pipeline took before the sampling began belong to the settle; those it took
  // before the stop rule ended the sampling are kept, as the wall time the rule saw holds them.
  while (pending && pending() > 0) sample();
  recording_ = record;
  StopState stop;
  std::function<bool(bool)> together;
  std::function<double()> timed = sample;
  if (node_.barrier) {
    together = [this](bool continuing) { return node_.barrier->arrive(node_.lane, continuing); };
    node_.spans->clear();  // this collection's samples only: tune collects two and keeps one
    timed = [this, &sample] {
      const double start = host_now_s();
      const double seconds = sample();
      node_.spans->push_back({start, host_now_s()});
      return seconds;
    };
  }
  // A held pipeline's samples are enqueued when the first of a queue is asked for: the CPU time
  // between these readings is that of exactly the samples kept.
  const double cpu_start_s = process_cpu_s(), wall_start_s = host_now_s();
  const StopReason reason = run_samples(settings_.stop, timed, stop, together);
  while (pending && pending() > 0) {
    stop.samples.push_back(timed());
    stop.measured_s += stop.samples.back();
  }
  const double cpu_s = process_cpu_s() - cpu_start_s, wall_s = host_now_s() - wall_start_s;
  recording_ = false;
  Samples out{{}, ops_per_sample, reason, median_noise_pct(stop.samples), {}};
  for (double s : stop.samples) out.op_seconds.push_back(s / ops_per_sample);
  if (stop.elapsed_s > 0) out.busy_pct = 100.0 * stop.measured_s / stop.elapsed_s;
  if (wall_s > 0) out.cpu_share = cpu_s / wall_s;
  return out;
}

void State::commit(const Samples& samples) {
  if (measured_) throw std::logic_error("a benchmark may have only one measured region");
  measured_ = true;
  ops_per_sample_ = samples.ops_per_sample;
  op_seconds_ = samples.op_seconds;
  cpu_share_ = samples.cpu_share;
  if (!samples.batching.empty()) result_.notes["batching"] = samples.batching;
  result_.notes["stopped_by"] = to_string(samples.stopped_by);
  result_.notes["noise_pct"] = samples.noise_pct;
  if (settings_.stop.max_halves_apart_pct > 0) result_.notes["halves_apart_pct"] = halves_apart_pct(samples.op_seconds);
  if (samples.busy_pct > 0) result_.notes["busy_pct"] = samples.busy_pct;
}

int State::batch_for(double op_s) const {
  if (flush_l2_ || op_s >= settings_.batch_below_s) return 1;
  return batch_size(std::max(op_s, 1e-7), settings_.batch_target_s, kMaxOpsPerSample);
}

void State::queue_samples_behind_blocker() {
  if (measured_) throw std::logic_error("queue_samples_behind_blocker() after the measured region");
  held_ = std::make_unique<HeldRegion>(std::vector<RegionLane>{{device(), stream()}}, Hold::kBlocked,
                                       kHeldQueueingTimeoutS);
}

std::function<double()> State::event_sample(const std::function<void(cudaStream_t)>& op, int ops,
                                            TimingEvents& events, int held_depth,
                                            std::function<std::size_t()>* pending) {
  cudaStream_t s = stream();
  std::function<void(cudaStream_t)> setup = [this](cudaStream_t st) {
    if (flush_l2_) resource<L2Flush>().flush(st);
    if (before_sample_) before_sample_(st);
  };
  // A stream batch is not held: thousands of launches behind a blocker could fill the queue.
  // Held samples are taken `held_depth` at a time; `ready` keeps those not yet returned.
  const bool held = held_ && ops == 1;
  auto ready = std::make_shared<std::deque<double>>();
  if (pending && held) *pending = [ready] { return ready->size(); };
  return [this, &op, ops, &events, s, setup, held, held_depth, ready, first = true]() mutable {
    while (held && held_depth_limit_ > 0 && !first && ready->empty()) {
      const int depth = std::min(held_depth, held_depth_limit_);
      try {
        const auto taken = held_->run_queued(depth, [&](std::size_t, cudaStream_t st) { setup(st); },
                                             [&](std::size_t, cudaStream_t st) { op(st); });
        ready->assign(taken.begin(), taken.end());
      } catch (const HoldTimedOut&) {
        // Queueing waited for the GPU (cuDNN's attention, 16 graphs of 3-4 us calls a hold, did on
        // an H100): the hold's samples ran as they were queued and are dropped. From now on one
        // sample a hold, and none where even one waits.
        held_depth_limit_ = depth > 1 ? 1 : 0;
        result_.notes["hold"] = held_depth_limit_ == 1
                                    ? "one sample a hold: queueing " + std::to_string(depth) + " waited for the GPU"
                                    : "given up: queueing one sample behind the blocking kernel waited for the GPU";
      }
    }
    if (!ready->empty()) {
      const double seconds = ready->front();
      ready->pop_front();
      return seconds;
    }
    first = false;
    setup(s);
    return events.time(s, [&] {
      for (int i = 0; i < ops; ++i) op(s);
    });
  };
}

double State::clock_s() { return host_now_s(); }

void State::settle(const std::function<double()>& sample, double load_start) {
  while (host_now_s() - load_start < settings_.settle_s) sample();
}

State::Samples State::samples_after_settle(const std::function<double()>& sample, int ops_per_sample,
                                           double load_start, bool record,
                                           const std::function<std::size_t()>& pending) {
  if (node_.barrier) node_.barrier->arrive(node_.lane, true);  // every GPU warmed up: the load starts together
  if (settings_.settle_s > 0) {
    settle(sample, load_start);
    result_.notes["settle_s"] = settings_.settle_s;
  }
  return collect_samples(sample, ops_per_sample, record, pending);
}

State::Batched State::in_batches(const std::function<void(cudaStream_t)>& op, int ops, Batching batching,
                                 TimingEvents& events, int held_depth) {
  Batched b;
  b.ops = ops;
  b.how = ops == 1 ? (flush_l2_ ? "none (L2 flushed before each operation)" : "none")
          : batching == Batching::kGraph ? "graph"
                                         : "stream";
  if (ops > 1 && batching == Batching::kGraph) {
    auto batch = std::make_shared<CapturedGraph>(stream(), ops, op);
    auto replay = std::make_shared<std::function<void(cudaStream_t)>>([batch](cudaStream_t s) { batch->launch(s); });
    b.sample = [replay, sample = event_sample(*replay, 1, events, held_depth, &b.pending)] { return sample(); };
  } else {
    b.sample = event_sample(op, ops, events, held_depth, &b.pending);
  }
  return b;
}

State::Batched State::batched(const std::function<void(cudaStream_t)>& op, Batching batching, TimingEvents& events,
                              double load_start, bool brief) {
  double op_s = warm_up(event_sample(op, 1, events, 1), brief);
  if (settings_.settle_s > 0 && op_s < kBatchProbeBelow * settings_.batch_below_s) {
    // A single event-timed call holds the gap before its launch reaches the GPU (about 5 us), so
    // an operation near the batching threshold would be batched in one process and not in the
    // next, its figures far apart: batching follows back-to-back calls (after the settle), in
    // the batch's own form, as a graph's replay holds none of the host's cost per call.
    const Batched probe = in_batches(op, kBatchProbeOps, batching, events, 1);
    if (!brief) settle(probe.sample, load_start);
    op_s = warm_up(probe.sample, true) / kBatchProbeOps;
  }
  // A tune candidate's samples are held one at a time: its ranking interleaves candidates sample
  // by sample.
  const int ops = batch_for(op_s);
  const int held_depth = brief ? 1 : batch_size(ops * op_s, kHeldPipelineSpanS, held_depth_limit_);
  Batched b = in_batches(op, ops, batching, events, held_depth);
  if (!brief && (b.ops > 1 || held_))
    warm_up(b.sample);
  else if (held_)
    b.sample();  // a held sampler's first call, the one not held, is no ranking sample
  return b;
}

State::Samples State::collect(const std::function<void(cudaStream_t)>& op, Batching batching, bool record) {
  if (measured_) throw std::logic_error("a benchmark may have only one measured region");
  TimingEvents events;
  const double load_start = host_now_s();
  const Batched b = batched(op, batching, events, load_start, false);
  Samples samples = samples_after_settle(b.sample, b.ops, load_start, record, b.pending);
  samples.batching = b.how;
  return samples;
}

void State::rest() const {
  if (settings_.rest_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(settings_.rest_s));
}

void State::measure(const std::function<void(cudaStream_t)>& op, Batching batching) {
  commit(collect(op, batching, true));
}

void State::measure_host(const std::function<void()>& op_batch, int ops_per_call) {
  auto sample = [&] {
    if (flush_l2_ || before_sample_) {
      if (flush_l2_) resource<L2Flush>().flush(stream());
      if (before_sample_) before_sample_(stream());
      GPUBENCH_CUDA(cudaStreamSynchronize(stream()));
    }
    const double t0 = host_now_s();
    op_batch();
    return host_now_s() - t0;
  };
  const double load_start = host_now_s();
  warm_up(sample);
  result_.notes["clock"] = "host";
  commit(samples_after_settle(sample, ops_per_call, load_start, true));
}

void State::measure_manual(const std::function<double()>& sample, int ops_per_sample) {
  const double load_start = host_now_s();
  warm_up(sample);
  commit(samples_after_settle(sample, ops_per_sample, load_start, true));
}

void State::measure_batched(const std::function<double(int ops)>& run, const BatchRule& rule) {
  const double load_start = host_now_s();
  const int ops = probe_batch(run, rule, settings_.batch_target_s);
  const auto sample = [&] { return run(ops); };
  warm_up(sample);
  Samples samples = samples_after_settle(sample, ops, load_start, true);
  samples.batching = ops == 1 ? "none" : "in the family's run";
  result_.notes["batch_rule"] = {{"target_s", rule.target_s.value_or(settings_.batch_target_s)},
                                 {"max_ops", std::max(rule.max_ops, 1)}, {"probes", std::max(rule.probes, 1)},
                                 {"probe_ops", std::max(rule.probe_ops, 1)}, {"refined", rule.refine}};
  commit(samples);
}

void State::declare_metric(const std::string& metric, const std::string& unit, bool higher_is_better) {
  auto& m = result_.metrics[metric];
  m.unit = unit;
  m.higher_is_better = higher_is_better;
}

void State::declare_difference_metric(const std::string& metric, const std::string& unit,
                                      bool higher_is_better) {
  declare_metric(metric, unit, higher_is_better);
  result_.metrics[metric].difference = true;
}

void State::record(const std::string& metric, double value) {
  auto it = result_.metrics.find(metric);
  if (it == result_.metrics.end()) throw std::logic_error("record() of undeclared metric " + metric);
  if (recording_) it->second.values.push_back(value);
}

void State::count_bytes(double bytes_per_op) { bytes_per_op_ = bytes_per_op; }
void State::count_flops(double flops_per_op) { flops_per_op_ = flops_per_op; }

void State::report_time_as(const std::string& metric, const std::string& unit, double scale) {
  time_metrics_.push_back({metric, unit, scale});
}

void State::set_primary_metric(const std::string& metric) { primary_ = metric; }

void State::set_peak(double peak, const std::string& source) {
  if (peak > 0) result_.peak = peak;
  result_.peak_source = source;
}

void State::bound_by_peak_times(double factor, const std::string& why) {
  if (!(factor >= 1)) throw std::logic_error("bound_by_peak_times() needs a factor of at least 1");
  result_.plausibility_factor = factor;
  result_.notes["plausibility_bound"] = why;
}

void State::note(const std::string& key, nlohmann::json value) { result_.notes[key] = std::move(value); }

void State::not_applicable(const std::string& metric, const std::string& why) { result_.not_applicable[metric] = why; }

void State::record_slice(TimeSlice slice) { result_.series.push_back(std::move(slice)); }

void State::verify(bool ok, const std::string& what) {
  verify_called_ = true;
  if (!ok) {
    verify_ok_ = false;
    verify_failures_ += (verify_failures_.empty() ? "" : "; ") + what;
  }
}

void State::skip(const std::string& reason) { throw SkipSignal{reason}; }
void State::fail(const std::string& reason) { throw std::runtime_error(reason); }

BenchResult State::finish() {
  BenchResult result = std::move(result_);
  auto add = [&](const std::string& name, const std::string& unit, bool higher, double per_op_scale,
                 bool invert) {
    Metric& m = result.metrics[name];
    m.unit = unit;
    m.higher_is_better = higher;
    for (double t : op_seconds_) m.values.push_back(invert ? per_op_scale / t : t * per_op_scale);
  };
  add("time_us", "us", false, 1e6, false);
  for (const auto& t : time_metrics_) add(t.name, t.unit, false, t.scale, false);
  if (bytes_per_op_ > 0) add("bandwidth_gbps", "GB/s", true, bytes_per_op_ / 1e9, true);
  if (flops_per_op_ > 0) add("tflops", "TFLOP/s", true, flops_per_op_ / 1e12, true);
  // A declared metric that no sample recorded (a figure measured only where it applies) is left out.
  for (auto it = result.metrics.begin(); it != result.metrics.end();)
    it = it->second.values.empty() && !it->second.recorded ? result.metrics.erase(it) : std::next(it);
  result.primary_metric = !primary_.empty() ? primary_
                          : bytes_per_op_ > 0 ? "bandwidth_gbps"
                          : flops_per_op_ > 0 ? "tflops"
                          : !time_metrics_.empty() ? time_metrics_.front().name
                                                   : "time_us";
  result.iterations = static_cast<long long>(op_seconds_.size()) * ops_per_sample_;
  result.ops_per_sample = ops_per_sample_;
  // As in Google Benchmark, cpu_time / real_time is the process's CPU seconds per wall second
  // while the samples ran; real_time's operation (a load, a launch, a GEMM) is the primary
  // metric's, which need not be the measured region's.
  if (measured_) result.cpu_time_ns = real_time_ns(result) * cpu_share_;
  if (bytes_per_op_ > 0) result.notes["bytes_per_op"] = bytes_per_op_;
  if (flops_per_op_ > 0) result.notes["flops_per_op"] = flops_per_op_;
  result.verified = verify_called_ && verify_ok_;
  std::string failure;
  // A failed check is named first: it says more than a missing region or timing.
  if (!verify_ok_) failure = "verification failed: " + verify_failures_;
  else if (!measured_) failure = "the benchmark marked no measured region";
  else if (!verify_called_) failure = "the benchmark did not verify its output";
  if (!failure.empty()) {
    result.status = Status::kFailed;
    result.error = failure;
    result.metrics.clear();  // a result that did not verify reports no figure
    result.cpu_time_ns.reset();
  }
  check_plausible(result);
  return result;
}

void State::check_plausible(BenchResult& result) const {
  if (result.status != Status::kOk || !result.peak) return;
  const auto primary = result.metrics.find(result.primary_metric);
  if (primary == result.metrics.end() || primary->second.values.empty()) return;
  const auto why = implausible_figure(primary->second.summary().median, *result.peak * result.plausibility_factor,
                                     primary->second.higher_is_better);
  if (!why) return;
  result.status = Status::kFailed;
  result.error = result.primary_metric + " " + *why;
  result.metrics.clear();  // an impossible figure is never reported
  result.cpu_time_ns.reset();
}

}  // namespace gpubench
