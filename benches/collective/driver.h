#pragma once
// The steps every rank of one collective benchmark takes in lockstep, apart from what it runs:
// set-up, the samples (rank 0's harness chooses the operations per sample and when to stop,
// and rank 0 tells the others before each call), verification. A step that fails on any rank fails on
// every rank with that rank's reason, so that no rank waits in a collective the others left.
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "benches/collective/bootstrap.h"
#include "harness/core/batching.h"

namespace gpubench::collective {

// One rank's side of a collective: NCCL on its GPUs (nccl_engine.h) or a fake in the tests.
class RankEngine {
 public:
  virtual ~RankEngine() = default;
  virtual void prepare() = 0;       // buffers allocated and filled
  virtual double run(int ops) = 0;  // seconds `ops` collectives took on this rank's slowest GPU
  // Host seconds from enqueueing `ops` collectives on idle GPUs to their completion (nccl-tests' timer).
  virtual double run_host(int ops) = 0;
  virtual long long check() = 0;    // fresh inputs, one collective, its wrong elements
};

// The harness's measured region, called on rank 0 only (State::measure_batched).
using Measure = std::function<void(const std::function<double(int ops)>& run, const BatchRule& rule)>;

struct DriveSettings {
  double sample_target_s = 1e-3;  // a sample lasts about this long...
  // ...with at most this many collectives in it: a sample is queued whole behind the blocking
  // kernel, and more calls could fill the launch queue (about 1024 entries) and block the host
  int max_ops = 256;
  int probes = 3;  // single collectives timed to choose the batch: one slow call would halve it
  // After each call (probes and warm-up included, whose figures the harness drops) this many
  // collectives are also host-timed, as nccl-tests' default -n 20 does; 0: none. The family
  // decides by the message, never by the batch, so that every run of a benchmark has the figure
  // or none has.
  int host_ops = 20;
};

struct DriveOutcome {
  int ops_per_sample = 1;              // of the last sample
  long long wrong = 0;                 // wrong elements over every rank
  std::vector<long long> wrong_by_rank;  // rank 0 only
};

// Throws std::runtime_error with the failing ranks' reasons.
// `on_sample` gets the slowest rank's event time of `ops` collectives and, where host_ops > 0,
// its host seconds per collective (else 0).
using OnSample = std::function<void(double slowest_s, int ops, double host_s_per_op)>;
DriveOutcome drive(Bootstrap& bootstrap, RankEngine& engine, const DriveSettings& settings, const OnSample& on_sample,
                   const Measure& measure);

// Waits until `done()` is true; past `timeout_s` calls `abort()` once and throws
// CollectiveHung. A collective that never completes leaves its communicator unusable, so
// aborting it is the only way its peers stop waiting too.
struct CollectiveHung : std::runtime_error {
  using std::runtime_error::runtime_error;
};
void wait_or_abort(const std::function<bool()>& done, double timeout_s, const std::function<void()>& abort);

}  // namespace gpubench::collective
