#pragma once
// What a set of runs holds, by suite and family: what the entries of a tolerance or baseline
// file are held to. With no registry of families in the analysis layer, "a metric no family
// has" is judged against the runs an entry is applied to.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness/model/result_file.h"

namespace gpubench {

struct Holdings {
  bool measured = false;          // some benchmark is ok: its metrics are known
  // Some benchmark failed, timed out or was interrupted: which metrics it would have had is
  // unknown, so an entry's metric cannot be judged against these holdings.
  bool broken = false;
  std::set<std::string> metrics;  // of the ok benchmarks
  std::set<std::string> axes;     // the axis names in the benchmarks' names
};

struct RunInventory {
  std::map<std::string, Holdings> suites, families;  // every benchmark's, ok or not
  Holdings all;
};
RunInventory inventory_of(const std::vector<const ResultFile*>& runs);

// Adds a benchmark's metrics (if it is ok) and axis names to `holdings`.
void add_holdings(Holdings& holdings, const BenchmarkResult& benchmark);

// "a, b, c": a set in messages.
std::string listed(const std::set<std::string>& items);

}  // namespace gpubench
