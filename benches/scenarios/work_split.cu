// scenarios/work_split: are the GPUs waiting on each other? One total of compute work split over
// lanes in equal static shares or handed out from a shared queue, with one lane slower or not.
// Several GPUs: a lane per GPU. One GPU: four streams stand in for GPUs, each item a quarter of
// the SMs, and the results say so.
#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <thread>
#include <vector>

#include "benches/scenarios/split_policy.h"
#include "harness/core/gpubench.h"
#include "harness/core/streams.h"
#include "kernels/fma_chain.cuh"

namespace {

using namespace gpubench;
using scenarios::SplitPolicy;

constexpr int kItems = 64;
constexpr int kChain = 1 << 17;  // about 0.5 ms an item on an H200 SM holding one 1024-thread block
constexpr int kBlock = 1024;
constexpr int kSimulatedLanes = 4;
constexpr int kSlowFactor = 2;   // imbalance slow_lane: lane 0's items are this many times longer

struct Lane {
  int device = 0;
  cudaStream_t stream = nullptr;
  int grid = 0, chain = kChain;
  DeviceBuffer out;
  std::vector<cudaEvent_t> starts, ends;  // one pair per item the lane works in a sample
  std::size_t used = 0;                   // pairs used in the current sample
};

class SplitLanes {
 public:
  SplitLanes(State& s, bool slow_lane) {
    const std::vector<int>& devices = s.devices();
    const bool simulated = devices.size() < 2;
    const int count = simulated ? kSimulatedLanes : static_cast<int>(devices.size());
    for (int i = 0; i < count; ++i) {
      Lane lane;
      lane.device = simulated ? s.device() : devices[i];
      GPUBENCH_CUDA(cudaSetDevice(lane.device));
      if (simulated && i > 0) owned_.push_back(std::make_unique<OwnedStream>());
      lane.stream = simulated && i > 0 ? owned_.back()->get() : worker_stream(lane.device);
      lane.grid = s.gpu(lane.device).sm_count / (simulated ? kSimulatedLanes : 1);
      lane.chain = slow_lane && i == 0 ? kSlowFactor * kChain : kChain;
      lane.out = DeviceBuffer(static_cast<std::size_t>(lane.grid) * kBlock * sizeof(float));
      for (int k = 0; k < kItems; ++k) {
        lane.starts.push_back(nullptr);
        lane.ends.push_back(nullptr);
        GPUBENCH_CUDA(cudaEventCreate(&lane.starts.back()));
        GPUBENCH_CUDA(cudaEventCreate(&lane.ends.back()));
      }
      lanes_.push_back(std::move(lane));
    }
    GPUBENCH_CUDA(cudaSetDevice(s.device()));
    s.note("lanes", simulated ? std::to_string(kSimulatedLanes) + " streams sharing gpu" + std::to_string(s.device()) +
                                    ", each item on 1/" + std::to_string(kSimulatedLanes) +
                                    " of its SMs: simulated GPUs"
                              : std::to_string(count) + " GPUs, a lane each");
  }
  ~SplitLanes() {
    for (Lane& lane : lanes_)
      for (std::size_t k = 0; k < lane.starts.size(); ++k) cudaEventDestroy(lane.starts[k]), cudaEventDestroy(lane.ends[k]);
  }

