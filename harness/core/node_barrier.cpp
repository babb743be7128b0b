#include "harness/core/node_barrier.h"

#include <algorithm>
#include <chrono>

#include "harness/model/number_text.h"

namespace gpubench {

NodeBarrier::NodeBarrier(std::vector<std::string> names, double timeout_s)
    : names_(std::move(names)), active_(names_.size(), true), arrived_(names_.size(), false), timeout_s_(timeout_s) {}

std::string NodeBarrier::missing_lanes() const {
  std::string missing;
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (active_[i] && !arrived_[i]) missing += (missing.empty() ? "" : ", ") + names_[i];
  return missing;
}

bool NodeBarrier::complete_round() {
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (active_[i] && !arrived_[i]) return false;
  last_round_continuing_ = any_continuing_;
  any_continuing_ = false;
  std::fill(arrived_.begin(), arrived_.end(), false);
  ++round_;
  changed_.notify_all();
  return true;
}

bool NodeBarrier::arrive(int lane, bool continuing) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!broken_.empty()) throw NodeStopped(broken_);
  arrived_[lane] = true;
  any_continuing_ = any_continuing_ || continuing;
  const long long round = round_;
  if (complete_round()) return last_round_continuing_;
  const bool done = changed_.wait_for(lock, std::chrono::duration<double>(timeout_s_),
                                      [&] { return round_ != round || !broken_.empty(); });
  if (round_ != round) return last_round_continuing_;
  if (!done) {
    broken_ = "node run stopped: " + missing_lanes() + " did not reach the sample barrier within " +
              significant_text(timeout_s_, 6) + " s";
    changed_.notify_all();
  }
  throw NodeStopped(broken_);
}

void NodeBarrier::leave(int lane) {
  std::lock_guard<std::mutex> lock(mutex_);
  active_[lane] = false;
  arrived_[lane] = false;
  // The lanes waiting may now be all there are.
  if (std::find(arrived_.begin(), arrived_.end(), true) != arrived_.end()) complete_round();
}

void NodeBarrier::fail(int lane, const std::string& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  active_[lane] = false;
  if (broken_.empty()) broken_ = "node run stopped: " + names_[lane] + " failed: " + why;
  changed_.notify_all();
}

}  // namespace gpubench
