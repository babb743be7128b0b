#pragma once
// The per-benchmark state a family's run function works against: its parameters and device,
// the measured region, the work it counts, its verification. The harness does everything
// else (warm-up, batching, stopping, statistics, telemetry, output).
#include <cuda_runtime_api.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/batching.h"
#include "harness/core/held_region.h"
#include "harness/core/node_lane.h"
#include "harness/core/resource.h"
#include "harness/core/timing_events.h"
#include "harness/model/context.h"
#include "harness/core/family.h"
#include "harness/model/result.h"
#include "harness/model/stats.h"
#include "harness/model/telemetry.h"

namespace gpubench {

struct RunSettings {
  StopRule stop;
  double warmup_s = 0.02;   // warm-up runs at least this long (and at least twice)
  double settle_s = 0.0;  // FamilySettings::settle_s
  double rest_s = 0.0;    // FamilySettings::rest_s
  double batch_below_s = 20e-6;    // ops shorter than this are batched...
  double batch_target_s = 200e-6;  // ...until a sample lasts about this long
  int repetitions = 1;
  // Families that run a number of repetitions of their own (a config's repetitions_by_family).
  std::map<std::string, int> family_repetitions;
  int repetitions_of(const std::string& family) const {
    const auto it = family_repetitions.find(family);
    return it == family_repetitions.end() ? repetitions : it->second;
  }
  double timeout_s = 120;   // per benchmark, enforced by the supervising parent
  bool quick = false;
  std::vector<int> devices{0};  // every GPU selected for the run
  TelemetrySettings telemetry;  // sampling and cooldown (harness/run/telemetry_sampler.h, cooldown.h)
};

// How `measure` issues a batch of operations for one sample.
enum class Batching {
  kStream,  // back to back on the stream (safe for anything)
  kGraph,   // captured once into a CUDA graph and replayed: launch gaps stay out of short ops
};

// One way of doing the measured operation: an algorithm a library offers, a kernel variant.
struct TuneCandidate {
  std::string label;        // short, for tables: "algo 6 tile 256x128 splitk 1"
  nlohmann::json identity;  // what identifies it across runs and versions (gpubench.choice)
  std::function<void(cudaStream_t)> op;
};

class State {
 public:
  State(const Instance& instance, const RunSettings& settings, const Context& context);
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  const Params& params() const { return instance_.params; }
  std::int64_t get_int(const std::string& axis) const { return instance_.params.integer(axis); }
  const std::string& get_str(const std::string& axis) const { return instance_.params.str(axis); }
  int get_gpu(const std::string& axis) const { return instance_.params.gpu(axis); }
  int device() const { return instance_.device; }
  const std::vector<int>& devices() const { return devices_; }
  const GpuInfo& gpu(int device) const;  // context of a selected device
  const Context& context() const { return context_; }
  // This worker's T for device() (harness/core/resource.h): made on first use, then shared.
  template <class T>
  T& resource() {
    return worker_resource<T>(device());
  }
  bool quick() const { return settings_.quick; }
  // A telemetry reading of device() now, taken by the run's sampler (harness/run/telemetry_sampler.h)
  // and kept in its trace, for a family whose figures are read beside the GPU's state (a
  // sustained load's slices); none where the run samples no telemetry.
  std::optional<TelemetryReading> telemetry_now();
  // The harness's side: where telemetry_now() reads from (the runner sets the sampler's).
  using TelemetrySource = std::function<std::optional<TelemetryReading>(int device)>;
  void read_telemetry_from(TelemetrySource source) { telemetry_source_ = std::move(source); }
  // Node mode, the harness's side (the runner's, before the run function): the samples pass
  // `lane`'s barrier together with the other GPUs', the settle after warm-up starts together,
  // and each kept sample's span on the host clock goes to the lane's spans.
  void run_in_node(const NodeLane& lane) { node_ = lane; }
  // The worker's stream on device() (harness/streams.h): every benchmark of the process shares it.
  cudaStream_t stream();

  // ---- untimed work between samples (before the measured region is marked) ----
  // Runs `setup` on the stream before every sample, warm-up ones included, outside the timed
  // region (before the start event; for host-clock samples, waited for before the clock starts).
  void before_each_sample(std::function<void(cudaStream_t)> setup);
  // Writes a device buffer of twice the L2 size before every sample (harness/core/l2_flush.h),
  // so no sample reads what the previous one left in L2. A sample is then one operation: a
  // batch would serve every operation after the first from L2 again.
  void flush_l2_between_samples();
  // Queues each sample of one launch (one operation, or one replay of a captured batch) whole
  // behind the blocking kernel (harness/core/blocking_kernel.h) before its start event can fire,
  // so the host's cost of issuing the operation stays out of it: a library call that builds its
  // launch on the host each time (cublasLtMatmul on Hopper: several microseconds) otherwise
  // lengthens a 40 us sample by that much, more on a slower host. Only for operations that never
  // wait on the host while being enqueued (no pageable copies, no synchronising calls); the first
  // call of each sampler runs unheld, as a module it loads lazily would deadlock behind the
  // blocker. A measurement enqueues its samples behind one hold until they span about 20 ms,
  // so the GPU runs them back to back (HeldRegion::run_queued); a tune candidate's, one per hold.
  void queue_samples_behind_blocker();

