// libFuzzer target: arbitrary bytes as a result file. Loading must either succeed or throw
// UsageError (exit 2 with a message); anything else (another exception, a sanitizer report,
// a hang) is a bug. A document that loads is then judged (judgeable.h) and put through what
// compare, fleet, baseline and check do with it, as the commands do.
#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/analysis/baseline.h"
#include "harness/analysis/check.h"
#include "harness/analysis/compare.h"
#include "harness/analysis/fleet.h"
#include "harness/analysis/judgeable.h"
#include "harness/model/result_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpubench;
  const std::string text(reinterpret_cast<const char*>(data), size);
  ResultFile run;
  try {
    run = parse_result_text(text, "fuzz.json");
  } catch (const UsageError&) {
    return 0;
  }
  judge_run(run);
  try {
    const Comparison comparison = compare_runs(run, run, CompareOptions{});
    for (const char* format : {"table", "json"}) render_comparison(comparison, format);
  } catch (const UsageError&) {
    // two runs with no benchmark in common (none at all): compare's exit 2, which is correct
  }
  const FleetReport fleet = compare_fleet({run, run, run}, FleetOptions{});
  for (const char* format : {"table", "json"}) render_fleet(fleet, format);
  try {
    const Baseline baseline = make_baseline({run}, 5, "");
    verify_applies_to(baseline, run);
    render_check(check_run(baseline, run), "json");
  } catch (const UsageError&) {
    // no GPU in the context, mixed models, or a run that cannot be judged: refused, which is correct
  }
  return 0;
}
