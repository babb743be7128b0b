#include "harness/report/results_table.h"

namespace gpubench {
namespace {

class MarkdownReporter : public ResultsTableReporter {
 public:
  using ResultsTableReporter::ResultsTableReporter;

 protected:
  std::string render(const TextTable& table, const std::string& summary) const override {
    return table.to_markdown() + "\n" + summary + "\n";
  }
};

}  // namespace

std::unique_ptr<Reporter> markdown_reporter(std::ostream& out) { return std::make_unique<MarkdownReporter>(out); }

}  // namespace gpubench
