// The collective suite as the harness knows it without its families: its place among the suites
// and its report charts (bus bandwidth per collective against message size, and the algorithm
// bandwidth where a run has no bus figure).
#include <string>

#include "harness/model/suite.h"

namespace {

using gpubench::AxisFormat;
using gpubench::CurveRule;

std::vector<CurveRule> collective_curves() {
  std::vector<CurveRule> out;
  for (const std::string family : {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "sendrecv"}) {
    const std::string id = "collective-" + family;
    std::map<std::string, std::string> fixed = {{"place", "out"}};
    if (family == "all_reduce") fixed["redop"] = "sum";  // the only one with a redop axis
    out.push_back({id, family + ": bus bandwidth", "collective/" + family, "bytes", "message size", "bus bandwidth (GB/s)",
                   {{"busbw_gbps", ""}}, fixed, {"type"}, AxisFormat::kBytes, true, false, ""});
    // One rank moves nothing over a bus: its files carry the algorithm bandwidth alone.
    out.push_back({id + "-algbw", family + ": algorithm bandwidth (no bus figure in this run)", "collective/" + family,
                   "bytes", "message size", "algorithm bandwidth (GB/s)", {{"algbw_gbps", ""}}, fixed, {"type"},
                   AxisFormat::kBytes, false, false, id});
  }
  return out;
}

const bool declared = gpubench::declare_suite({"collective", 70, false, collective_curves(), {}, {}, {}});

}  // namespace
