#include "harness/analysis/gpu_names.h"

#include <cctype>

namespace gpubench {
namespace {

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "/" : "") + parts[i];
  return out;
}

bool is_placeholder(const std::string& part) {
  const auto colon = part.find(':');
  return colon != std::string::npos && part.substr(colon + 1) == "*" && is_gpu_axis(part.substr(0, colon));
}

// "gpu7" -> 7, anything else -> -1.
int gpu_index(const std::string& value) {
  if (value.size() < 4 || value.compare(0, 3, "gpu") != 0 || value.size() > 7) return -1;
  for (std::size_t i = 3; i < value.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(value[i]))) return -1;
  return std::stoi(value.substr(3));
}

}  // namespace

std::vector<std::string> name_components(const std::string& name) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t slash; (slash = name.find('/', start)) != std::string::npos; start = slash + 1)
    parts.push_back(name.substr(start, slash - start));
  parts.push_back(name.substr(start));
  return parts;
}

bool is_gpu_axis(const std::string& axis) {
  return axis == "gpu" || axis == "src" || axis == "dst" || axis == "peer";
}

int gpu_placeholders(const std::string& name) {
  int count = 0;
  for (const std::string& part : name_components(name)) {
    if (is_placeholder(part)) ++count;
    else if (part.find_first_of("*?[") != std::string::npos) return -1;
  }
  return count;
}

std::vector<std::string> expand_gpu_name(const std::string& name, const std::vector<int>& gpus,
                                         bool unordered_pairs) {
  std::vector<std::string> parts = name_components(name);
  std::vector<std::size_t> slots;
  for (std::size_t i = 0; i < parts.size(); ++i)
    if (is_placeholder(parts[i])) slots.push_back(i);
  if (slots.empty()) return {name};
  auto fill = [&](std::size_t slot, int gpu) {
    std::string& part = parts[slots[slot]];
    part = part.substr(0, part.find(':')) + ":gpu" + std::to_string(gpu);
  };
  const std::vector<std::string> pattern = parts;
  std::vector<std::string> out;
  for (std::size_t a = 0; a < gpus.size(); ++a) {
    if (slots.size() == 1) {
      parts = pattern;
      fill(0, gpus[a]);
      out.push_back(join(parts));
      continue;
    }
    for (std::size_t b = unordered_pairs ? a + 1 : 0; b < gpus.size(); ++b) {
      if (a == b) continue;
      parts = pattern;
      fill(0, gpus[a]);
      fill(1, gpus[b]);
      out.push_back(join(parts));
    }
  }
  return out;
}

std::string generalise_gpu_name(const std::string& name, std::vector<int>* gpus) {
  std::vector<std::string> parts = name_components(name);
  for (std::string& part : parts) {
    const auto colon = part.find(':');
    if (colon == std::string::npos || !is_gpu_axis(part.substr(0, colon))) continue;
    const int index = gpu_index(part.substr(colon + 1));
    if (index < 0) continue;
    if (gpus) gpus->push_back(index);
    part = part.substr(0, colon) + ":*";
  }
  return join(parts);
}

}  // namespace gpubench
