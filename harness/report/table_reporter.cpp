#include "harness/report/results_table.h"

namespace gpubench {
namespace {

class TableReporter : public ResultsTableReporter {
 public:
  using ResultsTableReporter::ResultsTableReporter;

 protected:
  std::string render(const TextTable& table, const std::string& summary) const override {
    return table.to_text() + summary + "\n";
  }
};

}  // namespace

std::unique_ptr<Reporter> table_reporter(std::ostream& out) { return std::make_unique<TableReporter>(out); }

}  // namespace gpubench
