#include "benches/conv/engine_choice.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gpubench::conv {

bool engine_allowed(Precision precision, const std::vector<cudnnBackendNumericalNote_t>& notes) {
  auto has = [&](cudnnBackendNumericalNote_t note) { return std::find(notes.begin(), notes.end(), note) != notes.end(); };
  if (has(CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS)) return false;
  return precision != Precision::kFp32 || !has(CUDNN_NUMERICAL_NOTE_TENSOR_CORE);
}

std::vector<std::size_t> fastest_plans(const std::vector<double>& seconds, std::size_t count,
                                       std::optional<std::size_t> also) {
  std::vector<std::size_t> order(seconds.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return seconds[a] < seconds[b]; });
  order.resize(std::min(count, order.size()));
  order.erase(std::remove_if(order.begin(), order.end(), [&](std::size_t i) { return !std::isfinite(seconds[i]); }),
              order.end());
  if (also && *also < seconds.size() && std::isfinite(seconds[*also]) &&
      std::find(order.begin(), order.end(), *also) == order.end())
    order.push_back(*also);
  std::sort(order.begin(), order.end());
  return order;
}

}  // namespace gpubench::conv