  // ---- measured region: exactly one of these per run ----
  // Device work that `op` enqueues on the stream, timed with CUDA events.
  void measure(const std::function<void(cudaStream_t)>& op, Batching batching = Batching::kStream);
  // Host wall clock around `op_batch`, which performs `ops_per_call` operations and waits for
  // whatever it must (enqueue cost is measured by not waiting).
  void measure_host(const std::function<void()>& op_batch, int ops_per_call = 1);
  // The family runs `ops` operations and returns the seconds they took, by whatever clock fits
  // (several streams or devices at once, a host clock, ranks of a collective); the harness
  // chooses `ops` by `rule`, warms up at that batch and samples. gpubench.ops_per_sample is the
  // batch, notes.batch_rule how it was chosen. Calls with other `ops` (the probes) may come
  // first: a family's per-sample side effects (record(), notes) must hold for any `ops`.
  void measure_batched(const std::function<double(int ops)>& run, const BatchRule& rule = {});
  // The benchmark times each sample itself and returns the seconds that `ops_per_sample`
  // operations took: only where the operations per sample are part of what is measured (a
  // fixed launch count that keeps below the launch queue, a whole network's layers), never to
  // size a batch (measure_batched). Each call says why at the call.
  void measure_manual(const std::function<double()>& sample, int ops_per_sample = 1);
  // The measured region chosen among candidates (DESIGN.md, "What declaring a benchmark family
  // should feel like"): the candidates ranked in interleaved rounds after one settle
  // (tune_choice.h), each batched as `batching` says. The one at `heuristic_index` (the
  // library's own first pick) is measured unless another ranked more than 2 % faster; then both
  // are measured alone under the full rule and the faster is kept (their ops' record() values
  // are dropped); a power-limited family rests before each measurement (FamilySettings::rest_s).
  // gpubench.choice records the chosen candidate, the heuristic's and every candidate's time; a
  // candidate that throws is recorded as failed and left out; if none is left the benchmark
  // fails. A lone candidate is measured without ranking.
  void tune(const std::vector<TuneCandidate>& candidates, std::size_t heuristic_index = 0,
            Batching batching = Batching::kStream);
  // What decides tune's choice here (shape, type, layout): a later tune under the same key in
  // this worker, on the same GPU and library versions, measures the candidate that a ranking
  // chose then alone, if it is offered again, without ranking (harness/core/tune_cache.h);
  // gpubench.choice is that tune's record with "cached_from", the benchmark that chose it.
  void tune_cache_key(const nlohmann::json& shape);
  // The identity of the candidate that a tune under this key chose earlier in the worker: a
  // family may then skip its own screening and offer that candidate alone.
  std::optional<nlohmann::json> cached_choice() const;
  // A per-sample value of a secondary metric, from inside a measured sample; warm-up values
  // are dropped. The metric must be declared first.
  void record(const std::string& metric, double value);

  // ---- what one operation does ----
  void count_bytes(double bytes_per_op);   // derives bandwidth_gbps
  void count_flops(double flops_per_op);   // derives tflops
  // Report the time of one operation also as `metric` (e.g. "latency_ns", scale 1e9).
  void report_time_as(const std::string& metric, const std::string& unit, double scale);
  void declare_metric(const std::string& metric, const std::string& unit, bool higher_is_better);
  // A metric that is one figure minus another (Metric::difference): its samples may be <= 0.
  void declare_difference_metric(const std::string& metric, const std::string& unit, bool higher_is_better);
  void set_primary_metric(const std::string& metric);
  // Theoretical value of the primary metric (same unit), for % of peak, and where it comes from.
  void set_peak(double peak, const std::string& source);
  // Where the counted work may exceed what the hardware executes (a fast convolution
  // algorithm does fewer flops than the direct convolution it is counted as), a figure is
  // implausible only above `factor` x the peak; `why` is noted. % of peak stays against the peak.
  void bound_by_peak_times(double factor, const std::string& why);
  void note(const std::string& key, nlohmann::json value);
  // A metric that means nothing in this configuration (a bus bandwidth of one rank), and why.
  void not_applicable(const std::string& metric, const std::string& why);
  // The next slice of the family's time series (BenchResult::series).
  void record_slice(TimeSlice slice);

  // ---- verification: every run must verify its output at least once ----
  void verify(bool ok, const std::string& what);
  [[noreturn]] void skip(const std::string& reason);
  [[noreturn]] void fail(const std::string& reason);

  // The harness's side, after the run function returns.
  BenchResult finish();

