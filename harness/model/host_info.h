#pragma once
// The host that ran the benchmarks, as Google Benchmark's JSON context describes it (date,
// host_name, executable, num_cpus, mhz_per_cpu, cpu_scaling_enabled, caches, load_avg). Read
// from Linux's /proc and /sys the way Google Benchmark's sysinfo.cc reads them, so that the
// binary needs no Google Benchmark library at run time.
#include <string>
#include <vector>

namespace gpubench {

struct HostInfo {
  struct Cache {
    std::string type;  // "Data", "Instruction" or "Unified"
    int level = 0;
    long long size = 0;   // bytes
    int num_sharing = 0;  // logical CPUs sharing it
  };
  std::string date, host_name, executable;
  int num_cpus = 0;
  double mhz_per_cpu = 0;  // 0 where the system states no frequency
  bool cpu_scaling_enabled = false;
  std::vector<Cache> caches;
  std::vector<double> load_avg;
};

// This host now.
HostInfo capture_host();
// Under `root` (/sys/devices/system/cpu in capture_host; a copy of it in tests).
std::vector<HostInfo::Cache> read_cpu_caches(const std::string& root);
bool read_cpu_scaling_enabled(const std::string& root, int num_cpus);
// A cache size as sysfs writes it ("48K", "2048K", "300M") in bytes; 0 when unreadable.
long long parse_cache_size(const std::string& text);
// The CPUs in a sysfs CPU mask ("ffff", "00000000,0000ffff").
int count_cpus_in_mask(const std::string& mask);

}  // namespace gpubench
