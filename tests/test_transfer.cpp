// The transfer suite without a GPU: which cases each family expands to (GPU pairs, skips for
// too few GPUs), what each counts, peaks from link data, NUMA choices, host-side data checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "harness/core/host_memory.h"
#include "benches/transfer/transfer.h"
#include "harness/core/cuda_check.h"
#include "harness/core/family.h"
#include "kernels/copy.cuh"
#include "kernels/pointer_chase.cuh"
#include "tests/test_support.h"

namespace gpubench::transfer {
namespace {

std::vector<Instance> expand(const std::string& family, std::vector<int> devices, bool quick = false) {
  const Family* f = find_family(family);
  EXPECT_NE(f, nullptr) << family;
  ExpandOptions options;
  options.devices = std::move(devices);
  options.quick = quick;
  return f ? f->expand(options) : std::vector<Instance>{};
}

bool has_name(const std::vector<Instance>& instances, const std::string& name) {
  return std::any_of(instances.begin(), instances.end(), [&](const Instance& i) { return i.name == name; });
}

// `count` H200s, every pair joined by 18 NVLink 4 links (direct for two, NVSwitch beyond).
Context h200s(int count) {
  Context c;
  for (int i = 0; i < count; ++i) {
    GpuInfo g;
    g.index = i;
    g.sm_count = 132;
    g.pcie = {5, 16, 5, 16};
    g.nvlinks_active = 18;
    g.nvlink_gbps_per_link = 25;
    g.numa_node = i % 2;
    c.gpus.push_back(g);
  }
  c.links.assign(count, std::vector<GpuLink>(count));
  for (int i = 0; i < count; ++i)
    for (int j = 0; j < count; ++j) {
      GpuLink& link = c.links[i][j];
      if (i == j) {
        link.kind = "X";
        continue;
      }
      link.kind = "NV18";
      link.nvlinks = 18;
      link.p2p_access = true;
    }
  return c;
}

TEST(TransferFamilies, ListedWithTheirAxes) {
  const auto result = testing::run_gpubench("list --suite transfer");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const char* family : {"transfer/host_device", "transfer/device_local", "transfer/peer", "transfer/all_to_all",
                             "transfer/host_latency", "transfer/peer_latency", "transfer/memcpy_latency"})
    EXPECT_NE(result.out.find(family), std::string::npos) << family;
  EXPECT_NE(result.out.find("1073741824"), std::string::npos);
}

TEST(TransferFamilies, HostDeviceCasesAndNames) {
  const auto instances = expand("transfer/host_device", {0});
  // 3 directions x (pinned CE local at 10 sizes; CE: pinned remote, pageable, wc and SM:
  // pinned, wc at 6 sizes), less pageable at 1 GiB.
  EXPECT_EQ(instances.size(), 3u * (10u + 5u * 6u - 1u));
  EXPECT_TRUE(has_name(instances, "transfer/host_device/host:pinned/dir:h2d/engine:ce/numa:local/bytes:1073741824/gpu:gpu0"));
  EXPECT_TRUE(has_name(instances, "transfer/host_device/host:wc/dir:bidir/engine:sm/numa:local/bytes:4096/gpu:gpu0"));
  EXPECT_TRUE(has_name(instances, "transfer/host_device/host:pinned/dir:d2h/engine:ce/numa:remote/bytes:268435456/gpu:gpu0"));
  EXPECT_TRUE(has_name(instances, "transfer/host_device/host:pinned/dir:h2d/engine:ce/numa:local/bytes:16384/gpu:gpu0"));
  EXPECT_FALSE(has_name(instances, "transfer/host_device/host:wc/dir:h2d/engine:ce/numa:local/bytes:16384/gpu:gpu0"));
  for (const auto& i : instances) {
    EXPECT_FALSE(i.params.str("engine") == "sm" && i.params.str("host") == "pageable") << i.name;
    EXPECT_FALSE(i.params.str("numa") == "remote" && i.params.str("host") != "pinned") << i.name;
    EXPECT_TRUE(i.skip_reason.empty());
  }
  const auto two = expand("transfer/host_device", {0, 1});
  EXPECT_EQ(two.size(), 2 * instances.size());
  EXPECT_EQ(two.back().device, 1);
  const auto quick = expand("transfer/host_device", {0}, true);
  ASSERT_EQ(quick.size(), 1u);
  EXPECT_EQ(quick[0].name, "transfer/host_device/host:pinned/dir:bidir/engine:ce/numa:local/bytes:16777216/gpu:gpu0");
  // A size given in a config runs on every path.
  ExpandOptions options;
  options.axis_overrides = {{"transfer/host_device", {{"bytes", {536870912}}}}};
  EXPECT_EQ(find_family("transfer/host_device")->expand(options).size(), 3u * 6u);
}

TEST(TransferFamilies, PeerEnumeratesOrderedPairs) {
  const auto instances = expand("transfer/peer", {0, 1});
  // Per ordered pair, uni: CE write p2p and staged, CE read, SM write, SM read = 5; bidir once
  // per unordered pair, the same 5; six sizes.
  EXPECT_EQ(instances.size(), (2u * 5u + 5u) * 6u);
  EXPECT_TRUE(has_name(instances, "transfer/peer/src:gpu0/dst:gpu1/engine:ce/op:write/dir:uni/path:p2p/bytes:1073741824"));
  EXPECT_TRUE(has_name(instances, "transfer/peer/src:gpu1/dst:gpu0/engine:ce/op:write/dir:uni/path:staged/bytes:4096"));
  EXPECT_TRUE(has_name(instances, "transfer/peer/src:gpu0/dst:gpu1/engine:ce/op:write/dir:bidir/path:staged/bytes:1073741824"));
  EXPECT_TRUE(has_name(instances, "transfer/peer/src:gpu1/dst:gpu0/engine:sm/op:read/dir:uni/path:p2p/bytes:65536"));
  for (const auto& i : instances) {
    const int src = i.params.gpu("src"), dst = i.params.gpu("dst");
    EXPECT_NE(src, dst) << i.name;
    if (i.params.str("dir") == "bidir") {
      EXPECT_LT(src, dst) << i.name;
    }
    if (i.params.str("path") == "staged") {
      EXPECT_TRUE(i.params.str("engine") == "ce" && i.params.str("op") == "write") << i.name;
    }
  }
  // Three GPUs: 6 ordered pairs, 3 unordered.
  EXPECT_EQ(expand("transfer/peer", {0, 1, 2}).size(), (6u * 5u + 3u * 5u) * 6u);
  // --devices 1,3: pairs of the selected GPUs only.
  std::set<std::string> pairs;
  for (const auto& i : expand("transfer/peer", {1, 3})) pairs.insert(i.params.str("src") + i.params.str("dst"));
  EXPECT_EQ(pairs, (std::set<std::string>{"gpu1gpu3", "gpu3gpu1"}));
}

TEST(TransferFamilies, MultiGpuFamiliesSkipOnOneGpu) {
  for (const char* family : {"transfer/peer", "transfer/all_to_all", "transfer/peer_latency"}) {
    const auto instances = expand(family, {0});
    ASSERT_EQ(instances.size(), 1u) << family;
    EXPECT_EQ(instances[0].name, family);
    EXPECT_EQ(instances[0].skip_reason, "needs 2 GPUs (1 selected)") << family;
  }
  const auto latency = expand("transfer/peer_latency", {0, 1});
  EXPECT_EQ(latency.size(), 2u * 2u);  // two patterns x (gpu0 reading gpu1, gpu1 reading gpu0)
  EXPECT_TRUE(has_name(latency, "transfer/peer_latency/pattern:stride/working_set_bytes:2097152/peer:gpu1/gpu:gpu0"));
  EXPECT_EQ(expand("transfer/all_to_all", {0, 1}).size(), 2u * 4u);
}

TEST(TransferFamilies, SingleGpuFamilies) {
  EXPECT_EQ(expand("transfer/device_local", {0}).size(), 2u * 10u);
  EXPECT_EQ(expand("transfer/host_latency", {0}).size(), 2u * 2u);
  EXPECT_EQ(expand("transfer/memcpy_latency", {0}).size(), 2u * 2u * 5u);
  EXPECT_TRUE(has_name(expand("transfer/memcpy_latency", {0}), "transfer/memcpy_latency/dir:h2d/host:pinned/bytes:4/gpu:gpu0"));
}

TEST(TransferBytes, CountedPerDirection) {
  EXPECT_EQ(directions_of("h2d"), 1);
  EXPECT_EQ(directions_of("uni"), 1);
  EXPECT_EQ(directions_of("bidir"), 2);
  EXPECT_DOUBLE_EQ(device_local_counted_bytes(1 << 20), 2.0 * (1 << 20));
  EXPECT_DOUBLE_EQ(all_to_all_counted_bytes(1 << 20, 2), 2.0 * (1 << 20));
  EXPECT_DOUBLE_EQ(all_to_all_counted_bytes(1 << 20, 8), 56.0 * (1 << 20));
}

TEST(TransferPeaks, PcieFromGenerationAndWidth) {
  const Context c = h200s(1);
  const Peak one = pcie_peak(c.gpus[0], 1);
  EXPECT_NEAR(one.gbps, 63.0, 0.1);
  EXPECT_NE(one.source.find("Gen5 x16"), std::string::npos) << one.source;
  EXPECT_NEAR(pcie_peak(c.gpus[0], 2).gbps, 126.0, 0.2);
  GpuInfo unknown;
  const Peak none = pcie_peak(unknown, 1);
  EXPECT_EQ(none.gbps, 0);
  EXPECT_NE(none.source.find("unknown"), std::string::npos);
}

TEST(TransferPeaks, PeerFromNvlinksElsePcie) {
  Context c = h200s(2);
  const Peak nv = peer_peak(c, 0, 1, 1);
  EXPECT_DOUBLE_EQ(nv.gbps, 450.0);
  EXPECT_NE(nv.source.find("18 NVLinks x 25"), std::string::npos) << nv.source;
  EXPECT_DOUBLE_EQ(peer_peak(c, 1, 0, 2).gbps, 900.0);
  EXPECT_NEAR(staged_peak(c, 0, 1, 1).gbps, 63.0, 0.1);
  EXPECT_EQ(describe_pair(c, 0, 1), "NV18 (18 NVLinks)");
  // The same pair over PCIe: the slower end's link.
  for (auto [i, j] : {std::pair{0, 1}, std::pair{1, 0}}) {
    c.links[i][j].kind = "SYS";
    c.links[i][j].nvlinks = 0;
  }
  c.gpus[1].pcie = {4, 16, 4, 16};
  const Peak pcie = peer_peak(c, 0, 1, 1);
  EXPECT_NEAR(pcie.gbps, 31.5, 0.1);
  EXPECT_NE(pcie.source.find("PCIe peer-to-peer (SYS)"), std::string::npos) << pcie.source;
  EXPECT_EQ(describe_pair(c, 0, 1), "PCIe P2P (SYS)");
  c.links[0][1].p2p_access = false;
  EXPECT_EQ(describe_pair(c, 0, 1), "no peer access (SYS)");
  EXPECT_EQ(peer_peak(c, 0, 5, 1).gbps, 0);  // not in the context
}

TEST(TransferPeaks, AllToAllCapsEachSenderAtItsOwnLinks) {
  EXPECT_DOUBLE_EQ(all_to_all_peak(h200s(2), {0, 1}).gbps, 900.0);
  // Through NVSwitch each GPU sends at most its 18 links' 450 GB/s, whatever the pairs add to.
  EXPECT_DOUBLE_EQ(all_to_all_peak(h200s(4), {0, 1, 2, 3}).gbps, 4 * 450.0);
  Context c = h200s(2);
  c.gpus[1].nvlink_gbps_per_link = 0;
  c.gpus[0].nvlink_gbps_per_link = 0;
  EXPECT_EQ(all_to_all_peak(c, {0, 1}).gbps, 0);
}

TEST(TransferNuma, LocalAndRemoteChoices) {
  const NumaChoice local = choose_numa_node("local", 1, {0, 1}, "");
  EXPECT_EQ(local.node, 1);
  EXPECT_TRUE(local.skip_reason.empty());
  const NumaChoice remote = choose_numa_node("remote", 1, {0, 1}, "");
  EXPECT_EQ(remote.node, 0);
  const NumaChoice unknown = choose_numa_node("local", -1, {0, 1}, "");
  EXPECT_EQ(unknown.node, -1);
  EXPECT_TRUE(unknown.skip_reason.empty());
  EXPECT_NE(unknown.why_none.find("unknown"), std::string::npos);
  EXPECT_NE(choose_numa_node("remote", 0, {0}, "").skip_reason.find("only one NUMA node"), std::string::npos);
  const NumaChoice no_lib = choose_numa_node("remote", 0, {0, 1}, "libnuma.so.1 not loadable");
  EXPECT_NE(no_lib.skip_reason.find("libnuma.so.1 not loadable"), std::string::npos);
  EXPECT_EQ(choose_numa_node("local", 0, {0, 1}, "libnuma.so.1 not loadable").node, -1);
}

TEST(TransferNuma, CpuListsAndPageablePlacement) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_TRUE(parse_cpu_list("\n").empty());
  EXPECT_THROW(HostBuffer(HostKind::kPageable, std::size_t{1} << 60, -1), SkipSignal);
  const std::vector<int> nodes = numa_nodes_with_cpus();
  if (!numa_unavailable_reason().empty() || nodes.empty()) GTEST_SKIP() << numa_unavailable_reason();
  HostBuffer buffer(HostKind::kPageable, std::size_t{4} << 20, nodes.back());
  kernels::fill_pattern_host(buffer.get(), buffer.bytes(), 7);
  EXPECT_EQ(buffer.observed_node(), nodes.back());
  ScopedCpuAffinity pinned(nodes.back());  // must not throw, and restores on scope exit
}

