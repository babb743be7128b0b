#include "harness/report/chart_rules.h"

namespace gpubench {

const std::vector<CurveRule>& curve_rules() {
  static const std::vector<CurveRule> rules = {
      {"memory-stream", "memory", "HBM bandwidth against working set", "memory/stream", "array_bytes",
       "array size", "bandwidth (GB/s)", {{"bandwidth_gbps", ""}}, {}, {"op"}, AxisFormat::kBytes, true, true, ""},
      {"memory-latency", "memory", "Memory load latency against working set", "memory/latency",
       "working_set_bytes", "working set", "latency (ns)", {{"latency_ns", ""}}, {}, {}, AxisFormat::kBytes, false,
       true, ""},
      {"transfer-h2d", "transfer", "Host to device bandwidth", "transfer/host_device", "bytes", "transfer size",
       "bandwidth (GB/s)", {{"bandwidth_gbps", ""}}, {{"dir", "h2d"}}, {"host", "engine"}, AxisFormat::kBytes, true, false, ""},
      {"transfer-d2h", "transfer", "Device to host bandwidth", "transfer/host_device", "bytes", "transfer size",
       "bandwidth (GB/s)", {{"bandwidth_gbps", ""}}, {{"dir", "d2h"}}, {"host", "engine"}, AxisFormat::kBytes, true, false, ""},
      {"transfer-bidir", "transfer", "Host and device both ways at once", "transfer/host_device", "bytes",
       "transfer size", "bandwidth, both directions (GB/s)", {{"bandwidth_gbps", ""}}, {{"dir", "bidir"}}, {"host", "engine"},
       AxisFormat::kBytes, false, false, ""},
      {"transfer-peer", "transfer", "Peer (GPU to GPU) bandwidth", "transfer/peer", "bytes", "transfer size",
       "bandwidth (GB/s)", {{"bandwidth_gbps", ""}}, {}, {}, AxisFormat::kBytes, true, false, ""},
      {"transfer-device-local", "transfer", "Device-local copy bandwidth", "transfer/device_local", "bytes",
       "copy size", "bandwidth, read + write (GB/s)", {{"bandwidth_gbps", ""}}, {}, {"engine"}, AxisFormat::kBytes, true,
       true, ""},
      {"transfer-memcpy-latency", "transfer", "cudaMemcpy latency against size", "transfer/memcpy_latency", "bytes",
       "copy size", "latency (µs)", {{"latency_us", ""}}, {}, {"host"}, AxisFormat::kBytes, false, false, ""},
      {"launch-host", "launch", "Host launch cost per kernel: stream against graph", "launch/graph", "nodes",
       "kernels per launch (N)", "host time per kernel (µs)",
       {{"stream_host_enqueue_us", "stream enqueue"}, {"graph_host_launch_per_node_us", "graph launch"}},
       {{"process_streams", "1"}, {"arg_bytes", "0"}, {"work", "none"}}, {}, AxisFormat::kNumber, false, false, ""},
      {"launch-gpu", "launch", "GPU time per kernel: stream against graph", "launch/graph", "nodes",
       "kernels per launch (N)", "GPU time per kernel (µs)",
       {{"stream_gpu_time_per_kernel_us", "stream"}, {"gpu_time_per_node_us", "graph"}},
       {{"process_streams", "1"}, {"arg_bytes", "0"}, {"work", "none"}}, {}, AxisFormat::kNumber, false, false, ""},
      {"launch-streams", "launch", "Launch rate against streams", "launch/multi_stream", "streams", "streams",
       "launches per second", {{"launches_per_s", ""}}, {}, {"issuer"}, AxisFormat::kNumber, false, false, ""},
      {"attention", "attention", "Attention forward, fused (cuDNN) and unfused", "attention/forward", "seq",
       "sequence length", "TFLOP/s", {{"tflops", ""}}, {}, {"impl"}, AxisFormat::kNumber, false, false, ""},
  };
  return rules;
}

const std::vector<CurveRule>& collective_rules() {
  static const std::vector<CurveRule> rules = [] {
    std::vector<CurveRule> out;
    for (const char* family : {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall",
                               "sendrecv"}) {
      const std::string id = std::string("collective-") + family;
      std::map<std::string, std::string> fixed = {{"place", "out"}};
      if (std::string(family) == "all_reduce") fixed["redop"] = "sum";  // the only one with a redop axis
      out.push_back({id, "collective", std::string(family) + ": bus bandwidth", std::string("collective/") + family,
                     "bytes", "message size", "bus bandwidth (GB/s)", {{"busbw_gbps", ""}}, fixed, {"type"},
                     AxisFormat::kBytes, true, false, ""});
      // One rank moves nothing over a bus: its files carry the algorithm bandwidth alone.
      out.push_back({id + "-algbw", "collective", std::string(family) + ": algorithm bandwidth (no bus figure in this run)",
                     std::string("collective/") + family, "bytes", "message size", "algorithm bandwidth (GB/s)",
                     {{"algbw_gbps", ""}}, fixed, {"type"}, AxisFormat::kBytes, false, false, id});
    }
    return out;
  }();
  return rules;
}

const std::vector<BarRule>& bar_rules() {
  static const std::vector<BarRule> rules = {
      {"gemm-precision", "gemm", "GEMM TFLOP/s per precision (best shape) and datasheet peak", "gemm/matmul", "type",
       "", "tflops", "precision", "TFLOP/s", {}},
      {"conv-network", "conv", "ResNet-50 convolutions, TFLOP/s per precision and datasheet peak", "conv/network",
       "type", "pass", "tflops", "precision", "TFLOP/s", {}},
  };
  return rules;
}

}  // namespace gpubench
