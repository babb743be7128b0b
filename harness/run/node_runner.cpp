#include "harness/run/node_runner.h"

#include <thread>

#include "harness/core/node_barrier.h"
#include "harness/report/node_figures.h"
#include "harness/run/runner.h"

namespace gpubench {
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
    nlohmann::json node = {{"gpus", gpus}};
    if (results[lane].status == Status::kOk && !peers.empty()) {
      node["overlap_pct"] = overlap_pct(spans[lane], peers);
      node["overlap_method"] = kOverlapMethod;
    }
    results[lane].notes["node"] = std::move(node);
  }
  return results;
}

}  // namespace gpubench
