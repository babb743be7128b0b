#pragma once
// The HTML report's table of every result of a run (html_report.h): one row per benchmark, its
// primary figure beside its noise, % of peak, status, verification and throttling, and, against
// a base run, compare's verdict. The table is plain HTML; the page's inline script only adds
// sorting (a click on a column's header) and a filter box, so that it reads with scripts off.
#include <map>
#include <string>

#include "harness/model/result_file.h"
#include "harness/model/run_document.h"

namespace gpubench {

struct ResultsTableInput {
  const RunDocument* document = nullptr;  // the repetitions, for what merging drops (verified)
  const ResultFile* figures = nullptr;
  // Against a base run: the verdict of each benchmark whose comparison is not "same".
  bool compared = false;
  const std::map<std::string, std::string>* verdicts = nullptr;
};

// <section id="results">: the table, each row with data-name (the benchmark) and each number
// cell with data-v (the full-precision value the sort uses).
std::string results_section(const ResultsTableInput& input);
// The inline script that sorts and filters the table.
const char* results_table_script();

}  // namespace gpubench
