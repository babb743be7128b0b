#pragma once
// The convolutions the conv suite measures, as data: one layer's shape, the arithmetic on it
// (output extents, flops), the suite's parameter vocabulary (pass, precision, layout) and the
// layer-set files of configs/conv_layers/ that users extend without rebuilding. No CUDA here,
// so the CPU tests check all of it.
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench::conv {

// A layer file that cannot be used; the message names the file and the layer.
struct LayerSetError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// One convolution, batch size aside. 2-D layers keep depth 1 and filter depth 1, so every
// extent is 3-D and the arithmetic has one form.
struct ConvLayer {
  std::string name;
  int spatial_dims = 2;
  std::int64_t c = 0, k = 0, groups = 1;
  std::array<std::int64_t, 3> input{1, 1, 1};   // d, h, w
  std::array<std::int64_t, 3> filter{1, 1, 1};  // t, r, s
  std::array<std::int64_t, 3> stride{1, 1, 1}, pad{0, 0, 0}, dilation{1, 1, 1};
  std::int64_t count = 1;     // uses in the network
  bool input_layer = false;   // the network's first layer: training needs no data gradient

  std::array<std::int64_t, 3> output() const;
  // 2 x N x K x (C / groups) x T x R x S x D' x P x Q: one pass (forward, data or filter gradient).
  double flops(std::int64_t n) const;
  std::int64_t filter_volume() const { return filter[0] * filter[1] * filter[2]; }
};

// (extent + 2 pad - dilation (filter - 1) - 1) / stride + 1; below 1 for an impossible shape.
std::int64_t output_extent(std::int64_t extent, std::int64_t filter, std::int64_t stride, std::int64_t pad,
                           std::int64_t dilation);

struct LayerSet {
  std::string name;         // the file's stem: `net` in benchmark names
  std::string description;
  bool network = false;     // a whole network: conv/network sums it into images/s
  bool sweep = true;        // in the default sweep; else its net and layers are chosen by --config
  std::vector<ConvLayer> layers;

  const ConvLayer* find(const std::string& layer) const;  // nullptr when absent
  std::int64_t total_uses() const;
};

// `source` (a path) only for messages. Throws LayerSetError naming the layer at fault.
LayerSet parse_layer_set(const nlohmann::json& document, const std::string& name, const std::string& source);
LayerSet load_layer_set(const std::string& path);

enum class ConvPass { kForward, kBackwardData, kBackwardFilter };
enum class Precision { kFp32, kTf32, kFp16, kBf16 };
enum class Layout { kNchw, kNhwc };

Precision parse_precision(const std::string& name);  // throws std::invalid_argument
Layout parse_layout(const std::string& name);
const char* precision_name(Precision precision);     // also the peak table's key
const char* pass_name(ConvPass pass);                // "forward", "backward_data", "backward_filter"

// Extents of the tensor `pass` writes, in cuDNN's logical order: y (n, k, d', p, q) for the
// forward, dx (n, c, d, h, w: the input's) for the data gradient, dw (k, c/groups, t, r, s)
// for the filter gradient. Every pass counts the forward's flops().
std::array<std::int64_t, 5> written_shape(const ConvLayer& layer, std::int64_t n, ConvPass pass);

// The passes of one training step of `layer`: forward, then both gradients (no data gradient
// for the input layer).
std::vector<ConvPass> training_passes(const ConvLayer& layer);
// Flops of one batch through every use of every layer: forward only, or forward and backward.
double network_flops(const LayerSet& set, std::int64_t n, bool backward);
double images_per_s(std::int64_t n, double seconds_per_batch);
// How far a fast algorithm (Winograd, FFT) can beat the direct convolution whose flops are
// counted: any algorithm does at least one multiply-add per (n, k, c, output point), the
// direct one filter_volume() of them. For a network: its counted flops over that least work.
// (cuDNN does not mark every such engine with a numerical note, so this bounds them all.)
double fast_algorithm_bound(const ConvLayer& layer);
double fast_algorithm_bound(const LayerSet& set, bool backward);

// Sampled verification: the tolerance on |cuDNN - reference| as a fraction of the sum of the
// magnitudes of the terms (the reference computes both), per precision.
double tolerance(Precision precision);

}  // namespace gpubench::conv
