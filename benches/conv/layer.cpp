// conv/forward, conv/backward_data, conv/backward_filter: one convolution of a layer set
// through cuDNN 9's graph API, with cuDNN's heuristic pick or the fastest of its candidates.
#include "benches/conv/conv_axes.h"
#include "benches/conv/conv_case.h"
#include "benches/conv/layer_sets.h"
#include "harness/core/gpubench.h"

namespace {

using namespace gpubench::conv;

constexpr std::size_t kBestCandidates = 8;

void run_layer(gpubench::State& s, ConvPass pass) {
  const std::string& algo = s.get_str("algo");
  if (algo != "best" && algo != "heuristic") s.fail("algo must be best or heuristic, not '" + algo + "'");
  const ConvSpec spec = spec_from_axes(s, pass, installed_layer(s.get_str("net"), s.get_str("layer")));
  auto& handle = s.resource<gpubench::cudnn::CudnnHandle>();
  auto& workspace = s.resource<gpubench::cudnn::CudnnWorkspace>();
  ConvCase conv(handle.get(), spec, workspace_limit_bytes(s), algo == "best" ? kBestCandidates : 1, 0x5EED, s.stream());
  if (!conv.runnable()) s.skip(conv.why_not_runnable());
  conv.bind(workspace.reserve(conv.largest_workspace()));
  conv.verify(s, s.stream());
  s.count_flops(spec.layer.flops(spec.n));
  set_conv_peak(s, spec.precision, 1e12);
  s.note("cudnn", handle.version());
  s.note("candidates", conv.plans().size());
  s.tune(conv.candidates(), conv.heuristic_index());
}

const char* const kCommon =
    ": cuDNN 9 graph API (one convolution operation, engines from heuristics mode A then the fallback list, at most 8 "
    "candidates for algo:best, mode A's first for algo:heuristic; at most workspace_mib of workspace), FP32 "
    "accumulation. fp32 is strict (no tensor-core or down-converting engine); tf32 admits TF32 tensor-core engines "
    "as torch's allow_tf32 does. flops = 2 x N x K x (C/groups) x R x S x P x Q (x T x D' in 3-D). Random inputs "
    "of magnitude [0.25, 1) with random sign; every candidate is verified on 4096 random output points (a filter "
    "gradient: fewer, >= 64) against an FP64 reference, |err| <= tol x sum|terms| with tol fp32 2e-5, tf32 3e-3, "
    "fp16 2e-3, bf16 1e-2. Layers from configs/conv_layers/<net>.json; layout:nchw and algo:heuristic by --config";

gpubench::Family& layer_family(const std::string& name, const std::string& what, bool three_by_three_only,
                               ConvPass pass) {
  auto& family = gpubench::family(name).describe(what + kCommon);
  add_layer_axes(family, false, true, three_by_three_only);
  add_problem_axes(family);
  family.axis_str("algo", {"best"});
  add_workspace_axis(family);
  return family.per_device()
      .needs_library("cudnn")
      .settings(gpubench::FamilySettings{300.0, 2.0, {}})
      .run([pass](gpubench::State& s) { run_layer(s, pass); });
}

const auto& forward = layer_family("conv/forward", "Forward convolution y = conv(x, w) of every layer",
                                   false, ConvPass::kForward);
const auto& backward_data = layer_family("conv/backward_data",
                                         "Data gradient dx = conv_transpose(dy, w); by default the 3x3 layers",
                                         true, ConvPass::kBackwardData);
const auto& backward_filter = layer_family("conv/backward_filter",
                                           "Filter gradient dw = conv(x, dy) over the batch; by default the 3x3 layers",
                                           true, ConvPass::kBackwardFilter);

}  // namespace
