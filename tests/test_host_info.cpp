// The host fields of a result's context (Google Benchmark's), read from /proc and /sys without
// Google Benchmark's library.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "harness/model/host_info.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

void write_sysfs(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  testing::write_file(path, text + "\n");
}

// A 16-CPU host's /sys/devices/system/cpu as the H200 machine's results describe it.
std::string h200_host_cpu_tree() {
  const std::string root = testing::temp_dir();
  const struct {
    const char *type, *level, *size, *map;
  } caches[] = {{"Data", "1", "48K", "00000001"}, {"Instruction", "1", "32K", "00000001"},
                {"Unified", "2", "2048K", "00000001"}, {"Unified", "3", "307200K", "0000ffff"}};
  for (int i = 0; i < 4; ++i) {
    const std::string dir = root + "/cpu0/cache/index" + std::to_string(i) + "/";
    write_sysfs(dir + "type", caches[i].type);
    write_sysfs(dir + "level", caches[i].level);
    write_sysfs(dir + "size", caches[i].size);
    write_sysfs(dir + "shared_cpu_map", caches[i].map);
  }
  return root;
}

TEST(HostInfo, CachesAsGoogleBenchmarkReportsThem) {
  const auto caches = read_cpu_caches(h200_host_cpu_tree());
  ASSERT_EQ(caches.size(), 4u);
  EXPECT_EQ(caches[0].type, "Data");
  EXPECT_EQ(caches[0].level, 1);
  EXPECT_EQ(caches[0].size, 49152);
  EXPECT_EQ(caches[0].num_sharing, 1);
  EXPECT_EQ(caches[1].type, "Instruction");
  EXPECT_EQ(caches[2].size, 2097152);
  EXPECT_EQ(caches[3].size, 314572800);
  EXPECT_EQ(caches[3].num_sharing, 16);
  EXPECT_TRUE(read_cpu_caches(testing::temp_dir()).empty());
}

TEST(HostInfo, CacheSizesAndCpuMasks) {
  EXPECT_EQ(parse_cache_size("48K"), 49152);
  EXPECT_EQ(parse_cache_size("1M"), 1 << 20);
  EXPECT_EQ(parse_cache_size("512"), 512);
  EXPECT_EQ(parse_cache_size("lots"), 0);
  EXPECT_EQ(count_cpus_in_mask("00000000,0000ffff"), 16);
  EXPECT_EQ(count_cpus_in_mask("3"), 2);
  EXPECT_EQ(count_cpus_in_mask("ffffffff,ffffffff"), 64);
  EXPECT_EQ(count_cpus_in_mask(""), 0);
}

TEST(HostInfo, ScalingIsOnWhereAGovernorMayLowerTheClock) {
  const std::string root = testing::temp_dir();
  EXPECT_FALSE(read_cpu_scaling_enabled(root, 2));  // a VM without cpufreq
  write_sysfs(root + "/cpu0/cpufreq/scaling_governor", "performance");
  write_sysfs(root + "/cpu1/cpufreq/scaling_governor", "performance");
  EXPECT_FALSE(read_cpu_scaling_enabled(root, 2));
  write_sysfs(root + "/cpu1/cpufreq/scaling_governor", "powersave");
  EXPECT_TRUE(read_cpu_scaling_enabled(root, 2));
}

TEST(HostInfo, ThisHost) {
  const HostInfo h = capture_host();
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  EXPECT_EQ(h.host_name, name);
  EXPECT_EQ(h.num_cpus, sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_EQ(h.load_avg.size(), 3u);
  EXPECT_GE(h.mhz_per_cpu, 0);
  EXPECT_FALSE(h.date.empty());
  EXPECT_TRUE(std::filesystem::exists(h.executable));
}

}  // namespace
}  // namespace gpubench
