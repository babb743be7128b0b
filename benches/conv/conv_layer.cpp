#include "benches/conv/conv_layer.h"

#include <algorithm>
#include <fstream>
#include <set>

namespace gpubench::conv {
namespace {

const std::set<std::string> kLayerFields = {"name", "c", "k", "d", "h", "w", "t", "r", "s", "stride",
                                            "pad", "dilation", "groups", "count", "input_layer"};

// Names become benchmark names: letters, digits and underscores keep them stable and filterable.
bool valid_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
  });
}

class LayerReader {
 public:
  LayerReader(const nlohmann::json& entry, std::string where) : entry_(entry), where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& problem) const { throw LayerSetError(where_ + ": " + problem); }

  std::int64_t integer(const char* field, std::int64_t fallback, std::int64_t minimum) const {
    const auto it = entry_.find(field);
    if (it == entry_.end()) {
      if (fallback < minimum) fail(std::string("missing field '") + field + "'");
      return fallback;
    }
    if (!it->is_number_integer()) fail(std::string("'") + field + "' must be an integer");
    const std::int64_t value = it->get<std::int64_t>();
    if (value < minimum) fail(std::string("'") + field + "' must be at least " + std::to_string(minimum));
    return value;
  }

  std::int64_t required(const char* field) const { return integer(field, -1, 1); }

 private:
  const nlohmann::json& entry_;
  std::string where_;
};

ConvLayer parse_layer(const nlohmann::json& entry, const std::string& where) {
  if (!entry.is_object()) throw LayerSetError(where + ": a layer must be an object");
  ConvLayer layer;
  const auto name = entry.find("name");
  if (name == entry.end() || !name->is_string() || !valid_name(name->get<std::string>()))
    throw LayerSetError(where + ": 'name' must be a string of a-z, 0-9 and _");
  layer.name = name->get<std::string>();
  LayerReader read(entry, where + ": layer '" + layer.name + "'");
  for (const auto& [field, value] : entry.items())
    if (!kLayerFields.count(field)) read.fail("unknown field '" + field + "'");
  const bool three_d = entry.contains("d") || entry.contains("t");
  if (three_d && !(entry.contains("d") && entry.contains("t"))) read.fail("a 3-D layer needs both 'd' and 't'");
  layer.spatial_dims = three_d ? 3 : 2;
  layer.c = read.required("c");
  layer.k = read.required("k");
  layer.input = {three_d ? read.required("d") : 1, read.required("h"), read.required("w")};
  layer.filter = {three_d ? read.required("t") : 1, read.required("r"), read.required("s")};
  const std::int64_t stride = read.integer("stride", 1, 1), pad = read.integer("pad", 0, 0),
                     dilation = read.integer("dilation", 1, 1);
  const int first = three_d ? 0 : 1;  // a 2-D layer's depth is not padded or strided
  for (int i = first; i < 3; ++i) {
    layer.stride[i] = stride;
    layer.pad[i] = pad;
    layer.dilation[i] = dilation;
  }
  layer.groups = read.integer("groups", 1, 1);
  layer.count = read.integer("count", 1, 1);
  if (const auto it = entry.find("input_layer"); it != entry.end()) {
    if (!it->is_boolean()) read.fail("'input_layer' must be true or false");
    layer.input_layer = it->get<bool>();
  }
  if (layer.c % layer.groups != 0 || layer.k % layer.groups != 0)
    read.fail("c and k must be multiples of groups (" + std::to_string(layer.groups) + ")");
  const auto out = layer.output();
  for (int i = 0; i < 3; ++i)
    if (out[i] < 1) read.fail("the filter does not fit the padded input: output extent " + std::to_string(out[i]));
  return layer;
}

}  // namespace

std::int64_t output_extent(std::int64_t extent, std::int64_t filter, std::int64_t stride, std::int64_t pad,
                           std::int64_t dilation) {
  const std::int64_t span = extent + 2 * pad - dilation * (filter - 1) - 1;
  return span < 0 ? 0 : span / stride + 1;
}

std::array<std::int64_t, 3> ConvLayer::output() const {
  std::array<std::int64_t, 3> out{};
  for (int i = 0; i < 3; ++i) out[i] = output_extent(input[i], filter[i], stride[i], pad[i], dilation[i]);
  return out;
}

double ConvLayer::flops(std::int64_t n) const {
  const auto out = output();
  return 2.0 * static_cast<double>(n) * static_cast<double>(k) * static_cast<double>(c / groups) *
         static_cast<double>(filter_volume()) * static_cast<double>(out[0] * out[1] * out[2]);
}

const ConvLayer* LayerSet::find(const std::string& layer) const {
  for (const auto& l : layers)
    if (l.name == layer) return &l;
  return nullptr;
}

std::int64_t LayerSet::total_uses() const {
  std::int64_t uses = 0;
  for (const auto& l : layers) uses += l.count;
  return uses;
}

