#pragma once
// Stand-ins for NCCL and MPI in the collective suite's CPU tests: an engine whose times and
// wrong elements are set per rank, and a bootstrap whose ranks are threads of one process.
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "benches/collective/driver.h"

namespace gpubench::collective::testing {

struct FakeEngine : RankEngine {
  double op_s = 1e-5;
  double host_latency_s = 5e-6;  // what run_host adds to run
  long long wrong = 0;
  std::string fail_in;  // "prepare", "run" or "check": throws there; "hang": run never completes
  int runs = 0;
  int host_runs = 0;
  int aborts = 0;
  void prepare() override {
    if (fail_in == "prepare") throw std::runtime_error("out of memory");
  }
  double run(int ops) override {
    ++runs;
    if (fail_in == "run") throw std::runtime_error("NCCL error");
    if (fail_in == "hang") wait_or_abort([] { return false; }, 0.02, [this] { ++aborts; });
    return op_s * ops;
  }
  double run_host(int ops) override {
    ++host_runs;
    return op_s * ops + host_latency_s;
  }
  long long check() override {
    if (fail_in == "check") throw std::runtime_error("check failed to launch");
    return wrong;
  }
};

// Ranks are threads; every call is a collective over all of them, as MPI's are.
class ThreadWorld {
 public:
  explicit ThreadWorld(int size) : size_(size), slots_(static_cast<std::size_t>(size)) {}
  int size() const { return size_; }
  // Each rank deposits `mine`; once all have, each gets every rank's deposit.
  std::vector<std::string> exchange(int rank, const std::string& mine) {
    std::unique_lock<std::mutex> lock(mutex_);
    const long long round = round_;
    slots_[static_cast<std::size_t>(rank)] = mine;
    if (++arrived_ == size_) {
      result_ = slots_;
      arrived_ = 0;
      ++round_;
      changed_.notify_all();
    } else {
      changed_.wait(lock, [&] { return round_ != round; });
    }
    return result_;
  }

 private:
  int size_;
  std::vector<std::string> slots_, result_;
  int arrived_ = 0;
  long long round_ = 0;
  std::mutex mutex_;
  std::condition_variable changed_;
};

class ThreadBootstrap : public Bootstrap {
 public:
  ThreadBootstrap(ThreadWorld& world, int rank) : world_(world), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return world_.size(); }
  int local_rank() const override { return rank_; }
  void broadcast(std::string& data, int root) override {
    data = world_.exchange(rank_, data)[static_cast<std::size_t>(root)];
  }
  std::vector<std::string> gather(const std::string& mine, int root) override {
    auto all = world_.exchange(rank_, mine);
    if (rank_ != root) all.clear();
    return all;
  }

 private:
  ThreadWorld& world_;
  int rank_;
};

// A measured region like State::measure_batched's: the batch probed by the harness's rule, a
// warm-up sample, then `samples` more.
inline Measure fixed_samples(int samples, std::vector<double>& seen) {
  return [samples, &seen](const std::function<double(int)>& run, const BatchRule& rule) {
    const int ops = probe_batch(run, rule, 0);
    run(ops);
    for (int i = 0; i < samples; ++i) seen.push_back(run(ops));
  };
}

}  // namespace gpubench::collective::testing
