#pragma once
// Node mode (DESIGN.md, "Measurement rules"): one thread per GPU runs the same benchmark, and
// each sample starts on every GPU together, so the timed regions overlap and the GPUs contend
// for what they share (PCIe switches, host memory, power). The barrier every sample passes:
// a condition-variable barrier rather than std::barrier, so that a peer that fails breaks it
// for the others and a peer that hangs cannot hold them past a timeout.
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/core/node_lane.h"

namespace gpubench {

// Thrown from NodeBarrier::arrive when the node's run cannot go on together.
struct NodeStopped : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class NodeBarrier {
 public:
  // `lanes` threads take part, one per GPU (named in messages by `names`); a wait longer than
  // `timeout_s` for the last peer ends the run together.
  NodeBarrier(std::vector<std::string> names, double timeout_s);

  // Waits until every lane still taking part has arrived. `continuing`: this lane's stopping
  // rule wants another sample. Returns whether any lane wants one: the samples stop together,
  // and a lane whose rule was met keeps sampling beside the others (its figures still measured
  // under the whole node's load). Throws NodeStopped when a lane failed (break) or a peer did
  // not arrive within the timeout (naming it), and thereafter to every lane.
  bool arrive(int lane, bool continuing);
  // `lane` has finished its benchmark: the others no longer wait for it.
  void leave(int lane);
  // `lane` failed: every wait, now or later, throws NodeStopped with `why`.
  void fail(int lane, const std::string& why);

 private:
  // Ends the round when every active lane has arrived (the caller holds the mutex).
  bool complete_round();
  std::string missing_lanes() const;  // the lanes not yet arrived in this round, for messages

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> names_;
  std::vector<bool> active_, arrived_;
  double timeout_s_;
  long long round_ = 0;
  bool any_continuing_ = false, last_round_continuing_ = false;
  std::string broken_;
};

}  // namespace gpubench
