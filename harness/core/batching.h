#pragma once
// How many operations one sample batches, so that launch and timer overheads are a small part of
// it: State::measure and State::measure_batched size their samples by these rules.
#include <functional>
#include <optional>

namespace gpubench {

// The most operations one sample batches where a family sets no lower limit.
inline constexpr int kMaxOpsPerSample = 10000;

// Operations per sample so that a sample lasts about `target_s`, given one operation takes
// `op_s`: at least 1, at most `max_ops` (nccl-tests' -n); 1 where the time is unknown (zero, NaN).
int batch_size(double op_s, double target_s, int max_ops);

// How State::measure_batched sizes a family's batch (Google Benchmark's runner chooses
// iterations so): `probes` calls of `probe_ops` operations are timed, the fastest divided by
// probe_ops, and operations are batched so that a sample lasts about `target_s`, at most
// `max_ops` of them.
struct BatchRule {
  std::optional<double> target_s;  // unset: the family's batch_target_s (RunSettings::batch_target_s)
  int max_ops = kMaxOpsPerSample;
  int probes = 1;     // the first loads what the operation needs: where that is slow, probe again
  int probe_ops = 1;  // operations per probe, where one is too short for the clock that times it
  // A sample of the first batch sizes the batch again: where one operation's time holds a cost a
  // batch pays once (an unheld first call's enqueue), the first guess is too small.
  bool refine = false;
};

// Calls `run(ops)` (seconds of `ops` operations) as `rule` says and returns the operations per
// sample; `default_target_s` where the rule sets none.
int probe_batch(const std::function<double(int ops)>& run, const BatchRule& rule, double default_target_s);

}  // namespace gpubench
