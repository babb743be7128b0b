// The transfer suite as the harness knows it without its families: its place among the suites
// and its report charts (the copy paths against size).
#include "harness/model/suite.h"

namespace {

using gpubench::AxisFormat;

const bool declared = gpubench::declare_suite({
    "transfer",
    20,
    false,
    {
      {"transfer-h2d", "Host to device bandwidth", "transfer/host_device", "bytes", "transfer size",
       "bandwidth (GB/s)", {{"bandwidth_gbps", ""}}, {{"dir", "h2d"}}, {"host", "engine"}, AxisFormat::kBytes, true, false, ""},
      {"transfer-d2h", "Device to host bandwidth", "transfer/host_device", "bytes", "transfer size",
       "bandwidth (GB/s)", {{"bandwidth_gbps", ""}}, {{"dir", "d2h"}}, {"host", "engine"}, AxisFormat::kBytes, true, false, ""},
      {"transfer-bidir", "Host and device both ways at once", "transfer/host_device", "bytes",
       "transfer size", "bandwidth, both directions (GB/s)", {{"bandwidth_gbps", ""}}, {{"dir", "bidir"}}, {"host", "engine"},
       AxisFormat::kBytes, false, false, ""},
      {"transfer-peer", "Peer (GPU to GPU) bandwidth", "transfer/peer", "bytes", "transfer size",
       "bandwidth (GB/s)", {{"bandwidth_gbps", ""}}, {}, {}, AxisFormat::kBytes, true, false, ""},
      {"transfer-device-local", "Device-local copy bandwidth", "transfer/device_local", "bytes",
       "copy size", "bandwidth, read + write (GB/s)", {{"bandwidth_gbps", ""}}, {}, {"engine"}, AxisFormat::kBytes, true,
       true, ""},
      {"transfer-memcpy-latency", "cudaMemcpy latency against size", "transfer/memcpy_latency", "bytes",
       "copy size", "latency (µs)", {{"latency_us", ""}}, {}, {"host"}, AxisFormat::kBytes, false, false, ""},
    },
    {},
    {},
    {},
});

}  // namespace
