#include "harness/report/result.h"

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

nlohmann::json to_json(const BenchResult& result) {
  nlohmann::json metrics = nlohmann::json::object();
  for (const auto& [name, metric] : result.metrics) {
    const Summary s = metric.summary();
    metrics[name] = {{"unit", metric.unit},
                     {"better", metric.higher_is_better ? "higher" : "lower"},
                     {"median", s.median}, {"mean", s.mean}, {"min", s.min}, {"max", s.max},
                     {"stddev", s.stddev}, {"cv_pct", s.cv_pct}, {"samples", s.samples},
                     {"values", metric.values}};
  }
  const auto pct = result.pct_of_peak();
  nlohmann::json gpubench = {
      {"suite", result.suite}, {"family", result.family}, {"params", result.params},
      {"status", to_string(result.status)}, {"error", result.error}, {"verified", result.verified},
      {"primary_metric", result.primary_metric}, {"metrics", metrics},
      {"pct_of_peak", pct ? nlohmann::json(*pct) : nlohmann::json(nullptr)},
      {"peak", result.peak ? nlohmann::json(*result.peak) : nlohmann::json(nullptr)},
      {"peak_source", result.peak_source}, {"ops_per_sample", result.ops_per_sample},
      {"telemetry", result.telemetry}, {"notes", result.notes}};
  if (!result.choice.is_null()) gpubench["choice"] = result.choice;

  // Google Benchmark's per-run fields; real_time is the median time of one operation.
  double time_ns = 0;
  if (auto t = result.metrics.find("time_us"); t != result.metrics.end() && !t->second.values.empty())
    time_ns = t->second.summary().median * 1e3;
  nlohmann::json entry = {{"name", result.name}, {"run_name", result.name}, {"run_type", "iteration"},
                          {"repetitions", result.repetitions},
                          {"repetition_index", result.repetition_index}, {"threads", 1},
                          {"iterations", result.iterations}, {"real_time", time_ns},
                          {"cpu_time", time_ns}, {"time_unit", "ns"}};
  if (result.status != Status::kOk) entry["error_occurred"] = true, entry["error_message"] = result.error;
  for (const auto& [name, metric] : result.metrics)
    if (!metric.values.empty()) entry[name] = metric.summary().median;
  entry["gpubench"] = std::move(gpubench);
  return entry;
}

BenchResult result_from_json(const nlohmann::json& entry) {
  BenchResult result;
  const auto& g = entry.at("gpubench");
  result.name = entry.at("name").get<std::string>();
  result.suite = g.at("suite").get<std::string>();
  result.family = g.at("family").get<std::string>();
  result.params = g.value("params", nlohmann::json::object());
  result.status = status_from_string(g.at("status").get<std::string>());
  result.error = g.value("error", "");
  result.verified = g.value("verified", false);
  result.repetition_index = entry.value("repetition_index", 0);
  result.repetitions = entry.value("repetitions", 1);
  result.iterations = entry.value("iterations", 0LL);
  result.ops_per_sample = g.value("ops_per_sample", 1);
  result.primary_metric = g.value("primary_metric", "");
  const nlohmann::json metrics = g.value("metrics", nlohmann::json::object());  // items() must not see a temporary
  for (const auto& [name, m] : metrics.items()) {
    Metric metric;
    metric.unit = m.value("unit", "");
    metric.higher_is_better = m.value("better", "higher") == "higher";
    metric.values = m.value("values", std::vector<double>{});
    result.metrics[name] = std::move(metric);
  }
  if (g.contains("peak") && g["peak"].is_number()) result.peak = g["peak"].get<double>();
  result.peak_source = g.value("peak_source", "");
  result.telemetry = g.value("telemetry", nlohmann::json::object());
  result.notes = g.value("notes", nlohmann::json::object());
  result.choice = g.value("choice", nlohmann::json());
  return result;
}

}  // namespace gpubench
