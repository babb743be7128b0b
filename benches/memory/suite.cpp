// The memory suite as the harness knows it without its families: its place among the suites
// and its report charts (HBM bandwidth and latency against the working set, the L2 marked).
#include "harness/model/suite.h"

namespace {

using gpubench::AxisFormat;

const bool declared = gpubench::declare_suite({
    "memory",
    10,
    false,
    {
      {"memory-stream", "HBM bandwidth against working set", "memory/stream", "array_bytes",
       "array size", "bandwidth (GB/s)", {{"bandwidth_gbps", ""}}, {}, {"op"}, AxisFormat::kBytes, true, true, ""},
      {"memory-latency", "Memory load latency against working set", "memory/latency",
       "working_set_bytes", "working set", "latency (ns)", {{"latency_ns", ""}}, {}, {}, AxisFormat::kBytes, false,
       true, ""},
    },
    {},
    {},
    {},
});

}  // namespace
