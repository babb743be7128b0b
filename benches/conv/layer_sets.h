#pragma once
// The layer sets installed with gpubench (configs/conv_layers/*.json), found next to the
// executable, and the axis values the conv families take from them when they are expanded.
#include <string>
#include <vector>

#include "benches/conv/conv_layer.h"

namespace gpubench::conv {

// conv_layers/ of the shipped configs (harness/model/config_files.h: $GPUBENCH_CONFIG_DIR,
// beside the executable, the source tree); a user's set is one more JSON file there.
std::string layer_set_directory();
// Every *.json of `directory`, sorted by name. Throws LayerSetError for a bad file.
std::vector<LayerSet> load_layer_sets(const std::string& directory);
// The installed sets, loaded once. Throws UsageError (exit 2) naming the file and layer at fault.
const std::vector<LayerSet>& installed_layer_sets();
// The set and layer a benchmark names; throws std::invalid_argument when absent.
const LayerSet& installed_set(const std::string& net);
const ConvLayer& installed_layer(const std::string& net, const std::string& layer);

// Axis values: the names of the sets (only whole networks when `networks_only`), in file order
// without repeats: those of the sets in the default sweep, or (`sweep` false) those only a
// --config chooses. The layers of the sets named in `nets` (of the sweep's sets when empty),
// only the 3x3 ones when `three_by_three_only`.
std::vector<std::string> net_axis_values(const std::vector<LayerSet>& sets, bool networks_only, bool sweep = true);
std::vector<std::string> layer_axis_values(const std::vector<LayerSet>& sets, bool three_by_three_only,
                                           const std::vector<std::string>& nets = {});
bool is_three_by_three(const ConvLayer& layer);
// What --quick runs: the first whole network (else the first set) and its first layer (3x3
// when `three_by_three_only`); empty names when no set has such a layer.
struct QuickLayer {
  std::string net, layer;
};
QuickLayer quick_layer(const std::vector<LayerSet>& sets, bool three_by_three_only);
// Whether the set `net` has a layer `layer` (the where() that pairs the two axes).
bool has_layer(const std::vector<LayerSet>& sets, const std::string& net, const std::string& layer);

}  // namespace gpubench::conv
