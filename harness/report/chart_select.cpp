#include "harness/report/chart_select.h"

namespace gpubench {

bool in_family(const std::string& suite, const std::string& family, const std::string& wanted) {
  return family == wanted || suite + "/" + family == wanted;
}

bool holds_fixed(const BenchmarkResult& b, const std::map<std::string, std::string>& fixed) {
  for (const auto& [axis, value] : fixed) {
    const auto it = b.params.find(axis);
    if (it != b.params.end() && it->second != value) return false;
  }
  return true;
}

std::string param_or(const BenchmarkResult& b, const std::string& axis) {
  const auto it = b.params.find(axis);
  return it == b.params.end() ? "" : it->second;
}

std::vector<const BenchmarkResult*> select(const ResultFile* file, const std::string& family,
                                           const std::map<std::string, std::string>& fixed,
                                           const std::string& needed_axis, bool with_failed) {
  std::vector<const BenchmarkResult*> out;
  if (!file) return out;
  for (const BenchmarkResult& b : file->benchmarks)
    if ((b.ok() || (with_failed && b.status != Status::kSkipped)) && in_family(b.suite, b.family, family) &&
        holds_fixed(b, fixed) && b.params.count(needed_axis))
      out.push_back(&b);
  return out;
}

std::string verdict_of(const std::map<std::string, std::string>* verdicts, const std::string& name) {
  if (!verdicts) return "";
  const auto it = verdicts->find(name);
  return it == verdicts->end() ? "" : it->second;
}

}  // namespace gpubench
