#include "harness/core/batching.h"

#include <algorithm>
#include <cmath>

namespace gpubench {

int batch_size(double op_s, double target_s, int max_ops) {
  if (!(op_s > 0)) return 1;
  const double wanted = std::ceil(target_s / op_s);
  return static_cast<int>(std::clamp(wanted, 1.0, static_cast<double>(std::max(max_ops, 1))));
}

int probe_batch(const std::function<double(int ops)>& run, const BatchRule& rule, double default_target_s) {
  const double target_s = rule.target_s.value_or(default_target_s);
  const int probe_ops = std::max(rule.probe_ops, 1);
  double op_s = run(probe_ops) / probe_ops;
  for (int i = 1; i < rule.probes; ++i) op_s = std::min(op_s, run(probe_ops) / probe_ops);
  const int ops = batch_size(op_s, target_s, rule.max_ops);
  return rule.refine ? batch_size(run(ops) / ops, target_s, rule.max_ops) : ops;
}

}  // namespace gpubench
