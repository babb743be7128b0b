#pragma once
// The charts of the HTML report as data (chart_data.cpp draws them from a run): the rules every
// suite declares beside its families (benches/<suite>/suite.cpp, harness/model/suite.h), in
// the suites' order.
#include <string>
#include <vector>

#include "harness/model/suite.h"

namespace gpubench {

const std::vector<CurveRule>& curve_rules();
const std::vector<BarRule>& bar_rules();
const std::vector<TraceRule>& trace_rules();
// The suite a rule's family belongs to: "memory" of "memory/stream".
std::string suite_of_family(const std::string& family);

}  // namespace gpubench
