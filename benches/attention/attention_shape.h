#pragma once
// The attention problem as the suite states it: the model presets (configs/attention_shapes.json),
// one problem's shape, and the work it counts: flops (forward 4·B·H·S²·D, halved when causal;
// backward 2.5 x forward) and HBM bytes (per step of the unfused path, and the fused minimum:
// Q, K and V read once and O written once).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench::attention {

// A preset file that cannot be used: names the file and the entry.
struct PresetError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ModelPreset {
  std::string name;
  std::int64_t heads = 0, head_dim = 0;
  bool sweep = true;  // false ("sweep": false): run only where --config names it
};

std::vector<ModelPreset> parse_presets(const nlohmann::json& document, const std::string& source);
std::vector<ModelPreset> load_presets(const std::string& path);
// configs/attention_shapes.json of the shipped configs (harness/model/config_files.h), loaded
// once; throws UsageError (exit 2) naming the file and the entry at fault.
const std::vector<ModelPreset>& installed_presets();
const ModelPreset& installed_preset(const std::string& name);  // std::invalid_argument if absent

enum class Element { kFp16, kBf16 };
Element parse_element(const std::string& name);  // fp16, bf16; std::invalid_argument otherwise
std::int64_t element_bytes(Element element);

struct AttentionShape {
  std::int64_t batch = 1, heads = 1, seq = 1, head_dim = 64;
  bool causal = false;
  Element element = Element::kFp16;

  std::int64_t heads_total() const { return batch * heads; }         // independent (b, h) problems
  std::int64_t qkv_elements() const { return batch * heads * seq * head_dim; }  // each of Q, K, V, O
  std::int64_t score_elements() const { return batch * heads * seq * seq; }     // the S x S matrices
  double softmax_scale() const;  // 1 / sqrt(head_dim)
};

// Head dimensions the suite runs: multiples of 8 up to 256, as cuDNN's fused attention takes them
// on Hopper (gpubench's own kernel runs 64 and 128: flash_attention_unsupported).
bool supported_head_dim(std::int64_t head_dim);
// Why `shape` cannot run here ("head_dim 96 is not supported (64, 128)"), or empty.
std::string unsupported_reason(const AttentionShape& shape);

double forward_flops(const AttentionShape& shape);
double backward_flops(const AttentionShape& shape);
double forward_backward_flops(const AttentionShape& shape);  // 3.5 x forward: one training step

// Bytes each step of the unfused forward moves through HBM, counted from the tensors it reads and
// writes: Q·Kᵀ reads Q, K and writes S; the softmax reads S (only j <= i when causal) and writes
// P in place; P·V reads P, V and writes O.
struct UnfusedTraffic {
  double scores = 0, softmax = 0, output = 0;
  double total() const { return scores + softmax + output; }
};
UnfusedTraffic unfused_traffic(const AttentionShape& shape);
double fused_min_bytes(const AttentionShape& shape);
// The softmax statistics a training forward writes and its backward reads: B x H x S FP32.
double stats_bytes(const AttentionShape& shape);
// The fused backward's minimum: Q, K, V, O, dO and the statistics read once, dQ, dK, dV written once.
double backward_min_bytes(const AttentionShape& shape);
// A training step's minimum: the forward's (fused_min_bytes), its statistics, the backward's.
double forward_backward_min_bytes(const AttentionShape& shape);
// Unfused bytes over the fused minimum.
double traffic_ratio(const AttentionShape& shape);
// The unfused path's S x S buffer, for the memory check before allocating it.
double unfused_scratch_bytes(const AttentionShape& shape);

}  // namespace gpubench::attention
