// The PCIe tree above each GPU: bridges read from a resolved sysfs path (and from a sysfs tree
// laid out on disk as the kernel lays it out), what two GPUs share, and the context JSON.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "harness/model/context.h"
#include "harness/system/pcie_path.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

using Bridges = std::vector<std::string>;

TEST(PciePath, BridgesNearestFirstRootPortLast) {
  EXPECT_EQ(pcie_bridges_in_path(
                "/sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0"),
            (Bridges{"0000:19:00.0", "0000:18:00.0", "0000:17:01.0"}));
  EXPECT_EQ(pcie_bridges_in_path("/sys/devices/pci0000:00/0000:00:02.0"), Bridges{});
  EXPECT_EQ(pcie_bridges_in_path("/sys/devices/platform/x"), Bridges{});
  EXPECT_EQ(pcie_bridges_in_path(""), Bridges{});
}

TEST(PciePath, ReadFromASysfsTreeOnDisk) {
  const std::filesystem::path root = testing::temp_dir();
  const auto gpu = root / "devices/pci0000:17/0000:17:01.0/0000:18:00.0/0000:19:04.0/0000:1b:00.0";
  std::filesystem::create_directories(gpu);
  std::filesystem::create_directories(root / "bus/pci/devices");
  std::filesystem::create_directory_symlink(gpu, root / "bus/pci/devices/0000:1b:00.0");
  EXPECT_EQ(pcie_bridges_from_sysfs((root / "bus/pci/devices/0000:1b:00.0").string()),
            (Bridges{"0000:19:04.0", "0000:18:00.0", "0000:17:01.0"}));
  EXPECT_EQ(pcie_bridges_from_sysfs((root / "bus/pci/devices/0000:99:00.0").string()), Bridges{});
}

GpuInfo gpu_below(Bridges path) {
  GpuInfo g = testing::h200_gpu_info(0);
  g.pcie_path = std::move(path);
  return g;
}

TEST(PciePath, SharedBridgeIsTheNearestCommonOne) {
  // Two GPUs on downstream ports 19:04.0 and 19:08.0 of one switch (upstream port 18:00.0).
  const GpuInfo a = gpu_below({"0000:19:04.0", "0000:18:00.0", "0000:17:01.0"});
  const GpuInfo b = gpu_below({"0000:19:08.0", "0000:18:00.0", "0000:17:01.0"});
  const GpuInfo other_root = gpu_below({"0000:a1:00.0", "0000:a0:01.0"});
  EXPECT_EQ(shared_pcie_bridge(a, b), "0000:18:00.0");
  EXPECT_EQ(shared_pcie_bridge(b, a), "0000:18:00.0");
  EXPECT_EQ(shared_pcie_bridge(a, other_root), "");
  EXPECT_EQ(shared_pcie_bridge(a, gpu_below({})), "");
}

TEST(PciePath, InTheContextJsonWhenRead) {
  const GpuInfo a = gpu_below({"0000:19:04.0", "0000:18:00.0"});
  const nlohmann::json j = to_json(a);
  EXPECT_EQ(j["pcie_path"], nlohmann::json::array({"0000:19:04.0", "0000:18:00.0"}));
  EXPECT_EQ(read_gpu_info(JsonAt(j, "t.json")).pcie_path, a.pcie_path);
  EXPECT_FALSE(to_json(gpu_below({})).contains("pcie_path"));  // not read: absent, as before
  nlohmann::json bad = j;
  bad["pcie_path"] = nlohmann::json::array({7});
  EXPECT_THROW(read_gpu_info(JsonAt(bad, "t.json")), UsageError);
}

}  // namespace
}  // namespace gpubench
