#pragma once
// The policies of scenarios/work_split on a simulated clock, GPU-free (tested on the CPU): one
// total of equal work items over lanes (GPUs, or streams standing in for them) that take their
// own time per item. Static: each lane gets an equal contiguous share up front, as a
// data-parallel job splits a batch. Queue: a lane takes the next item when it has finished one,
// paying a dispatch cost per item, as a work queue or a data loader hands work out.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpubench::scenarios {

enum class SplitPolicy { kStatic, kQueue };

inline SplitPolicy parse_split_policy(const std::string& name) {
  if (name == "static") return SplitPolicy::kStatic;
  if (name == "queue") return SplitPolicy::kQueue;
  throw std::invalid_argument("unknown split policy '" + name + "' (static, queue)");
}

struct SplitOutcome {
  double makespan_s = 0;
  std::vector<double> lane_busy_s;  // time each lane spent on its items
  std::vector<int> lane_items;
};

// Items per lane under the static policy: equal shares, the remainder one each to the first lanes.
inline std::vector<int> static_shares(int items, int lanes) {
  std::vector<int> shares(lanes, items / lanes);
  for (int i = 0; i < items % lanes; ++i) ++shares[i];
  return shares;
}

// `item_s[i]`: lane i's seconds per item. The queue hands each item to the lane free first (the
// lowest-numbered on a tie), which then works it after `dispatch_s`.
inline SplitOutcome simulate_split(SplitPolicy policy, int items, const std::vector<double>& item_s,
                                   double dispatch_s) {
  const int lanes = static_cast<int>(item_s.size());
  SplitOutcome out;
  if (lanes == 0) return out;
  out.lane_busy_s.assign(lanes, 0);
  out.lane_items.assign(lanes, 0);
  std::vector<double> free_at(lanes, 0);
  if (policy == SplitPolicy::kStatic) {
    out.lane_items = static_shares(items, lanes);
    for (int i = 0; i < lanes; ++i) free_at[i] = out.lane_busy_s[i] = out.lane_items[i] * item_s[i];
  } else {
    for (int item = 0; item < items; ++item) {
      const int lane = static_cast<int>(std::min_element(free_at.begin(), free_at.end()) - free_at.begin());
      free_at[lane] += dispatch_s + item_s[lane];
      out.lane_busy_s[lane] += item_s[lane];
      ++out.lane_items[lane];
    }
  }
  out.makespan_s = *std::max_element(free_at.begin(), free_at.end());
  return out;
}

// The share of the lanes' time spent working: busy over lanes x makespan.
inline double efficiency_pct(const SplitOutcome& out) {
  double busy = 0;
  for (double b : out.lane_busy_s) busy += b;
  return out.makespan_s > 0 ? 100.0 * busy / (out.lane_busy_s.size() * out.makespan_s) : 0;
}

// Each lane's idle time as a share of the makespan.
inline std::vector<double> idle_pct(const SplitOutcome& out) {
  std::vector<double> idle;
  for (double b : out.lane_busy_s) idle.push_back(out.makespan_s > 0 ? 100.0 * (out.makespan_s - b) / out.makespan_s : 0);
  return idle;
}

}  // namespace gpubench::scenarios
