#include "benches/conv/layer_sets.h"

#include <algorithm>
#include <filesystem>

#include "harness/model/config_files.h"
#include "harness/model/exit_codes.h"

namespace gpubench::conv {
namespace {

void add_unique(std::vector<std::string>& values, const std::string& value) {
  if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
}

}  // namespace

std::string layer_set_directory() {
  if (const auto found = find_config_file("conv_layers")) return *found;
  return config_search_path().front() + "/conv_layers";  // named in the message that it is missing
}

std::vector<LayerSet> load_layer_sets(const std::string& directory) {
  std::error_code error;
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error))
    if (entry.path().extension() == ".json") paths.push_back(entry.path().string());
  if (error) throw LayerSetError(directory + ": cannot list the layer sets: " + error.message());
  std::sort(paths.begin(), paths.end());
  std::vector<LayerSet> sets;
  for (const auto& path : paths) sets.push_back(load_layer_set(path));
  return sets;
}

const std::vector<LayerSet>& installed_layer_sets() {
  static const std::vector<LayerSet> sets = [] {
    try {
      return load_layer_sets(layer_set_directory());
    } catch (const LayerSetError& error) {
      throw UsageError{kExitBadInput, std::string("conv layer set ") + error.what()};
    }
  }();
  return sets;
}

const LayerSet& installed_set(const std::string& net) {
  for (const auto& set : installed_layer_sets())
    if (set.name == net) return set;
  throw std::invalid_argument("no conv layer set '" + net + "' in " + layer_set_directory());
}

const ConvLayer& installed_layer(const std::string& net, const std::string& layer) {
  const ConvLayer* found = installed_set(net).find(layer);
  if (!found) throw std::invalid_argument("conv layer set '" + net + "' has no layer '" + layer + "'");
  return *found;
}

std::vector<std::string> net_axis_values(const std::vector<LayerSet>& sets, bool networks_only, bool sweep) {
  std::vector<std::string> values;
  for (const auto& set : sets)
    if ((!networks_only || set.network) && set.sweep == sweep) add_unique(values, set.name);
  return values;
}

bool is_three_by_three(const ConvLayer& layer) { return layer.filter[1] == 3 && layer.filter[2] == 3; }

std::vector<std::string> layer_axis_values(const std::vector<LayerSet>& sets, bool three_by_three_only,
                                           const std::vector<std::string>& nets) {
  std::vector<std::string> values;
  for (const auto& set : sets) {
    const bool taken = nets.empty() ? set.sweep : std::find(nets.begin(), nets.end(), set.name) != nets.end();
    if (!taken) continue;
    for (const auto& layer : set.layers)
      if (!three_by_three_only || is_three_by_three(layer)) add_unique(values, layer.name);
  }
  return values;
}

QuickLayer quick_layer(const std::vector<LayerSet>& sets, bool three_by_three_only) {
  for (bool networks : {true, false})
    for (const auto& set : sets) {
      if (set.network != networks || !set.sweep) continue;
      for (const auto& layer : set.layers)
        if (!three_by_three_only || is_three_by_three(layer)) return {set.name, layer.name};
    }
  return {};
}

bool has_layer(const std::vector<LayerSet>& sets, const std::string& net, const std::string& layer) {
  for (const auto& set : sets)
    if (set.name == net) return set.find(layer) != nullptr;
  return false;
}

}  // namespace gpubench::conv
