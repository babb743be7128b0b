#pragma once
// Whether a run can be judged (DESIGN.md, "Verdicts"): the one gate every verdict (check,
// compare, compare --fleet, baseline, report) puts its runs through before it judges them.
//
// Of the run as a whole, so that nothing in it can be judged:
//   - it did not finish (context.gpubench.complete is false) or a signal stopped it
//     (context.gpubench.interrupted);
//   - its GPU list names one GPU twice (an index, or a UUID).
// Of one benchmark, which is failed (status "failed", the reason its error), so that every
// verdict counts it as a failure; the run's figures stay readable around it:
//   - an ok figure that cannot be a measurement: a sample or median that is null or not
//     finite, a time, rate or ratio that is zero or negative (only a percentage may be), a
//     primary figure above its physical peak (plausibility.h), no figure at all;
//   - an entry twice with one repetition_index (a duplicated entry, not a repetition);
//   - a GPU in its name that the run's context does not list.
// Either kind is recorded in ResultFile::unjudgeable: compare, check and fleet fail on it and
// print it in their reports, report fails on it and shows it, and baseline refuses to write
// from such a run. Every kind is exit 1: the run was read, and it cannot pass.
#include <ostream>
#include <string>
#include <vector>

#include "harness/model/result_file.h"
#include "harness/model/run_document.h"

namespace gpubench {

// Decides, fails the benchmarks that cannot be judged and records every reason in
// run.unjudgeable (run-wide reasons first, then benchmarks in file order); returns them. A run
// already judged keeps its judgement.
const std::vector<UnjudgeableReason>& judge_run(ResultFile& run);

// load_result_file or result_file_of, then judge_run: how the commands read the runs they judge.
ResultFile load_judged_run(const std::string& path);
// load_judged_run of each path, two at a time (each on a thread of its own), in path order; a
// problem is the first path's in that order, as if they were read one after the other.
std::vector<ResultFile> load_judged_runs(const std::vector<std::string>& paths);
ResultFile judged_run(const RunDocument& document, const std::string& label);

// The reasons of these runs as lines (UnjudgeableReason::line), in run order.
std::vector<std::string> unjudgeable_lines(const std::vector<const ResultFile*>& runs);
// Each line on its own line of `out`, as a command says them on stderr before its verdict.
void print_unjudgeable(std::ostream& out, const std::vector<std::string>& lines);
// The block a report (compare, check, fleet) shows above its table, "" when there is no line;
// and what its summary line adds after "-> FAIL", " (cannot be judged: N reasons)".
std::string render_unjudgeable(const std::vector<std::string>& lines, bool markdown);
std::string unjudgeable_note(const std::vector<std::string>& lines);

}  // namespace gpubench
