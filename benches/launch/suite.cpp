// The launch suite as the harness knows it without its families: its place among the suites
// and its report charts (launch cost of streams and graphs against the kernels per launch).
#include "harness/model/suite.h"

namespace {

using gpubench::AxisFormat;

const bool declared = gpubench::declare_suite({
    "launch",
    30,
    false,
    {
      {"launch-host", "Host launch cost per kernel: stream against graph", "launch/graph", "nodes",
       "kernels per launch (N)", "host time per kernel (µs)",
       {{"stream_host_enqueue_us", "stream enqueue"}, {"graph_host_launch_per_node_us", "graph launch"}},
       {{"process_streams", "1"}, {"arg_bytes", "0"}, {"work", "none"}}, {}, AxisFormat::kNumber, false, false, ""},
      {"launch-gpu", "GPU time per kernel: stream against graph", "launch/graph", "nodes",
       "kernels per launch (N)", "GPU time per kernel (µs)",
       {{"stream_gpu_time_per_kernel_us", "stream"}, {"gpu_time_per_node_us", "graph"}},
       {{"process_streams", "1"}, {"arg_bytes", "0"}, {"work", "none"}}, {}, AxisFormat::kNumber, false, false, ""},
      {"launch-streams", "Launch rate against streams", "launch/multi_stream", "streams", "streams",
       "launches per second", {{"launches_per_s", ""}}, {}, {"issuer"}, AxisFormat::kNumber, false, false, ""},
    },
    {},
    {},
    {},
});

}  // namespace
