#include <stdexcept>

#include "harness/core/state.h"

namespace gpubench {

void State::tune(const std::vector<TuneCandidate>&, std::size_t) {
  throw std::logic_error("State::tune: not implemented in this build");
}

}  // namespace gpubench
