#include "harness/system/peaks.h"

#include <fstream>
#include <stdexcept>

namespace gpubench {
namespace {

void set_source_for_all(Context& context, const std::string& source) {
  for (auto& gpu : context.gpus) {
    gpu.tflops_peak.clear();
    gpu.tflops_peak_source = source;
  }
}

}  // namespace

std::optional<ModelPeaks> find_model_peaks(const nlohmann::json& table, const std::string& gpu_name) {
  if (!table.is_object() || !table.contains("models") || !table["models"].is_array())
    throw std::invalid_argument("peaks table: no \"models\" array");
  for (const auto& entry : table["models"]) {
    if (!entry.is_object() || !entry.contains("names") || !entry["names"].is_array() ||
        !entry.contains("tflops") || !entry["tflops"].is_object())
      throw std::invalid_argument("peaks table: a model without \"names\" or \"tflops\"");
    bool named = false;
    for (const auto& name : entry["names"]) named = named || (name.is_string() && name.get<std::string>() == gpu_name);
    if (!named) continue;
    ModelPeaks peaks{entry.value("model", gpu_name), entry.value("source", std::string()), {}};
    if (peaks.source.empty()) throw std::invalid_argument("peaks table: model " + peaks.model + " has no source");
    for (const auto& [precision, rate] : entry["tflops"].items()) {
      if (!rate.is_number() || rate.get<double>() <= 0)
        throw std::invalid_argument("peaks table: " + peaks.model + " " + precision + " is not a positive number");
      peaks.tflops[precision] = rate.get<double>();
    }
    return peaks;
  }
  return std::nullopt;
}

void apply_peak_table(Context& context, const nlohmann::json& table) {
  try {
    for (auto& gpu : context.gpus) {
      const auto peaks = find_model_peaks(table, gpu.name);
      gpu.tflops_peak = peaks ? peaks->tflops : std::map<std::string, double>{};
      gpu.tflops_peak_source = peaks ? peaks->source : "'" + gpu.name + "' is not in configs/peaks.json";
    }
  } catch (const std::exception& e) {
    set_source_for_all(context, e.what());
  }
}

void apply_peak_table_file(Context& context, const std::optional<std::string>& path) {
  std::ifstream in(path.value_or(""));
  if (!path || !in) {
    set_source_for_all(context, "configs/peaks.json not found (GPUBENCH_CONFIG_DIR, beside the executable, the "
                                "source tree)");
    return;
  }
  const nlohmann::json table = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (table.is_discarded())
    set_source_for_all(context, *path + " is not valid JSON");
  else
    apply_peak_table(context, table);
}

}  // namespace gpubench
