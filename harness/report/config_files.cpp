#include "harness/report/config_files.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace gpubench {
namespace {

std::string executable_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

}  // namespace

std::vector<std::string> config_search_path() {
  std::vector<std::string> folders;
  if (const char* dir = std::getenv("GPUBENCH_CONFIG_DIR"); dir && *dir) folders.emplace_back(dir);
  if (const std::string exe = executable_dir(); !exe.empty()) {
    folders.push_back(exe + "/configs");
    folders.push_back(exe + "/../configs");
    folders.push_back(exe + "/../share/gpubench/configs");
  }
  folders.push_back(std::string(GPUBENCH_SOURCE_DIR) + "/configs");
  return folders;
}

std::optional<std::string> find_config_file(const std::string& relative) {
  for (const auto& folder : config_search_path()) {
    const std::filesystem::path candidate = std::filesystem::path(folder) / relative;
    std::error_code ec;
    if (std::filesystem::exists(candidate, ec)) return candidate.lexically_normal().string();
  }
  return std::nullopt;
}

}  // namespace gpubench
