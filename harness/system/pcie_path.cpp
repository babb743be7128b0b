#include "harness/system/pcie_path.h"

#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <sstream>

namespace gpubench {
namespace {

// dddd:bb:dd.f in hex, as sysfs names PCI functions (the host bridge's "pci0000:17" is not one).
bool is_pci_function(const std::string& name) {
  static const std::string shape = "xxxx:xx:xx.x";
  if (name.size() != shape.size()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const bool hex = std::isxdigit(static_cast<unsigned char>(name[i])) != 0;
    if (shape[i] == 'x' ? !hex : name[i] != shape[i]) return false;
  }
  return true;
}

}  // namespace

std::vector<std::string> pcie_bridges_in_path(const std::string& resolved_path) {
  std::vector<std::string> functions;
  std::istringstream parts(resolved_path);
  for (std::string part; std::getline(parts, part, '/');)
    if (is_pci_function(part)) functions.push_back(part);
  if (functions.empty()) return {};
  functions.pop_back();  // the device itself
  std::reverse(functions.begin(), functions.end());
  return functions;
}

std::vector<std::string> pcie_bridges_from_sysfs(const std::string& device_dir) {
  char resolved[PATH_MAX];
  if (!realpath(device_dir.c_str(), resolved)) return {};
  return pcie_bridges_in_path(resolved);
}

}  // namespace gpubench
