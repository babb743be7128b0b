#include "tests/test_support.h"

#if GPUBENCH_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace gpubench::testing {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

namespace {

// The test process's own directory under the system temp folder, removed when the process ends.
class TempRoot {
 public:
  TempRoot() {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpubench-test-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = pattern;
  }
  ~TempRoot() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

std::string temp_dir() {
  static const TempRoot root;
  static int counter = 0;
  const std::string dir = root.path() + "/" + std::to_string(++counter);
  std::filesystem::create_directories(dir);
  return dir;
}

CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return result;
  char buffer[4096];
  for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) result.out.append(buffer, n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// A python3 earlier on PATH (pyenv, a virtual environment) may lack the distribution's modules.
std::string python_with(const std::string& module) {
  for (const char* candidate : {"/usr/bin/python3", "python3"})
    if (run_command(std::string(candidate) + " -c 'import " + module + "'").exit_code == 0) return candidate;
  return "";
}

std::string describe(const CommandResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\n--- stdout\n" + r.out + "--- stderr\n" + r.err;
}

CommandResult run_gpubench_to(const std::string& stdout_path, const std::string& args, const std::string& env) {
  const std::string dir = temp_dir();
  const std::string out_path = stdout_path.empty() ? dir + "/stdout" : stdout_path, err_path = dir + "/stderr";
  // GPUBENCH_EXE in the environment points the tests at a binary built elsewhere (device runs).
  const char* exe = std::getenv("GPUBENCH_EXE");
  const std::string command = (env.empty() ? "" : "env " + env + " ") + std::string(exe ? exe : GPUBENCH_EXE) + " " +
                              args + " >" + out_path + " 2>" + err_path;
  const int status = std::system(command.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (stdout_path.empty()) result.out = read_file(out_path);
  result.err = read_file(err_path);
  return result;
}

CommandResult run_gpubench(const std::string& args) { return run_gpubench_to("", args); }

GpuInfo h200_gpu_info(int index) {
  GpuInfo g;
  g.index = index;
  g.name = "NVIDIA H200";
  g.uuid = "GPU-0000000" + std::to_string(index);
  g.pci_bus_id = index == 0 ? "0000:1B:00.0" : "0000:43:00.0";
  g.sm_count = 132;
  g.cc_major = 9;
  g.cc_minor = 0;
  g.memory_bytes = 150754820096ULL;
  g.l2_bytes = 52428800;
  g.sm_clock_max_mhz = 1980;
  g.mem_clock_max_mhz = 3201;
  g.memory_bus_width_bits = 6144;
  g.pcie = {5, 16, 5, 16};
  g.nvlinks_active = 18;
  g.nvlink_gbps_per_link = 25;
  g.numa_node = index;
  g.ecc_enabled = true;
  g.mig_mode = false;
  g.power_limit_w = 700;
  return g;
}

bool gpu_present() {
  int count = 0;
#if GPUBENCH_HAVE_CUDA
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
#else
  (void)count;
  return false;
#endif
}

}  // namespace gpubench::testing
