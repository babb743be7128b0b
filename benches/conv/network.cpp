// conv/network: every convolution of a network layer set, each run as often as the network
// uses it, as one timed region: images/s of the convolutions of a forward pass or of a
// training step (forward and both gradients).
#include <algorithm>
#include <memory>
#include <optional>

#include "benches/conv/conv_axes.h"
#include "benches/conv/conv_case.h"
#include "benches/conv/layer_sets.h"
#include "harness/core/gpubench.h"
#include "harness/core/held_region.h"

namespace {

using namespace gpubench::conv;

void run_network(gpubench::State& s) {
  const LayerSet& set = installed_set(s.get_str("net"));
  const std::string& pass = s.get_str("pass");
  if (pass != "fwd" && pass != "fwd_bwd") s.fail("pass must be fwd or fwd_bwd, not '" + pass + "'");
  const bool backward = pass == "fwd_bwd";
  auto& handle = s.resource<gpubench::cudnn::CudnnHandle>();
  auto& workspace = s.resource<gpubench::cudnn::CudnnWorkspace>();
  std::vector<std::unique_ptr<ConvCase>> convs;
  std::int64_t largest = 0;
  for (const auto& layer : set.layers) {
    const std::vector<ConvPass> passes = backward ? training_passes(layer) : std::vector<ConvPass>{ConvPass::kForward};
    for (ConvPass p : passes) {
      auto conv = std::make_unique<ConvCase>(handle.get(), spec_from_axes(s, p, layer), workspace_limit_bytes(s),
                                             kScreenedPlans, 0x5EED + convs.size(), s.stream());
      if (!conv->runnable()) s.skip(layer.name + " " + pass_name(p) + ": " + conv->why_not_runnable());
      largest = std::max(largest, conv->largest_workspace());
      convs.push_back(std::move(conv));
    }
  }
  void* shared_workspace = workspace.reserve(largest);
  nlohmann::json chosen = nlohmann::json::object();
  for (auto& conv : convs) {
    conv->bind(shared_workspace);
    conv->keep(fastest_plans(conv->screen(s.stream()), 1, std::nullopt));
    if (!conv->runnable()) s.fail(conv->spec().layer.name + " " + pass_name(conv->spec().pass) +
                                  ": cuDNN failed to execute every screened plan");
    chosen[conv->spec().layer.name + "/" + pass_name(conv->spec().pass)] = conv->plans()[0].choice.identity();
    conv->verify(s, s.stream());
  }
  const std::int64_t n = s.get_int("n");
  const double flops = network_flops(set, n, backward);
  s.note("engines", chosen);
  s.note("cudnn", handle.version());
  s.note("convolutions_per_batch", set.total_uses());
  s.count_flops(flops);
  s.declare_metric("images_per_s", "images/s", true);
  s.set_primary_metric("images_per_s");
  set_conv_peak(s, parse_precision(s.get_str("type")), flops / static_cast<double>(n),
                fast_algorithm_bound(set, backward));
  // Each sample is queued behind the blocking kernel, as the layer families' are: cuDNN spends
  // about 12 us of host time per call, longer than a small layer's kernels (MobileNetV2 at batch
  // 32), and an unheld sample would time the host. A training step's calls (ResNet-50: 158) stay
  // well below the launch queue's depth; a hold that cannot be queued fails the sample.
  gpubench::HeldRegion held({{s.device(), s.stream()}}, gpubench::Hold::kBlocked);
  // measure_manual: a sample is one batch of the whole network (ResNet-50: 53 convolutions, milliseconds), never
  // short enough to batch, and images_per_s is recorded per sample.
  s.measure_manual([&] {
    const double seconds = held.run({}, [&](std::size_t, cudaStream_t stream) {
      for (const auto& conv : convs)
        for (std::int64_t use = 0; use < conv->spec().layer.count; ++use) conv->run(0, stream);
    }).lane_s.at(0);
    s.record("images_per_s", images_per_s(n, seconds));
    return seconds;
  });
}

gpubench::Family& declare_network() {
  auto& family = gpubench::family("conv/network")
                     .describe("The convolutions of a whole network (configs/conv_layers/<net>.json with \"network\": true) run "
                  "back to back, each layer as many times as the network uses it (ResNet-50: 53 convolutions of 23 "
                  "shapes), timed with CUDA events as one region queued behind the blocking kernel (the GPU's time, not cuDNN's host cost per call): images_per_s = n / time of one batch. pass:fwd is "
                  "the forward convolutions; pass:fwd_bwd adds the data gradient (not for the input layer) and the "
                  "filter gradient of each, as a training step does. Only convolutions: no batch norm, activation, "
                  "pooling or fc. Per convolution the fastest of the engines screened as in conv/forward (the "
                  "least of two warm runs each, as torch.backends.cudnn.benchmark selects), verified as there; the "
                  "engines are in notes.engines. % of peak: images/s against the datasheet dense rate over the "
                  "flops of one image (plausibility bound as in conv/forward, weighted by the layers' flops). flops = sum of the passes' 2 x N x K x (C/groups) x R x S x P x Q. " + gpubench::power_limited_description(conv_settings(3.0)));
  add_layer_axes(family, true, false, false);
  add_problem_axes(family);
  family.axis_str("pass", {"fwd", "fwd_bwd"}, {"fwd"});
  add_workspace_axis(family);
  return family.per_device()
      .needs_library("cudnn")
      .settings(conv_settings(3.0))
      .run(run_network);
}

const auto& network = declare_network();

}  // namespace