TEST(TransferData, HostPatternChecks) {
  std::vector<std::uint32_t> words((std::size_t{8} << 20) / 4);  // large enough to split over threads
  const std::size_t bytes = words.size() * 4;
  kernels::fill_pattern_host(words.data(), bytes, 11);
  EXPECT_EQ(kernels::count_mismatches_host(words.data(), bytes, 11), 0u);
  EXPECT_GT(kernels::count_mismatches_host(words.data(), bytes, 12), words.size() * 9 / 10);  // another seed
  words[12345] ^= 0x10;
  words.back() ^= 1;
  EXPECT_EQ(kernels::count_mismatches_host(words.data(), bytes, 11), 2u);
  kernels::fill_zero_host(words.data(), bytes);
  EXPECT_EQ(kernels::count_mismatches_host(words.data(), bytes, 11), words.size());  // the pattern is never zero
  EXPECT_EQ(kernels::sm_copy_blocks(4096, 132), 1);
  EXPECT_EQ(kernels::sm_copy_blocks(std::size_t{1} << 30, 132), 132);
}

TEST(TransferData, StrideCycleIsNvbandwidths) {
  const std::size_t bytes = std::size_t{2} << 20;
  const auto chain = make_stride_cycle(bytes);
  ASSERT_EQ(chain.size(), bytes / 8);
  const std::size_t stride = kernels::kChaseNodeBytes / 8, nodes = bytes / kernels::kChaseNodeBytes;
  // nvbandwidth: element i points to (i + 16) mod n, from element 0.
  std::uint64_t index = 0;
  for (std::size_t step = 0; step < nodes + 3; ++step) {
    EXPECT_EQ(chain[index], (index + stride) % chain.size()) << step;
    index = chain[index];
  }
  EXPECT_EQ(kernels::chase_on_host(chain, nodes), 0u);
  EXPECT_EQ(kernels::chase_on_host(chain, 5), 5 * stride);
}

}  // namespace
}  // namespace gpubench::transfer
