#include "tests/test_support.h"

#include <cuda_runtime_api.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

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

std::string temp_dir() {
  static const std::string root = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpubench-test-XXXXXX").string();
    const char* made = mkdtemp(pattern.data());
    std::string dir = made ? made : "/tmp";
    return dir;
  }();
  static int counter = 0;
  const std::string dir = root + "/" + std::to_string(++counter);
  std::filesystem::create_directories(dir);
  return dir;
}

CommandResult run_gpubench(const std::string& args) {
  const std::string dir = temp_dir();
  const std::string out_path = dir + "/stdout", err_path = dir + "/stderr";
  // GPUBENCH_EXE in the environment points the tests at a binary built elsewhere (device runs).
  const char* exe = std::getenv("GPUBENCH_EXE");
  const std::string command = std::string(exe ? exe : GPUBENCH_EXE) + " " + args + " >" + out_path + " 2>" + err_path;
  const int status = std::system(command.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_file(out_path);
  result.err = read_file(err_path);
  return result;
}

bool gpu_present() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

}  // namespace gpubench::testing