 private:
  // Samples under the run's stopping rule, not yet the benchmark's: tune may collect two and keep one.
  struct Samples {
    std::vector<double> op_seconds;  // per-op time of each sample
    int ops_per_sample = 1;
    StopReason stopped_by = StopReason::kContinue;
    double noise_pct = 0;
    std::string batching;  // notes.batching, where the harness batched the operation
    // notes.busy_pct: the samples' share of the wall time they were taken in. A power-capped GPU
    // clocks higher the more it idles between samples, so its figures depend on this share.
    double busy_pct = 0;
    double cpu_share = 0;  // the process's CPU seconds per wall second while sampling
  };
  // `record`: whether record() calls during the samples keep their values.
  // `pending`, where given: how many samples `sample` has taken and not yet returned (a held
  // pipeline's); those taken before the sampling are dropped, those after the stop kept.
  Samples collect_samples(const std::function<double()>& sample, int ops_per_sample, bool record,
                          const std::function<std::size_t()>& pending = {});
  // tune() once the cache has nothing for it: rank, choose, measure.
  void tune_by_ranking(const std::vector<TuneCandidate>& candidates, std::size_t heuristic_index, Batching batching);
  // Warm-up, batching, settle and samples of `op` (what measure() does before it commits).
  Samples collect(const std::function<void(cudaStream_t)>& op, Batching batching, bool record);
  // An operation made ready to sample: `ops` per sample, back to back on the stream or replayed
  // as one captured graph; `how` is notes.batching.
  struct Batched {
    int ops = 1;
    std::string how;
    std::function<double()> sample;
    std::function<std::size_t()> pending;  // see collect_samples
  };
  // Warms `op` up (`brief`: as a tune candidate, whose ranking follows one settle), decides its
  // batch (a power-limited family's from back-to-back calls, after the settle unless `brief`)
  // and, unless `brief`, warms up a batch or a sampler queued behind the blocker.
  Batched batched(const std::function<void(cudaStream_t)>& op, Batching batching, TimingEvents& events,
                  double load_start, bool brief);
  // `held_depth`: where samples are held (queue_samples_behind_blocker), how many are enqueued
  // behind one hold of the blocker (HeldRegion::run_queued).
  Batched in_batches(const std::function<void(cudaStream_t)>& op, int ops, Batching batching, TimingEvents& events,
                     int held_depth);
  void rest() const;  // settings_.rest_s of idle host and GPU, between tune's ranking and a measurement
  void commit(const Samples& samples);  // makes them the benchmark's measured region
  // Runs `sample` for the warm-up period (`brief`: the first call and two more, for a tune
  // candidate, whose ranking rounds follow a settle); returns the fastest call after the first.
  double warm_up(const std::function<double()>& sample, bool brief = false);
  // Operations per sample for an operation of `op_s` (1 when the L2 is flushed between samples).
  int batch_for(double op_s) const;
  // Event-timed samples of `ops` back-to-back `op`s, the per-sample setup first; held samples
  // `held_depth` at a time behind the blocker, the first call unheld.
  std::function<double()> event_sample(const std::function<void(cudaStream_t)>& op, int ops, TimingEvents& events,
                                       int held_depth, std::function<std::size_t()>* pending = nullptr);
  // Runs `sample` until settings_.settle_s has passed since `load_start` (State::clock_s).
  void settle(const std::function<double()>& sample, double load_start);
  Samples samples_after_settle(const std::function<double()>& sample, int ops_per_sample, double load_start,
                               bool record, const std::function<std::size_t()>& pending = {});
  static double clock_s();  // the host clock of warm-up, settle and ranking rounds
  void check_plausible(BenchResult& result) const;

  const Instance& instance_;
  RunSettings settings_;
  const Context& context_;
  std::vector<int> devices_;
  bool measured_ = false;
  bool recording_ = false;
  bool verify_called_ = false;
  bool verify_ok_ = true;
  std::string verify_failures_;
  double bytes_per_op_ = 0, flops_per_op_ = 0;
  struct TimeMetric { std::string name, unit; double scale; };
  std::vector<TimeMetric> time_metrics_;
  std::vector<double> op_seconds_;  // per-op time of each sample
  int ops_per_sample_ = 1;
  double cpu_share_ = 0;
  std::string primary_;
  std::string tune_cache_key_;  // empty: tune() neither uses nor fills the cache
  std::function<void(cudaStream_t)> before_sample_;
  TelemetrySource telemetry_source_;
  NodeLane node_;
  bool flush_l2_ = false;
  std::unique_ptr<HeldRegion> held_;  // queue_samples_behind_blocker(): the worker stream, held
  // The most samples one hold queues: kMaxHeldPerHold, lowered to 1, then 0 (none held), each
  // time queueing behind the blocker waited for the GPU.
  static constexpr int kMaxHeldPerHold = 16;
  int held_depth_limit_ = kMaxHeldPerHold;
  BenchResult result_;
};

}  // namespace gpubench