  // One sample: every item worked under `policy`; the makespan, by the host clock from the
  // first item queued to the last finished (lanes of several GPUs share no GPU clock).
  double run(SplitPolicy policy) {
    for (Lane& lane : lanes_) lane.used = 0;
    const auto start = std::chrono::steady_clock::now();
    if (policy == SplitPolicy::kStatic) {
      const std::vector<int> shares = scenarios::static_shares(kItems, static_cast<int>(lanes_.size()));
      for (int k = 0; k < kItems; ++k)  // item k of every lane in turn, so that every lane starts at once
        for (std::size_t l = 0; l < lanes_.size(); ++l)
          if (k < shares[l]) queue_item(lanes_[l]);
      for (Lane& lane : lanes_) GPUBENCH_CUDA(cudaStreamSynchronize(lane.stream));
    } else {
      std::atomic<int> next{0};
      std::vector<std::exception_ptr> errors(lanes_.size());
      std::vector<std::thread> workers;
      for (std::size_t l = 0; l < lanes_.size(); ++l)
        workers.emplace_back([&next, &errors, l, lane = &lanes_[l]] {
          try {
            GPUBENCH_CUDA(cudaSetDevice(lane->device));
            while (next.fetch_add(1) < kItems) {
              queue_item(*lane);
              GPUBENCH_CUDA(cudaEventSynchronize(lane->ends[lane->used - 1]));
            }
          } catch (...) {
            errors[l] = std::current_exception();
            next = kItems;  // the other lanes stop after their item in hand
          }
        });
      for (std::thread& worker : workers) worker.join();
      for (const std::exception_ptr& error : errors)
        if (error) std::rethrow_exception(error);
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // The sample's outcome: each lane's items and the GPU time they took (events).
  scenarios::SplitOutcome outcome(double makespan_s) const {
    scenarios::SplitOutcome out;
    out.makespan_s = makespan_s;
    for (const Lane& lane : lanes_) {
      double busy = 0;
      for (std::size_t k = 0; k < lane.used; ++k) {
        float ms = 0;
        GPUBENCH_CUDA(cudaEventElapsedTime(&ms, lane.starts[k], lane.ends[k]));
        busy += ms * 1e-3;
      }
      out.lane_busy_s.push_back(busy);
      out.lane_items.push_back(static_cast<int>(lane.used));
    }
    return out;
  }

  std::string check() const {
    std::size_t wrong = 0;
    for (const Lane& lane : lanes_) {
      GPUBENCH_CUDA(cudaSetDevice(lane.device));
      wrong += kernels::count_fma_chain_mismatches(lane.out.as<float>(), lane.out.bytes() / sizeof(float), lane.chain, 16);
    }
    return wrong == 0 ? "" : std::to_string(wrong) + " sampled threads end their chain elsewhere than the CPU";
  }

 private:
  static void queue_item(Lane& lane) {
    GPUBENCH_CUDA(cudaEventRecord(lane.starts[lane.used], lane.stream));
    kernels::launch_fma_chain(lane.out.as<float>(), lane.grid, kBlock, 0, lane.chain, lane.stream);
    GPUBENCH_CHECK_LAUNCH();
    GPUBENCH_CUDA(cudaEventRecord(lane.ends[lane.used], lane.stream));
    ++lane.used;
  }

  std::vector<std::unique_ptr<OwnedStream>> owned_;
  std::vector<Lane> lanes_;
};

void run_work_split(State& s) {
  const SplitPolicy policy = scenarios::parse_split_policy(s.get_str("policy"));
  SplitLanes lanes(s, s.get_str("imbalance") == "slow_lane");
  s.report_time_as("makespan_ms", "ms", 1e3);
  s.set_primary_metric("makespan_ms");
  s.declare_metric("efficiency_pct", "%", true);
  s.declare_metric("max_idle_pct", "%", false);
  s.declare_metric("ideal_efficiency_pct", "%", true);
  // measure_manual: a sample is the whole split, kItems items over every lane; the items are the
  // work, not a batch.
  s.measure_manual([&] {
    const double makespan = lanes.run(policy);
    const scenarios::SplitOutcome measured = lanes.outcome(makespan);
    std::vector<double> item_s;
    for (std::size_t l = 0; l < measured.lane_busy_s.size(); ++l)
      item_s.push_back(measured.lane_items[l] ? measured.lane_busy_s[l] / measured.lane_items[l] : 0);
    const std::vector<double> idle = scenarios::idle_pct(measured);
    s.record("efficiency_pct", scenarios::efficiency_pct(measured));
    s.record("max_idle_pct", *std::max_element(idle.begin(), idle.end()));
    // The same lanes' item times on a simulated clock without dispatch or launch costs.
    s.record("ideal_efficiency_pct", scenarios::efficiency_pct(scenarios::simulate_split(policy, kItems, item_s, 0)));
    return makespan;
  });
  const std::string problem = lanes.check();
  s.verify(problem.empty(), problem);
}

const auto& work_split_family =
    family("scenarios/work_split")
        .describe("64 equal work items (a 1024-thread block per SM running 131072 dependent FP32 FMAs per thread, "
                  "about 0.5 ms on an H200) over lanes: a lane per selected GPU, or with one GPU four streams "
                  "standing in for GPUs, an item on a quarter of the SMs (notes.lanes says which). policy static: "
                  "equal contiguous shares queued up front; queue: each lane's host thread takes the next item "
                  "when its last has finished. imbalance slow_lane: lane 0's items take twice as long (a slower or "
                  "throttled GPU). makespan_ms: host clock from the first item queued to the last finished; "
                  "efficiency_pct: the lanes' GPU time (events around each item) over lanes x makespan; "
                  "max_idle_pct: the idlest lane's share of the makespan without work; ideal_efficiency_pct: the "
                  "policy on a simulated clock with the measured item times and no dispatch cost")
        .axis_str("policy", {"static", "queue"}, {"queue"})
        .axis_str("imbalance", {"none", "slow_lane"}, {"slow_lane"})
        .run(run_work_split);

}  // namespace
