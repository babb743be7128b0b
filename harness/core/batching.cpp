#include "harness/core/batching.h"

#include <algorithm>
#include <cmath>

namespace gpubench {

int batch_size(double op_s, double target_s, int max_ops) {
  if (!(op_s > 0)) return 1;
  const double wanted = std::ceil(target_s / op_s);
  return static_cast<int>(std::clamp(wanted, 1.0, static_cast<double>(std::max(max_ops, 1))));
}

}  // namespace gpubench
