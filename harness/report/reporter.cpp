#include "harness/report/reporter.h"

#include <algorithm>

namespace gpubench {

void MultiReporter::context(const RunDocument& document) {
  for (auto& r : reporters_) r->context(document);
}

void MultiReporter::result(const BenchResult& result) {
  for (auto& r : reporters_) r->result(result);
}

void MultiReporter::finish(const RunDocument& document) {
  for (auto& r : reporters_) r->finish(document);
}

bool MultiReporter::write_failed() const {
  return std::any_of(reporters_.begin(), reporters_.end(), [](const auto& r) { return r->write_failed(); });
}

bool is_prometheus_path(const std::string& path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".prom") == 0;
}

std::unique_ptr<Reporter> out_file_reporter(const std::string& path) {
  return is_prometheus_path(path) ? prometheus_file_reporter(path) : json_file_reporter(path);
}

std::unique_ptr<Reporter> make_reporter(Format format, std::ostream& out) {
  switch (format) {
    case Format::kTable: return table_reporter(out);
    case Format::kJson: return json_reporter(out);
    case Format::kCsv: return csv_reporter(out);
    case Format::kMarkdown: return markdown_reporter(out);
    case Format::kPrometheus: return prometheus_reporter(out);
  }
  return table_reporter(out);
}

}  // namespace gpubench