LayerSet parse_layer_set(const nlohmann::json& document, const std::string& name, const std::string& source) {
  if (!valid_name(name)) throw LayerSetError(source + ": the file name must be of a-z, 0-9 and _ (it names the set)");
  if (!document.is_object() || !document.contains("layers") || !document["layers"].is_array() ||
      document["layers"].empty())
    throw LayerSetError(source + ": needs a non-empty 'layers' array");
  LayerSet set;
  set.name = name;
  if (const auto it = document.find("description"); it != document.end() && it->is_string())
    set.description = it->get<std::string>();
  if (const auto it = document.find("network"); it != document.end()) {
    if (!it->is_boolean()) throw LayerSetError(source + ": 'network' must be true or false");
    set.network = it->get<bool>();
  }
  if (const auto it = document.find("sweep"); it != document.end()) {
    if (!it->is_boolean()) throw LayerSetError(source + ": 'sweep' must be true or false");
    set.sweep = it->get<bool>();
  }
  for (std::size_t i = 0; i < document["layers"].size(); ++i) {
    ConvLayer layer = parse_layer(document["layers"][i], source + ": layers[" + std::to_string(i) + "]");
    if (set.find(layer.name)) throw LayerSetError(source + ": layer '" + layer.name + "' appears twice");
    set.layers.push_back(std::move(layer));
  }
  return set;
}

LayerSet load_layer_set(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw LayerSetError(path + ": cannot be read");
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& error) {
    throw LayerSetError(path + ": not JSON: " + error.what());
  }
  std::string stem = path.substr(path.find_last_of('/') + 1);
  stem = stem.substr(0, stem.rfind(".json"));
  return parse_layer_set(document, stem, path);
}

Precision parse_precision(const std::string& name) {
  if (name == "fp32") return Precision::kFp32;
  if (name == "tf32") return Precision::kTf32;
  if (name == "fp16") return Precision::kFp16;
  if (name == "bf16") return Precision::kBf16;
  throw std::invalid_argument("unknown precision '" + name + "' (fp32, tf32, fp16, bf16)");
}

Layout parse_layout(const std::string& name) {
  if (name == "nhwc") return Layout::kNhwc;
  if (name == "nchw") return Layout::kNchw;
  throw std::invalid_argument("unknown layout '" + name + "' (nhwc, nchw)");
}

const char* precision_name(Precision precision) {
  switch (precision) {
    case Precision::kFp32: return "fp32";
    case Precision::kTf32: return "tf32";
    case Precision::kFp16: return "fp16";
    case Precision::kBf16: return "bf16";
  }
  return "?";
}

const char* pass_name(ConvPass pass) {
  switch (pass) {
    case ConvPass::kForward: return "forward";
    case ConvPass::kBackwardData: return "backward_data";
    case ConvPass::kBackwardFilter: return "backward_filter";
  }
  return "?";
}

std::array<std::int64_t, 5> written_shape(const ConvLayer& layer, std::int64_t n, ConvPass pass) {
  switch (pass) {
    case ConvPass::kBackwardData: return {n, layer.c, layer.input[0], layer.input[1], layer.input[2]};
    case ConvPass::kBackwardFilter:
      return {layer.k, layer.c / layer.groups, layer.filter[0], layer.filter[1], layer.filter[2]};
    case ConvPass::kForward: break;
  }
  const auto out = layer.output();
  return {n, layer.k, out[0], out[1], out[2]};
}

std::vector<ConvPass> training_passes(const ConvLayer& layer) {
  if (layer.input_layer) return {ConvPass::kForward, ConvPass::kBackwardFilter};
  return {ConvPass::kForward, ConvPass::kBackwardData, ConvPass::kBackwardFilter};
}

double network_flops(const LayerSet& set, std::int64_t n, bool backward) {
  double total = 0;
  for (const auto& layer : set.layers) {
    const std::size_t passes = backward ? training_passes(layer).size() : 1;
    total += static_cast<double>(layer.count) * static_cast<double>(passes) * layer.flops(n);
  }
  return total;
}

double fast_algorithm_bound(const ConvLayer& layer) { return static_cast<double>(layer.filter_volume()); }

double fast_algorithm_bound(const LayerSet& set, bool backward) {
  double least_work = 0;
  for (const auto& layer : set.layers) {
    const std::size_t passes = backward ? training_passes(layer).size() : 1;
    least_work += static_cast<double>(layer.count) * static_cast<double>(passes) * layer.flops(1) /
                  fast_algorithm_bound(layer);
  }
  return least_work > 0 ? network_flops(set, 1, backward) / least_work : 1.0;
}

double images_per_s(std::int64_t n, double seconds_per_batch) {
  return seconds_per_batch > 0 ? static_cast<double>(n) / seconds_per_batch : 0.0;
}

double tolerance(Precision precision) {
  switch (precision) {
    case Precision::kFp32: return 2e-5;  // FP32 accumulation; FFT and Winograd engines included
    case Precision::kTf32: return 3e-3;  // inputs rounded to TF32's 10-bit mantissa (2^-11 each)
    case Precision::kFp16: return 2e-3;  // FP16 output rounding (2^-11), FP32 accumulation
    case Precision::kBf16: return 1e-2;  // BF16 output rounding (2^-8), FP32 accumulation
  }
  return 0;
}

}  // namespace gpubench::conv
