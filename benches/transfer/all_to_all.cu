// transfer/all_to_all: every selected GPU writing to every other at once, the aggregate a
// node's GPU fabric sustains (NVSwitch or direct NVLinks, else PCIe).
#include <memory>

#include "benches/transfer/lanes.h"
#include "benches/transfer/support.h"
#include "benches/transfer/transfer.h"
#include "harness/core/gpubench.h"

namespace {

using namespace gpubench;
using namespace gpubench::transfer;

constexpr std::uint64_t kSeedBase = 0x4132410000ull;  // + the sending GPU's ordinal

struct Received {
  int from, to;
  DeviceBuffer buffer;  // on `to`
};

void run_all_to_all(State& s) {
  const std::vector<int>& gpus = s.devices();
  const int n = static_cast<int>(gpus.size());
  const std::string& engine = s.get_str("engine");
  const auto bytes = static_cast<std::size_t>(s.get_int("bytes"));
  for (int from : gpus)
    for (int to : gpus)
      if (from != to) require_peer_access(s, from, to);
  std::vector<std::unique_ptr<PeerAccessScope>> access;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) access.push_back(std::make_unique<PeerAccessScope>(gpus[i], gpus[j], true));

  std::vector<DeviceBuffer> sources;
  for (int gpu : gpus) {
    sources.push_back(allocate_on(gpu, bytes));
    fill_source(sources.back().get(), bytes, kSeedBase + gpu, gpu);
  }
  std::vector<Received> received;
  std::vector<Lane> lanes;
  for (int i = 0; i < n; ++i) {
    // A sender's n-1 copy kernels share its SMs, so that all of them are resident at once.
    const int blocks = engine == "sm" ? std::max(1, sm_count(gpus[i]) / (n - 1)) : 0;
    for (int to : gpus) {
      if (to == gpus[i]) continue;
      received.push_back({gpus[i], to, allocate_on(to, bytes)});
      poison_destination(received.back().buffer.get(), bytes, to);
      lanes.push_back(copy_lane(engine, gpus[i], received.back().buffer.get(), sources[i].get(), bytes, blocks));
      lanes.back().metric = "gpu" + std::to_string(gpus[i]) + "_to_gpu" + std::to_string(to) + "_gbps";
    }
  }
  s.note("pairs", n * (n - 1));
  s.note("bytes_per_pair", bytes);
  const Peak peak = all_to_all_peak(s.context(), gpus);
  s.set_peak(peak.gbps, peak.source);

  measure_lanes(s, lanes, Hold::kBlocked);

  for (const auto& r : received)
    verify_copy(s, "gpu" + std::to_string(r.from) + " -> gpu" + std::to_string(r.to), r.buffer.get(), bytes,
                kSeedBase + r.from, r.to);
}

const auto& all_to_all_family =
    gpubench::family("transfer/all_to_all")
        .describe("Every selected GPU writes to every other at once, peer access enabled: one stream per ordered pair "
                  "on the sending GPU (engine ce: cudaMemcpyAsync; sm: copy kernels sharing the sender's SMs). bytes "
                  "is per pair; bandwidth_gbps counts every pair's bytes over the span of the whole exchange, and "
                  "gpuI_to_gpuJ_gbps each pair's own bytes over its own copies' time, while every pair copies. % of "
                  "peak: sum over GPUs of min(own NVLink or PCIe rate, sum of its pairs' direct peaks)")
        .axis_str("engine", {"ce", "sm"}, {"ce"})
        .axis_int("bytes", all_to_all_sizes(), {std::int64_t{1} << 26})
        .needs_gpus(2)
        .run(run_all_to_all);

}  // namespace
