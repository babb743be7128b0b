#pragma once
// Where gpubench finds the files it ships (configs/peaks.json, configs/gemm_shapes.json,
// configs/conv_layers/, baselines and the configs they name): never the working directory,
// since a nightly job under cron or Slurm starts wherever it is started. Each file is taken
// from the first of these folders that has it:
//   1. $GPUBENCH_CONFIG_DIR, a folder that plays the part of configs/: an explicit choice wins
//      over the defaults below, and a file it lacks still comes from them;
//   2. <exe dir>/../share/gpubench/configs: an installation (`cmake --install`, the package);
//   3. <exe dir>/../configs: a build folder inside a source tree, wherever the tree is mounted;
//   4. the source tree the binary was built from.
// <exe dir> is the folder of the executable with symbolic links resolved (/proc/self/exe).
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

// The folders searched, in order (for messages and tests).
std::vector<std::string> config_search_path();
// `relative` (e.g. "peaks.json", "conv_layers/resnet50.json") under the first folder of the
// search path that has it, or nullopt.
std::optional<std::string> find_config_file(const std::string& relative);
// A file named on the command line (--config, --baseline, --tolerance): the path as given where
// it names a file (or is absolute); else the shipped file of that name on the search path, with
// or without its leading "configs/", so that `--baseline configs/baselines/h200.json` works from
// any directory with an installed binary; else the path as given, for the loader's message.
std::string resolve_config_argument(const std::string& path);

}  // namespace gpubench
