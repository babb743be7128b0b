#include "benches/collective/driver.h"

#include <chrono>
#include <exception>
#include <stdexcept>
#include <thread>

#include "benches/collective/collective_model.h"
#include "harness/core/host_clock.h"

namespace gpubench::collective {
namespace {

// Before each call rank 0 sends the operations to run, or kStop.
constexpr const char* kStop = "0";

// Runs `step` on this rank, then fails every rank if it failed on any.
template <class Step>
void in_step(Bootstrap& bootstrap, const char* what, Step step) {
  std::string error;
  try {
    step();
  } catch (const std::exception& e) {
    error = e.what();
  }
  const std::string all = agree_on_errors(bootstrap, error);
  if (!all.empty()) throw std::runtime_error(std::string(what) + ": " + all);
}

void sample_as_leader(Bootstrap& bootstrap, const std::function<double(int)>& timed, const BatchRule& rule,
                      const Measure& measure) {
  try {
    measure(
        [&](int ops) {
          std::string go = std::to_string(ops);
          bootstrap.broadcast(go, 0);
          return timed(ops);
        },
        rule);
  } catch (...) {
    std::string stop = kStop;
    bootstrap.broadcast(stop, 0);
    throw;
  }
  std::string stop = kStop;
  bootstrap.broadcast(stop, 0);
}

void sample_as_follower(Bootstrap& bootstrap, const std::function<double(int)>& timed) {
  while (true) {
    std::string ops;
    bootstrap.broadcast(ops, 0);
    if (ops == kStop) return;
    timed(std::stoi(ops));
  }
}

}  // namespace

DriveOutcome drive(Bootstrap& bootstrap, RankEngine& engine, const DriveSettings& settings, const OnSample& on_sample,
                   const Measure& measure) {
  DriveOutcome outcome;
  in_step(bootstrap, "set-up", [&] { engine.prepare(); });
  // Loads NCCL's kernels and connects its channels, every rank failing together if one fails.
  in_step(bootstrap, "first collective", [&] { engine.run(1); });
  BatchRule rule;
  rule.target_s = settings.sample_target_s;
  rule.max_ops = settings.max_ops;
  rule.probes = settings.probes;
  const int host_ops = settings.host_ops;
  auto timed = [&](int ops) {
    outcome.ops_per_sample = ops;
    const double seconds = slowest(bootstrap, engine.run(ops));
    const double host_s = host_ops > 0 ? slowest(bootstrap, engine.run_host(host_ops)) / host_ops : 0;
    on_sample(seconds, ops, host_s);
    return seconds;
  };
  if (bootstrap.rank() == 0)
    sample_as_leader(bootstrap, timed, rule, measure);
  else
    sample_as_follower(bootstrap, timed);
  long long wrong = 0;
  in_step(bootstrap, "verification", [&] { wrong = engine.check(); });
  for (const auto& each : bootstrap.gather(std::to_string(wrong), 0)) {
    outcome.wrong_by_rank.push_back(std::stoll(each));
    outcome.wrong += outcome.wrong_by_rank.back();
  }
  return outcome;
}

void wait_or_abort(const std::function<bool()>& done, double timeout_s, const std::function<void()>& abort) {
  const double start = host_now_s();
  auto pause = std::chrono::microseconds(1);
  while (!done()) {
    if (host_now_s() - start > timeout_s) {
      abort();
      throw CollectiveHung("the collective did not complete within " + std::to_string(static_cast<int>(timeout_s)) +
                           " s; its communicators were aborted (a stuck communicator cannot be recovered in this "
                           "process: the benchmarks after it get new ones)");
    }
    std::this_thread::sleep_for(pause);
    if (pause < std::chrono::microseconds(200)) pause *= 2;
  }
}

}  // namespace gpubench::collective
