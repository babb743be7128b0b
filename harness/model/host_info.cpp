#include "harness/model/host_info.h"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>

namespace gpubench {
namespace {

constexpr const char* kCpuRoot = "/sys/devices/system/cpu";

// The first line of a small sysfs or procfs file, empty when it cannot be read.
std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string iso_date() {
  const std::time_t now = std::time(nullptr);
  char buffer[64];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S%z", std::localtime(&now));
  return buffer;
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? name : "";
}

std::string executable_path() {
  char path[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : "gpubench";
}

// Google Benchmark's order: the TSC's frequency, the CPU's maximum, then /proc/cpuinfo's
// "cpu MHz" (a VM often has only the last).
double cpu_mhz() {
  for (const char* file : {"/cpu0/tsc_freq_khz", "/cpu0/cpufreq/cpuinfo_max_freq"}) {
    const std::string khz = first_line(std::string(kCpuRoot) + file);
    if (!khz.empty()) return std::atof(khz.c_str()) / 1000.0;
  }
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("cpu MHz", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon != std::string::npos) return std::atof(line.c_str() + colon + 1);
  }
  return 0;
}

std::vector<double> load_average() {
  double load[3] = {};
  const int n = getloadavg(load, 3);
  return n > 0 ? std::vector<double>(load, load + n) : std::vector<double>{};
}

}  // namespace

long long parse_cache_size(const std::string& text) {
  char* unit = nullptr;
  const long long number = std::strtoll(text.c_str(), &unit, 10);
  if (unit == text.c_str() || number < 0) return 0;
  switch (std::toupper(static_cast<unsigned char>(*unit))) {
    case '\0': return number;
    case 'K': return number << 10;
    case 'M': return number << 20;
    case 'G': return number << 30;
    default: return 0;
  }
}

int count_cpus_in_mask(const std::string& mask) {
  int cpus = 0;
  for (const char c : mask) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) continue;
    const int nibble = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(c) - 'a' + 10;
    cpus += __builtin_popcount(static_cast<unsigned>(nibble));
  }
  return cpus;
}

std::vector<HostInfo::Cache> read_cpu_caches(const std::string& root) {
  std::vector<HostInfo::Cache> caches;
  for (int index = 0;; ++index) {
    const std::string dir = root + "/cpu0/cache/index" + std::to_string(index) + "/";
    const std::string size = first_line(dir + "size");
    if (size.empty()) break;
    HostInfo::Cache cache;
    cache.type = first_line(dir + "type");
    cache.level = std::atoi(first_line(dir + "level").c_str());
    cache.size = parse_cache_size(size);
    cache.num_sharing = count_cpus_in_mask(first_line(dir + "shared_cpu_map"));
    caches.push_back(cache);
  }
  return caches;
}

// Scaling is on where any CPU's governor may lower its clock: anything but "performance".
bool read_cpu_scaling_enabled(const std::string& root, int num_cpus) {
  for (int cpu = 0; cpu < num_cpus; ++cpu) {
    const std::string governor = first_line(root + "/cpu" + std::to_string(cpu) + "/cpufreq/scaling_governor");
    if (!governor.empty() && governor != "performance") return true;
  }
  return false;
}

HostInfo capture_host() {
  HostInfo h;
  h.date = iso_date();
  h.host_name = host_name();
  h.executable = executable_path();
  h.num_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  h.mhz_per_cpu = static_cast<int>(cpu_mhz());  // whole MHz, as Google Benchmark writes it
  h.cpu_scaling_enabled = read_cpu_scaling_enabled(kCpuRoot, h.num_cpus);
  h.caches = read_cpu_caches(kCpuRoot);
  h.load_avg = load_average();
  return h;
}

}  // namespace gpubench
