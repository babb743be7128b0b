// The run as tidy data: one row per benchmark entry (each repetition) and metric, the axes one
// column each (the union over the run), figures as plain numbers at full precision, so that a
// data frame reads it with no cleaning. An entry with no figure (failed, skipped) is one row
// with its status and empty figures.
#include <algorithm>
#include <ostream>

#include "harness/report/reporter.h"
#include "harness/model/text_table.h"

namespace gpubench {
namespace {

std::string param_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::vector<std::string> axes_of(const std::vector<BenchResult>& results) {
  std::vector<std::string> axes;
  for (const BenchResult& r : results)
    for (const auto& [axis, value] : r.params.items())
      if (axis != "gpu" && std::find(axes.begin(), axes.end(), axis) == axes.end()) axes.push_back(axis);
  return axes;
}

// The entry's GPU index and UUID, from its `gpu:gpuN` axis; empty for a node or pair figure.
std::pair<std::string, std::string> gpu_of(const BenchResult& r, const Context& context) {
  const auto gpu = r.params.find("gpu");
  if (gpu == r.params.end() || !gpu->is_string() || gpu->get<std::string>().rfind("gpu", 0) != 0) return {"", ""};
  const std::string index = gpu->get<std::string>().substr(3);
  for (const GpuInfo& info : context.gpus)
    if (std::to_string(info.index) == index) return {index, info.uuid};
  return {index, ""};
}

const std::vector<std::string> kFrontColumns = {"run_id", "host", "gpu_index", "gpu_uuid", "suite", "family", "repetition"};
const std::vector<std::string> kFigureColumns = {"metric", "unit",    "median",  "mean",   "min",        "max",
                                                 "stddev", "cv_pct", "samples", "status", "verified", "pct_of_peak", "error"};

// An axis named as a fixed column (transfer's `host`) gets "param_" before it.
std::string axis_column(const std::string& axis) {
  const bool taken = std::find(kFrontColumns.begin(), kFrontColumns.end(), axis) != kFrontColumns.end() ||
                     std::find(kFigureColumns.begin(), kFigureColumns.end(), axis) != kFigureColumns.end();
  return taken ? "param_" + axis : axis;
}

std::string tidy_csv(const RunDocument& doc) {
  const std::vector<std::string> axes = axes_of(doc.results);
  TextTable table;
  table.header = kFrontColumns;
  for (const std::string& axis : axes) table.header.push_back(axis_column(axis));
  table.header.insert(table.header.end(), kFigureColumns.begin(), kFigureColumns.end());
  for (const BenchResult& r : doc.results) {
    const auto [gpu_index, gpu_uuid] = gpu_of(r, doc.context);
    std::vector<std::string> front = {doc.host.date, doc.host.host_name, gpu_index, gpu_uuid, r.suite,
                                      r.family.substr(r.family.find('/') + 1), std::to_string(r.repetition_index)};
    for (const std::string& axis : axes) front.push_back(r.params.contains(axis) ? param_text(r.params[axis]) : "");
    const std::string status = to_string(r.status), verified = r.verified ? "true" : "false";
    if (r.status != Status::kOk || r.metrics.empty()) {
      std::vector<std::string> row = front;
      row.insert(row.end(), {"", "", "", "", "", "", "", "", "0", status, verified, "", r.error});
      table.rows.push_back(row);
      continue;
    }
    for (const auto& [name, metric] : r.metrics) {
      const Summary s = metric.summary();
      const auto pct = name == r.primary_metric ? r.pct_of_peak() : std::nullopt;
      std::vector<std::string> row = front;
      row.insert(row.end(), {name, metric.unit, csv_number(s.median), csv_number(s.mean), csv_number(s.min),
                             csv_number(s.max), csv_number(s.stddev), csv_number(s.cv_pct),
                             std::to_string(s.samples), status, verified, pct ? csv_number(*pct) : "", r.error});
      table.rows.push_back(row);
    }
  }
  return table.to_csv();
}

class CsvReporter : public Reporter {
 public:
  explicit CsvReporter(std::ostream& out) : out_(out) {}
  void finish(const RunDocument& document) override { out_ << tidy_csv(document) << std::flush; }

 private:
  std::ostream& out_;
};

}  // namespace

std::unique_ptr<Reporter> csv_reporter(std::ostream& out) { return std::make_unique<CsvReporter>(out); }

}  // namespace gpubench
