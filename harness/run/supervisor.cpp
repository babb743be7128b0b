#include "harness/run/supervisor.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "harness/model/number_text.h"
#include "harness/model/exit_codes.h"
#include "harness/model/json_at.h"
#include "harness/run/counter_recorder.h"
#include "harness/run/node_accounting.h"
#include "harness/run/runner.h"
#include "harness/run/watchdog.h"
#include "harness/run/worker.h"

namespace gpubench {
namespace {

// The telemetry samples beside a worker's result; a malformed trace is dropped, not the result.
std::vector<TelemetrySample> read_trace(const nlohmann::json& message) {
  std::vector<TelemetrySample> trace;
  const auto samples = message.find("trace");
  if (samples == message.end() || !samples->is_array()) return trace;
  try {
    for (const auto& sample : *samples) trace.push_back(telemetry_sample_from_json(sample));
  } catch (const nlohmann::json::exception&) {
    trace.clear();
  }
  return trace;
}

// Every result goes to the outcome and to the observer, in that order of arrival, with what
// node mode adds (node_accounting.h): its ratio and PCIe note, then a node total it completes.
class Recorder {
 public:
  Recorder(RunOutcome& outcome, const RunObserver& observer, const Context& context, const RunSettings& settings)
      : outcome_(outcome), observer_(observer), node_(context, settings.devices) {}
  void operator()(BenchResult result) {
    node_.annotate(result);
    observer_.finished(result);
    outcome_.results.push_back(std::move(result));
    if (auto total = node_.total_after(outcome_.results.back())) {
      observer_.finished(*total);
      outcome_.results.push_back(std::move(*total));
    }
  }
  const RunObserver& observer() const { return observer_; }
  const RunOutcome& outcome() const { return outcome_; }

 private:
  RunOutcome& outcome_;
  const RunObserver& observer_;
  NodeAccounting node_;
};

class ObserverSink : public ResultSink {
 public:
  explicit ObserverSink(Recorder& record) : record_(record) {}
  void started(const std::string& name, int) override { record_.observer().started(name); }
  void finished(const BenchResult& result) override { record_(result); }

 private:
  Recorder& record_;
};

// Runs one family's instances, in as many workers as faults require.
class FamilySupervisor {
 public:
  FamilySupervisor(const RunPlan& plan, const Context& context, const std::vector<const Instance*>& instances,
                   const InterruptCatcher& interrupts, Recorder& record)
      : plan_(plan), context_(context), observer_(record.observer()), interrupts_(interrupts), record_(record) {
    for (const Instance* instance : instances) {
      by_name_[instance->name] = instance;
      remaining_.push_back(instance->name);
    }
  }

  void run() {
    while (settle(run_worker())) {
    }
  }

 private:
  // How one worker ended, and what it was running then.
  struct WorkerEnd {
    // What was running: one benchmark, or a node group's GPUs (node_runner.h), under one timeout.
    std::vector<std::string> running;
    int current_repetition = 0;
    WorkerWatchdog::Verdict verdict = WorkerWatchdog::Verdict::kWithinLimits;
    double limit_s = 0;
    bool started_any = false, interrupted = false;
    int status = 0;
  };

  WorkerEnd run_worker() {
    WorkerJob job{plan_.settings, context_, {}};
    for (const auto& name : remaining_) job.instances.push_back(*by_name_.at(name));
    WorkerProcess worker(job);
    WorkerWatchdog watchdog;
    WorkerEnd end;
    std::vector<std::string> lines;
    while (true) {
      lines.clear();
      const bool open = worker.read_lines(std::min(0.5, watchdog.remaining_s() + 0.001), interrupts_.fd(), lines);
      for (const auto& line : lines) handle(line, watchdog, end);
      if (!open) break;
      if (interrupts_.signal() != 0) {
        end.interrupted = true;
        break;
      }
      end.verdict = watchdog.verdict();
      if (end.verdict != WorkerWatchdog::Verdict::kWithinLimits) break;
    }
    if (end.interrupted || end.verdict != WorkerWatchdog::Verdict::kWithinLimits) worker.kill_group();
    end.status = worker.wait();
    end.started_any = watchdog.started_any();
    end.limit_s = watchdog.limit_s();
    return end;
  }

  void handle(const std::string& line, WorkerWatchdog& watchdog, WorkerEnd& end) {
    const auto message = nlohmann::json::parse(line, nullptr, false);
    if (message.is_discarded() || !message.is_object()) return;
    const std::string event = message.value("event", "");
    if (event == "start") {
      const auto instance = by_name_.find(message.value("name", ""));
      if (instance == by_name_.end()) return;
      if (end.running.empty()) watchdog.benchmark_started(timeout_for(*instance->second, plan_.settings));
      end.running.push_back(instance->first);
      end.current_repetition = message.value("repetition", 0);
      observer_.started(instance->first);
    } else if (event == "result") {
      BenchResult result;
      try {
        result = read_bench_result(JsonAt(message.value("result", nlohmann::json()), "worker message"));
        result.trace = read_trace(message);
      } catch (const UsageError& error) {
        // Cannot happen between matching builds; if it does, the benchmark still fails visibly.
        if (end.running.empty()) return;
        const Instance& instance = *by_name_.at(end.running.front());
        result = unrun_result(instance, Status::kFailed, "unreadable result from worker: " + error.message,
                              end.current_repetition,
                              plan_.settings.repetitions_of(instance.family->name()));
      }
      ++done_repetitions_[result.name];
      const auto done = std::find(end.running.begin(), end.running.end(), result.name);
      if (done != end.running.end()) end.running.erase(done);
      if (end.running.empty()) watchdog.benchmark_finished();
      record_(std::move(result));
    }
  }

