#pragma once
// Datasheet compute peaks (configs/peaks.json) read into the context at capture: per GPU model
// and precision, dense TFLOP/s with the datasheet they come from. The file is found beside the
// installed executable or in the source tree it was built from, never in the working directory,
// so a run's peaks do not depend on where it was started.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/report/context.h"

namespace gpubench {

struct ModelPeaks {
  std::string model;                    // "H200 SXM"
  std::string source;                   // the datasheet
  std::map<std::string, double> tflops;  // precision -> dense TFLOP/s
};

// The entry of `table` (configs/peaks.json's document) whose names hold `gpu_name` exactly.
// Throws std::invalid_argument when the table is malformed.
std::optional<ModelPeaks> find_model_peaks(const nlohmann::json& table, const std::string& gpu_name);

// Where configs/peaks.json is looked for, in order, for an executable at `executable_path`:
// <prefix>/share/gpubench/peaks.json of an installation, then configs/peaks.json in the
// executable's folder and each folder above it (a build tree inside the source tree), then
// the source tree the binary was built from.
std::vector<std::string> peak_table_candidates(const std::string& executable_path, const std::string& source_dir);

// Sets each GPU's tflops_peak and tflops_peak_source from the table; a GPU of a model the table
// does not list gets a source saying so. Never throws: a missing or malformed table is
// recorded as every GPU's source.
void apply_peak_table(Context& context, const nlohmann::json& table);
void apply_peak_table_file(Context& context, const std::vector<std::string>& candidates);

}  // namespace gpubench
