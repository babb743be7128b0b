#include "harness/report/results_table.h"

namespace gpubench {
namespace {

// Rows only: a summary line would be a malformed record to a CSV reader.
class CsvReporter : public ResultsTableReporter {
 public:
  using ResultsTableReporter::ResultsTableReporter;

 protected:
  std::string render(const TextTable& table, const std::string&) const override { return table.to_csv(); }
};

}  // namespace

std::unique_ptr<Reporter> csv_reporter(std::ostream& out) { return std::make_unique<CsvReporter>(out); }

}  // namespace gpubench
