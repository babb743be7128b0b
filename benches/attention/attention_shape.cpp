#include "benches/attention/attention_shape.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>

#include "harness/model/config_files.h"
#include "harness/model/exit_codes.h"

namespace gpubench::attention {
namespace {

// Preset names become benchmark names: letters, digits and underscores keep them stable.
bool valid_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
  });
}

std::int64_t positive_integer(const nlohmann::json& entry, const char* field, const std::string& where) {
  const auto it = entry.find(field);
  if (it == entry.end()) throw PresetError(where + ": missing field '" + field + "'");
  if (!it->is_number_integer() || it->get<std::int64_t>() < 1)
    throw PresetError(where + ": '" + field + "' must be a positive integer");
  return it->get<std::int64_t>();
}

ModelPreset parse_preset(const nlohmann::json& entry, const std::string& where) {
  static const std::set<std::string> kFields = {"name", "heads", "head_dim", "source", "sweep"};
  if (!entry.is_object()) throw PresetError(where + ": a model must be an object");
  const auto name = entry.find("name");
  if (name == entry.end() || !name->is_string() || !valid_name(name->get<std::string>()))
    throw PresetError(where + ": 'name' must be a string of a-z, 0-9 and _");
  ModelPreset preset;
  preset.name = name->get<std::string>();
  const std::string at = where + ": model '" + preset.name + "'";
  for (const auto& [field, value] : entry.items())
    if (!kFields.count(field)) throw PresetError(at + ": unknown field '" + field + "'");
  preset.heads = positive_integer(entry, "heads", at);
  preset.head_dim = positive_integer(entry, "head_dim", at);
  if (const auto sweep = entry.find("sweep"); sweep != entry.end()) {
    if (!sweep->is_boolean()) throw PresetError(at + ": 'sweep' must be true or false");
    preset.sweep = sweep->get<bool>();
  }
  return preset;
}

std::string presets_path() {
  if (const auto found = find_config_file("attention_shapes.json")) return *found;
  return config_search_path().front() + "/attention_shapes.json";  // named in the message that it is missing
}

double causal_factor(const AttentionShape& shape) { return shape.causal ? 0.5 : 1.0; }

}  // namespace

std::vector<ModelPreset> parse_presets(const nlohmann::json& document, const std::string& source) {
  if (!document.is_object() || !document.contains("models") || !document["models"].is_array() ||
      document["models"].empty())
    throw PresetError(source + ": needs a non-empty 'models' array");
  std::vector<ModelPreset> presets;
  for (std::size_t i = 0; i < document["models"].size(); ++i) {
    ModelPreset preset = parse_preset(document["models"][i], source + ": models[" + std::to_string(i) + "]");
    for (const auto& seen : presets)
      if (seen.name == preset.name) throw PresetError(source + ": model '" + preset.name + "' appears twice");
    presets.push_back(std::move(preset));
  }
  return presets;
}

std::vector<ModelPreset> load_presets(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw PresetError(path + ": cannot be read");
  try {
    return parse_presets(nlohmann::json::parse(in), path);
  } catch (const nlohmann::json::parse_error& error) {
    throw PresetError(path + ": not JSON: " + error.what());
  }
}

const std::vector<ModelPreset>& installed_presets() {
  static const std::vector<ModelPreset> presets = [] {
    try {
      return load_presets(presets_path());
    } catch (const PresetError& error) {
      throw UsageError{kExitBadInput, std::string("attention presets ") + error.what()};
    }
  }();
  return presets;
}

const ModelPreset& installed_preset(const std::string& name) {
  for (const auto& preset : installed_presets())
    if (preset.name == name) return preset;
  throw std::invalid_argument("no attention model '" + name + "' in " + presets_path());
}

Element parse_element(const std::string& name) {
  if (name == "fp16") return Element::kFp16;
  if (name == "bf16") return Element::kBf16;
  throw std::invalid_argument("unknown attention type '" + name + "' (fp16, bf16)");
}

std::int64_t element_bytes(Element) { return 2; }

double AttentionShape::softmax_scale() const { return 1.0 / std::sqrt(static_cast<double>(head_dim)); }

bool supported_head_dim(std::int64_t head_dim) { return head_dim >= 8 && head_dim <= 256 && head_dim % 8 == 0; }

std::string unsupported_reason(const AttentionShape& shape) {
  if (!supported_head_dim(shape.head_dim))
    return "head_dim " + std::to_string(shape.head_dim) + " is not supported (multiples of 8 up to 256)";
  return "";
}

double forward_flops(const AttentionShape& shape) {
  return 4.0 * static_cast<double>(shape.heads_total()) * static_cast<double>(shape.seq) *
         static_cast<double>(shape.seq) * static_cast<double>(shape.head_dim) * causal_factor(shape);
}

double backward_flops(const AttentionShape& shape) { return 2.5 * forward_flops(shape); }

double forward_backward_flops(const AttentionShape& shape) { return forward_flops(shape) + backward_flops(shape); }

UnfusedTraffic unfused_traffic(const AttentionShape& shape) {
  const double e = static_cast<double>(element_bytes(shape.element));
  const double qkv = static_cast<double>(shape.qkv_elements()) * e;
  const double scores = static_cast<double>(shape.score_elements()) * e;
  // Row i of a causal softmax reads its i + 1 unmasked scores: S(S+1)/2 of S² per (b, h).
  const double s = static_cast<double>(shape.seq);
  const double read_fraction = shape.causal ? (s + 1) / (2 * s) : 1.0;
  UnfusedTraffic t;
  t.scores = 2 * qkv + scores;
  t.softmax = scores * read_fraction + scores;
  t.output = scores + 2 * qkv;
  return t;
}

double fused_min_bytes(const AttentionShape& shape) {
  return 4.0 * static_cast<double>(shape.qkv_elements()) * static_cast<double>(element_bytes(shape.element));
}

double stats_bytes(const AttentionShape& shape) {
  return static_cast<double>(shape.heads_total() * shape.seq) * sizeof(float);
}

double backward_min_bytes(const AttentionShape& shape) {
  return 8.0 * static_cast<double>(shape.qkv_elements()) * static_cast<double>(element_bytes(shape.element)) +
         stats_bytes(shape);
}

double forward_backward_min_bytes(const AttentionShape& shape) {
  return fused_min_bytes(shape) + stats_bytes(shape) + backward_min_bytes(shape);
}

double traffic_ratio(const AttentionShape& shape) { return unfused_traffic(shape).total() / fused_min_bytes(shape); }

double unfused_scratch_bytes(const AttentionShape& shape) {
  return static_cast<double>(shape.score_elements()) * static_cast<double>(element_bytes(shape.element));
}

}  // namespace gpubench::attention
