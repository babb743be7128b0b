#include "harness/model/config_files.h"

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
    folders.push_back(exe + "/" GPUBENCH_INSTALLED_CONFIG_DIR);
    folders.push_back(exe + "/../configs");
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

std::string resolve_config_argument(const std::string& path) {
  const std::filesystem::path given(path);
  std::error_code ec;
  if (path.empty() || given.is_absolute() || std::filesystem::exists(given, ec)) return path;
  const std::string prefix = "configs/";
  const std::string inside = path.compare(0, prefix.size(), prefix) == 0 ? path.substr(prefix.size()) : path;
  return find_config_file(inside).value_or(path);
}

}  // namespace gpubench
