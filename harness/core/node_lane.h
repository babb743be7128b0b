#pragma once
// What a State needs to know of node mode (node_barrier.h): which lane of which barrier its
// samples pass, and where their spans on the host clock go.
#include <vector>

#include "harness/model/clock_span.h"

namespace gpubench {

class NodeBarrier;

struct NodeLane {
  NodeBarrier* barrier = nullptr;  // null: not in node mode
  int lane = 0;
  std::vector<ClockSpan>* spans = nullptr;
};

}  // namespace gpubench
