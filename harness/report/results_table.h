#pragma once
// What the table, CSV and markdown reporters share: the rows they show and the summary line.
#include <string>
#include <vector>

#include "harness/report/reporter.h"
#include "harness/model/text_table.h"

namespace gpubench {

// Collects one row per result and renders them when the run finishes.
class ResultsTableReporter : public Reporter {
 public:
  explicit ResultsTableReporter(std::ostream& out);
  void result(const BenchResult& result) override;
  void finish(const RunDocument& document) override;

 protected:
  // The rendering of the whole table and of the summary ("2 ok, 1 failed, 0 skipped").
  virtual std::string render(const TextTable& table, const std::string& summary) const = 0;

 private:
  std::ostream& out_;
  TextTable table_;
  std::vector<BenchResult> finding_inputs_;  // the results a suite's finding rule reads
  int ok_ = 0, failed_ = 0, skipped_ = 0, throttled_ = 0;
};

}  // namespace gpubench
