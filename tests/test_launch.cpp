// The launch suite without a GPU: its families' axes, names and --quick subsets, the size of its
// default sweep, and the arithmetic behind its derived figures (benches/launch/launch_metrics.h).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "benches/launch/launch_metrics.h"
#include "harness/core/family.h"
#include "kernels/tiny.cuh"
#include "tests/test_support.h"

namespace gpubench {
namespace {

const std::vector<std::string> kLaunchFamilies = {"launch/stream", "launch/graph", "launch/graph_update",
                                                  "launch/sync",   "launch/event", "launch/multi_stream"};

const Family& launch_family(const std::string& name) {
  const Family* f = find_family(name);
  if (!f) throw std::runtime_error(name + " is not registered");
  return *f;
}

std::vector<Instance> expand(const std::string& name, bool quick = false, std::vector<int> devices = {0}) {
  ExpandOptions options;
  options.devices = std::move(devices);
  options.quick = quick;
  return launch_family(name).expand(options);
}

std::vector<std::string> names_of(const std::vector<Instance>& instances) {
  std::vector<std::string> names;
  for (const auto& i : instances) names.push_back(i.name);
  return names;
}

TEST(LaunchFamilies, AreRegisteredInTheLaunchSuiteAndRunPerDevice) {
  for (const auto& name : kLaunchFamilies) {
    const Family& f = launch_family(name);
    EXPECT_EQ(f.suite(), "launch") << name;
    EXPECT_FALSE(f.is_hidden()) << name;
    EXPECT_TRUE(f.needs_gpu()) << name;
    EXPECT_TRUE(f.is_per_device()) << name;
    EXPECT_FALSE(f.description().empty()) << name;
  }
}

TEST(LaunchFamilies, AreQuietHost) {
  // Every launch family times host calls into the driver: no NVML polling thread beside them.
  for (const auto& name : kLaunchFamilies) EXPECT_TRUE(launch_family(name).is_quiet_host()) << name;
}

TEST(FamilyQuietHost, IsOffByDefaultAndChains) {
  Family f("selftest/quiet_host_probe");
  EXPECT_FALSE(f.is_quiet_host());
  Family& same = f.quiet_host();
  EXPECT_EQ(&same, &f);
  EXPECT_TRUE(f.is_quiet_host());
}

TEST(LaunchFamilies, ExpandToTheDeclaredSweep) {
  // stream: 5 argument sizes at 1 block + 2 larger grids at 0 bytes = 7 shapes; x2 work, except
  // enqueue (work does not change host cost); process_streams:2 for the default kernel only.
  EXPECT_EQ(expand("launch/stream").size(), 7u + 14u + 14u + 3u);
  // graph: 2 builds x 4 sizes x (0 B none, 0 B spin, 4096 B none); process_streams:2 for 0 B none.
  EXPECT_EQ(expand("launch/graph").size(), 2u * 4u * 3u + 2u * 4u);
  EXPECT_EQ(expand("launch/graph_update").size(), 3u * 4u);
  EXPECT_EQ(expand("launch/sync").size(), 3u * 4u * 3u);
  EXPECT_EQ(expand("launch/event").size(), 3u);
  EXPECT_EQ(expand("launch/multi_stream").size(), 5u + 4u);
}

TEST(LaunchFamilies, QuickIsOneConfigurationEach) {
  for (const auto& name : kLaunchFamilies) EXPECT_EQ(expand(name, true).size(), 1u) << name;
}

TEST(LaunchFamilies, DefaultSweepStaysWithinTheTimeBudget) {
  // The default sweep must finish in under 60 s on one GPU: 119 benchmarks took 9-15 s on an
  // H200 (2026-11-29), so 160 leaves room for slower hosts. A new axis value that breaks this
  // needs a where().
  std::size_t total = 0;
  for (const auto& name : kLaunchFamilies) total += expand(name).size();
  EXPECT_LE(total, 160u);
}

TEST(LaunchFamilies, NamesFollowDeclarationOrderWithTheGpuLast) {
  const auto stream = names_of(expand("launch/stream"));
  EXPECT_EQ(stream.front(), "launch/stream/process_streams:1/figure:enqueue/arg_bytes:0/grid:1_block/work:none/gpu:gpu0");
  EXPECT_NE(std::find(stream.begin(), stream.end(),
                      "launch/stream/process_streams:1/figure:back_to_back/arg_bytes:0/grid:4_waves/work:spin/gpu:gpu0"),
            stream.end());
  // Larger grids only at 0 argument bytes; no enqueue figure for spinning kernels.
  EXPECT_EQ(std::find(stream.begin(), stream.end(),
                      "launch/stream/process_streams:1/figure:round_trip/arg_bytes:4096/grid:1_wave/work:none/gpu:gpu0"),
            stream.end());
  EXPECT_EQ(std::find(stream.begin(), stream.end(),
                      "launch/stream/process_streams:1/figure:enqueue/arg_bytes:0/grid:1_block/work:spin/gpu:gpu0"),
            stream.end());

  const auto graph = names_of(expand("launch/graph"));
  EXPECT_EQ(graph.front(), "launch/graph/process_streams:1/build:capture/nodes:1/arg_bytes:0/work:none/gpu:gpu0");
  EXPECT_EQ(std::find(graph.begin(), graph.end(), "launch/graph/process_streams:1/build:explicit/nodes:10/arg_bytes:4096/work:spin/gpu:gpu0"),
            graph.end());
  EXPECT_EQ(names_of(expand("launch/sync")).front(),
            "launch/sync/sched:spin/wait:stream_sync/pending:nothing/gpu:gpu0");
  EXPECT_EQ(names_of(expand("launch/multi_stream")),
            (std::vector<std::string>{
                "launch/multi_stream/issuer:one_thread/streams:1/gpu:gpu0",
                "launch/multi_stream/issuer:one_thread/streams:2/gpu:gpu0",
                "launch/multi_stream/issuer:one_thread/streams:4/gpu:gpu0",
                "launch/multi_stream/issuer:one_thread/streams:8/gpu:gpu0",
                "launch/multi_stream/issuer:one_thread/streams:16/gpu:gpu0",
                "launch/multi_stream/issuer:thread_per_stream/streams:2/gpu:gpu0",
                "launch/multi_stream/issuer:thread_per_stream/streams:4/gpu:gpu0",
                "launch/multi_stream/issuer:thread_per_stream/streams:8/gpu:gpu0",
                "launch/multi_stream/issuer:thread_per_stream/streams:16/gpu:gpu0",
            }));
}

TEST(LaunchFamilies, OneStreamFiguresRunBeforeAnyTwoStreamFigure) {
  // A second stream makes launches dearer for the rest of the process (harness/streams.h), so in
  // the worker that runs a family, every process_streams:1 instance must come before the first
  // process_streams:2 one, for every selected GPU.
  for (const std::string name : {"launch/stream", "launch/graph"}) {
    bool seen_two = false;
    std::size_t ones = 0, twos = 0;
    for (const auto& instance : expand(name, false, {0, 1})) {
      const auto streams = instance.params.integer("process_streams");
      if (streams == 2) {
        seen_two = true;
        ++twos;
      } else {
        EXPECT_FALSE(seen_two) << instance.name;
        ++ones;
      }
    }
    EXPECT_GT(ones, twos) << name;
    EXPECT_GT(twos, 0u) << name;
  }
  EXPECT_EQ(names_of(expand("launch/graph")).back(),
            "launch/graph/process_streams:2/build:explicit/nodes:1000/arg_bytes:0/work:none/gpu:gpu0");
  // --quick measures the one-stream figures only.
  for (const auto& instance : expand("launch/stream", true)) EXPECT_EQ(instance.params.integer("process_streams"), 1);
}

TEST(LaunchFamilies, NamesAreUniqueAndRepeatPerSelectedGpu) {
  std::set<std::string> seen;
  std::size_t one_gpu = 0;
  for (const auto& name : kLaunchFamilies) {
    one_gpu += expand(name).size();
    for (const auto& instance : expand(name, false, {0, 3})) EXPECT_TRUE(seen.insert(instance.name).second) << instance.name;
  }
  EXPECT_EQ(seen.size(), 2 * one_gpu);
  for (const auto& instance : expand("launch/event", false, {0, 3}))
    EXPECT_EQ(instance.device, instance.params.gpu("gpu"));
}

TEST(LaunchFamilies, EveryArgumentSizeAxisValueHasAKernel) {
  for (const auto& name : {"launch/stream", "launch/graph"}) {
    std::set<std::int64_t> sizes;
    for (const auto& instance : expand(name)) sizes.insert(instance.params.integer("arg_bytes"));
    EXPECT_EQ(*sizes.begin(), 0) << name;
    EXPECT_EQ(*sizes.rbegin(), 4096) << name;
    for (auto bytes : sizes) EXPECT_TRUE(kernels::tiny_arg_bytes_supported(static_cast<int>(bytes))) << bytes;
  }
  EXPECT_FALSE(kernels::tiny_arg_bytes_supported(8));
  EXPECT_FALSE(kernels::tiny_arg_bytes_supported(8192));
}

TEST(LaunchFamilies, ListShowsThemUnderTheLaunchSuite) {
  const auto result = testing::run_gpubench("list --suite launch");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  for (const auto& name : kLaunchFamilies) EXPECT_NE(result.out.find(name), std::string::npos) << name;
  EXPECT_EQ(result.out.find("memory/"), std::string::npos);
}

TEST(LaunchMetrics, GridBlocksCountWholeWaves) {
  EXPECT_EQ(launch::grid_blocks("1_block", 132, 16), 1);
  EXPECT_EQ(launch::grid_blocks("1_wave", 132, 16), 132 * 16);
  EXPECT_EQ(launch::grid_blocks("4_waves", 132, 16), 4 * 132 * 16);
  EXPECT_EQ(launch::grid_blocks("1_block", 0, 0), 1);  // one block needs no occupancy figure
  EXPECT_THROW(launch::grid_blocks("1_wave", 0, 16), std::invalid_argument);
  EXPECT_THROW(launch::grid_blocks("2_waves", 132, 16), std::invalid_argument);
}

TEST(LaunchMetrics, ReductionIsTheShareOfTheStreamCostSaved) {
  EXPECT_DOUBLE_EQ(launch::reduction_pct(2.0, 0.4), 80.0);
  EXPECT_DOUBLE_EQ(launch::reduction_pct(1.5, 1.5), 0.0);
  EXPECT_DOUBLE_EQ(launch::reduction_pct(1.0, 1.25), -25.0);  // the graph costing more shows as negative
  EXPECT_DOUBLE_EQ(launch::reduction_pct(3.0, 0.0), 100.0);
  EXPECT_THROW(launch::reduction_pct(0.0, 1.0), std::invalid_argument);
  EXPECT_THROW(launch::reduction_pct(1.0, -1.0), std::invalid_argument);
  EXPECT_THROW(launch::reduction_pct(std::nan(""), 1.0), std::invalid_argument);
}

TEST(LaunchMetrics, CpuBusyShareIsClampedToAPercentage) {
  EXPECT_DOUBLE_EQ(launch::cpu_busy_pct(0.5e-3, 1e-3), 50.0);
  EXPECT_DOUBLE_EQ(launch::cpu_busy_pct(1.01e-3, 1e-3), 100.0);  // clocks tick separately
  EXPECT_DOUBLE_EQ(launch::cpu_busy_pct(0, 1e-3), 0.0);
  EXPECT_DOUBLE_EQ(launch::cpu_busy_pct(1e-3, 0), 0.0);
}

TEST(LaunchMetrics, LaunchRateIsLaunchesOverSeconds) {
  EXPECT_DOUBLE_EQ(launch::launches_per_s(2048, 4e-3), 512000.0);
  EXPECT_THROW(launch::launches_per_s(10, 0), std::invalid_argument);
}

TEST(LaunchMetrics, SampleSizesStayBelowTheLaunchQueueAndAboveClockResolution) {
  EXPECT_LT(launch::kBackToBackLaunches, 1000);
  EXPECT_EQ(launch::stream_comparison_launches(1), 1);
  EXPECT_EQ(launch::stream_comparison_launches(100), 100);
  EXPECT_EQ(launch::stream_comparison_launches(1000), launch::kBackToBackLaunches);
  EXPECT_EQ(launch::updates_per_sample(1), 64);
  EXPECT_EQ(launch::updates_per_sample(10), 6);
  EXPECT_EQ(launch::updates_per_sample(1000), 1);
  EXPECT_EQ(launch::set_params_passes(1), 256);
  EXPECT_EQ(launch::set_params_passes(10), 26);
  EXPECT_EQ(launch::set_params_passes(1000), 1);
  for (int nodes : {1, 10, 100, 1000}) EXPECT_GE(launch::set_params_passes(nodes) * nodes, 256);
  EXPECT_EQ(launch::kHopsPerSample % 2, 0);  // the ping-pong chain ends on the stream it began on
}

TEST(LaunchMetrics, SchedFlagsAreCudasScheduleFlags) {
  EXPECT_EQ(launch::sched_flag("spin"), static_cast<unsigned>(cudaDeviceScheduleSpin));
  EXPECT_EQ(launch::sched_flag("yield"), static_cast<unsigned>(cudaDeviceScheduleYield));
  EXPECT_EQ(launch::sched_flag("blocking"), static_cast<unsigned>(cudaDeviceScheduleBlockingSync));
  EXPECT_THROW(launch::sched_flag("auto"), std::invalid_argument);
  // Every sched axis value maps to a flag.
  for (const auto& instance : expand("launch/sync")) EXPECT_NO_THROW(launch::sched_flag(instance.params.str("sched")));
}

}  // namespace
}  // namespace gpubench
