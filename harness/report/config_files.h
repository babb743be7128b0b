#pragma once
// Where gpubench finds the files it ships (configs/peaks.json, configs/gemm_shapes.json,
// configs/conv_layers/, baselines and the configs they name): never the working directory,
// since a nightly job under cron or Slurm starts wherever it is started. In order:
//   1. $GPUBENCH_CONFIG_DIR (a folder that plays the part of configs/);
//   2. next to the executable: <exe dir>/configs, <exe dir>/../configs,
//      <exe dir>/../share/gpubench/configs (an installation, or a build folder in the tree);
//   3. the source tree the binary was built from.
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

// The folders searched, in order (for messages and tests).
std::vector<std::string> config_search_path();
// `relative` (e.g. "peaks.json", "conv_layers/resnet50.json") under the first folder of the
// search path that has it, or nullopt.
std::optional<std::string> find_config_file(const std::string& relative);

}  // namespace gpubench
