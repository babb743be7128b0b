#include "harness/model/result.h"

#include <stdexcept>

namespace gpubench {

const char* to_string(Status status) {
  switch (status) {
    case Status::kOk: return "ok";
    case Status::kFailed: return "failed";
    case Status::kSkipped: return "skipped";
    case Status::kTimeout: return "timeout";
    case Status::kInterrupted: return "interrupted";
  }
  return "failed";
}

Status status_from_string(const std::string& text) {
  if (text == "ok") return Status::kOk;
  if (text == "failed") return Status::kFailed;
  if (text == "skipped") return Status::kSkipped;
  if (text == "timeout") return Status::kTimeout;
  if (text == "interrupted") return Status::kInterrupted;
  throw std::invalid_argument("unknown status '" + text + "'");
}

std::optional<double> BenchResult::pct_of_peak() const {
  const auto metric = metrics.find(primary_metric);
  if (!peak || *peak <= 0 || metric == metrics.end() || metric->second.values.empty()) return std::nullopt;
  return 100.0 * metric->second.summary().median / *peak;
}

bool BenchResult::throttled() const { return telemetry.value("throttled", false); }

}  // namespace gpubench
