#include "harness/report/reporter.h"

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

std::unique_ptr<Reporter> make_reporter(Format format, std::ostream& out) {
  switch (format) {
    case Format::kTable: return table_reporter(out);
    case Format::kJson: return json_reporter(out);
    case Format::kCsv: return csv_reporter(out);
    case Format::kMarkdown: return markdown_reporter(out);
  }
  return table_reporter(out);
}

}  // namespace gpubench