  // Records what the worker's end means; true when another worker should run the rest.
  bool settle(const WorkerEnd& end) {
    std::set<std::string> finished;
    for (const auto& name : remaining_)
      if (done_repetitions_[name] >= repetitions_of(name)) finished.insert(name);
    if (!end.running.empty()) {
      for (const std::string& name : end.running) {
        record_(unrun_result(*by_name_.at(name), status_of(end), reason_of(end), end.current_repetition,
                             repetitions_of(name)));
        finished.insert(name);
      }
      // A node group's GPUs that finished this repetition before the others stopped: a new
      // worker would run them alone, so their remaining repetitions end here too.
      for (const auto& name : remaining_) {
        if (finished.count(name) || done_repetitions_[name] == 0) continue;
        record_(unrun_result(*by_name_.at(name), status_of(end), "its node group stopped: " + reason_of(end),
                             done_repetitions_[name], repetitions_of(name)));
        finished.insert(name);
      }
    } else if (!end.started_any && !end.interrupted) {
      // Nothing ran (start-up failed or hung): another worker would fail the same way.
      const std::string reason = end.verdict == WorkerWatchdog::Verdict::kStartupHung
                                     ? "worker start-up hung for " + significant_text(end.limit_s, 6) + " s; killed"
                                     : describe_exit(end.status);
      for (const auto& name : remaining_)
        if (!finished.count(name))
          record_(unrun_result(*by_name_.at(name), Status::kFailed, reason, 0, repetitions_of(name)));
      return false;
    }
    if (end.interrupted) return false;
    std::vector<std::string> next;
    for (const auto& name : remaining_)
      if (!finished.count(name)) next.push_back(name);
    remaining_ = std::move(next);
    return !remaining_.empty();
  }

  static Status status_of(const WorkerEnd& end) {
    if (end.interrupted) return Status::kInterrupted;
    return end.verdict == WorkerWatchdog::Verdict::kBenchmarkTimedOut ? Status::kTimeout : Status::kFailed;
  }

  std::string reason_of(const WorkerEnd& end) const {
    if (end.interrupted) return "interrupted by " + interrupts_.signal_name() + "; worker process killed";
    if (end.verdict == WorkerWatchdog::Verdict::kBenchmarkTimedOut)
      return "no result within " + significant_text(end.limit_s, 6) + " s; worker process killed";
    return describe_exit(end.status);
  }

  const RunPlan& plan_;
  const Context& context_;
  const RunObserver& observer_;
  const InterruptCatcher& interrupts_;
  Recorder& record_;
  std::map<std::string, const Instance*> by_name_;
  std::vector<std::string> remaining_;
  std::map<std::string, int> done_repetitions_;

  int repetitions_of(const std::string& name) const {
    return plan_.settings.repetitions_of(by_name_.at(name)->family->name());
  }
};

void run_family_in_process(const RunPlan& plan, const Context& context, const std::vector<const Instance*>& instances,
                           const InterruptCatcher& interrupts, Recorder& record) {
  ObserverSink sink(record);
  const auto stop_requested = [&interrupts] { return interrupts.signal() != 0; };
  if (run_in_process(instances, plan.settings, context, sink, stop_requested) != InProcessEnd::kPoisoned) return;
  std::set<std::string> seen;
  for (const auto& result : record.outcome().results) seen.insert(result.name);
  for (const Instance* instance : instances)
    if (!seen.count(instance->name))
      sink.finished(unrun_result(*instance, Status::kFailed,
                                 "not run: an earlier CUDA error poisoned the context (--no-isolate)"));
}

}  // namespace

double timeout_for(const Instance& instance, const RunSettings& settings) {
  return settings_for(instance, settings).timeout_s;
}

RunOutcome run_plan(const RunPlan& plan, const Context& context, bool isolate, const RunObserver& observer,
                    const InterruptCatcher& interrupts) {
  RunOutcome outcome;
  Recorder record(outcome, observer, context, plan.settings);
  // Families in first-appearance order; skipped-before-running instances need no worker.
  std::vector<std::vector<const Instance*>> families;
  for (const Instance& instance : plan.instances) {
    if (!instance.skip_reason.empty()) {
      record(unrun_result(instance, Status::kSkipped, instance.skip_reason));
      continue;
    }
    if (families.empty() || families.back().front()->family != instance.family) families.emplace_back();
    families.back().push_back(&instance);
  }
  const bool uses_gpu = std::any_of(plan.instances.begin(), plan.instances.end(),
                                    [](const Instance& i) { return i.family->needs_gpu(); });
  std::optional<CounterRecorder> counters;
  if (uses_gpu) counters.emplace(nvml_probe(), plan.settings.devices);
  for (const auto& instances : families) {
    if (interrupts.signal() != 0) break;
    if (counters) counters->begin_suite(instances.front()->family->suite());
    if (isolate)
      FamilySupervisor(plan, context, instances, interrupts, record).run();
    else
      run_family_in_process(plan, context, instances, interrupts, record);
  }
  if (counters) outcome.error_counters = counters->finish();
  outcome.interrupted = interrupts.signal_name();
  return outcome;
}

}  // namespace gpubench
