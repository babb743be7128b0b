#pragma once
// The run path shared by `gpubench --suite ...` and `gpubench check`: select families and
// instances, validate devices and inputs, run them under the supervisor, build the document.
#include <string>
#include <vector>

#include "harness/cli/commands.h"
#include "harness/cli/run_options.h"
#include "harness/report/reporter.h"
#include "harness/model/run_document.h"
#include "harness/run/interrupt.h"

namespace gpubench {

// Runs, streaming the document to `reporter` (context, each result, finish), and returns it;
// throws UsageError for bad input (exit 2) or no GPU (exit 3) before anything is measured.
// A signal that `interrupts` catches ends the run early: the document has what finished, the
// benchmark in progress as interrupted, `interrupted` set and `complete` false.
RunDocument execute_run(const RunOptions& options, const InterruptCatcher& interrupts, Reporter& reporter);
// What `list` prints: each family of `suites` (the visible ones when empty) with its axes as
// they expand, a --config file's overrides and axis documents applied, computed axes computed.
// as_json: a JSON array of {name, suite, description, axes: [{name, values, each_gpu, computed}]}.
std::string family_listing(const std::vector<std::string>& suites, const std::string& config_path, bool as_json = false);
// Parses --devices ("all" or "0,2") against the number of visible GPUs.
std::vector<int> parse_devices(const std::string& spec, int visible);

}  // namespace gpubench
