#pragma once
// The PCIe bridges between a GPU and its root port, from sysfs. A device's directory under
// /sys/bus/pci/devices resolves to its place in the tree, one component per bridge:
//   /sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0
// Two GPUs behind one PCIe switch share its upstream port there, and GPUs under one root port
// share that: the tree is what explains a host-copy figure halved under load.

#include <string>
#include <vector>

namespace gpubench {

// The bridges above the device in a resolved sysfs path, nearest first, root port last; empty
// when the path holds no PCI component above the device.
std::vector<std::string> pcie_bridges_in_path(const std::string& resolved_path);

// The same for a device directory such as /sys/bus/pci/devices/0000:19:00.0; empty when it
// cannot be resolved.
std::vector<std::string> pcie_bridges_from_sysfs(const std::string& device_dir);

}  // namespace gpubench
