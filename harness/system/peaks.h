#pragma once
// Datasheet compute peaks (configs/peaks.json) read into the context at capture: per GPU model
// and precision, dense TFLOP/s with the datasheet they come from.
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/model/context.h"

namespace gpubench {

struct ModelPeaks {
  std::string model;                    // "H200 SXM"
  std::string source;                   // the datasheet
  std::map<std::string, double> tflops;  // precision -> dense TFLOP/s
};

// The entry of `table` (configs/peaks.json's document) whose names hold `gpu_name` exactly.
// Throws std::invalid_argument when the table is malformed.
std::optional<ModelPeaks> find_model_peaks(const nlohmann::json& table, const std::string& gpu_name);

// Sets each GPU's tflops_peak and tflops_peak_source from the table; a GPU of a model the table
// does not list gets a source saying so. Never throws: a missing or malformed table is
// recorded as every GPU's source.
void apply_peak_table(Context& context, const nlohmann::json& table);
// The table at `path` (configs/peaks.json as harness/model/config_files.h finds it); nullopt:
// not found, said in every GPU's source.
void apply_peak_table_file(Context& context, const std::optional<std::string>& path);

}  // namespace gpubench
