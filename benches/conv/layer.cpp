// conv/forward, conv/backward_data, conv/backward_filter: one convolution of a layer set
// through cuDNN 9's graph API, with cuDNN's heuristic pick or the fastest of its candidates.
#include <cmath>

#include "benches/conv/conv_axes.h"
#include "benches/conv/conv_case.h"
#include "benches/conv/layer_sets.h"
#include "harness/core/gpubench.h"

namespace {

using namespace gpubench::conv;

// The fastest plans of the screening that are verified and tuned, beside the heuristic's pick:
// tune gives each candidate a sustained run (harness/core/state.cpp), so the screening ranks and
// tune only settles the top few.
constexpr std::size_t kTuned = 2;

// The plan this worker chose for the same shape before (the tuning cache), else the fastest of
// a screening beside the heuristic's pick; notes.screening lists every screened plan's time, so
// that a user sees which engines lost before tuning and by how much.
std::vector<std::size_t> plans_to_tune(gpubench::State& s, ConvCase& conv) {
  if (const auto chosen = s.cached_choice()) {
    const auto offered = conv.candidates();
    for (std::size_t i = 0; i < offered.size(); ++i)
      if (offered[i].identity == *chosen) return {i};
  }
  const std::vector<double> seconds = conv.screen(s.stream());
  nlohmann::json screening = nlohmann::json::array();
  for (std::size_t i = 0; i < seconds.size(); ++i) {
    nlohmann::json plan = {{"label", conv.plans()[i].choice.label()}};
    if (std::isfinite(seconds[i]))
      plan["us"] = seconds[i] * 1e6;
    else
      plan["error"] = "cuDNN failed to execute it";
    screening.push_back(std::move(plan));
  }
  s.note("screening", screening);
  return fastest_plans(seconds, kTuned, conv.heuristic_index());
}

void run_layer(gpubench::State& s, ConvPass pass) {
  const std::string& algo = s.get_str("algo");
  if (algo != "best" && algo != "heuristic") s.fail("algo must be best or heuristic, not '" + algo + "'");
  const ConvSpec spec = spec_from_axes(s, pass, installed_layer(s.get_str("net"), s.get_str("layer")));
  auto& handle = s.resource<gpubench::cudnn::CudnnHandle>();
  auto& workspace = s.resource<gpubench::cudnn::CudnnWorkspace>();
  const bool best = algo == "best";
  ConvCase conv(handle.get(), spec, workspace_limit_bytes(s), best ? kScreenedPlans : 1, 0x5EED, s.stream());
  if (!conv.runnable()) s.skip(conv.why_not_runnable());
  s.note("engines_offered", conv.offer_summary());
  conv.bind(workspace.reserve(conv.largest_workspace()));
  if (best) {  // algo:heuristic measures cuDNN's first pick, which is no choice to remember
    s.tune_cache_key(tune_shape(spec, workspace_limit_bytes(s)));
    conv.keep(plans_to_tune(s, conv));
  }
  if (!conv.runnable()) s.fail("cuDNN failed to execute every screened plan");
  conv.verify(s, s.stream());
  s.count_flops(spec.layer.flops(spec.n));
  set_conv_peak(s, spec.precision, 1e12, fast_algorithm_bound(spec.layer));
  s.note("cudnn", handle.version());
  s.note("candidates", conv.plans().size());
  s.note("output_shape", written_shape(spec.layer, spec.n, pass));
  // cuDNN's execute builds each launch on the host (about 12 us on the H200 node), longer than
  // a small layer's kernels: samples are held behind the blocking kernel and short calls batched
  // as graph replays, so a figure is the GPU's time and not the host's, as torch's peer times
  // its calls (scripts/peers/peer_timing.py).
  s.queue_samples_behind_blocker();
  s.tune(conv.candidates(), conv.heuristic_index(), gpubench::Batching::kGraph);
}

const char* const kCommon =
    ": cuDNN 9 graph API (one convolution operation, FP32 compute type). algo:best: up to 24 admitted engines that need "
    "at most workspace_mib of workspace (the first 12 of heuristics mode A, then the instant heuristic's and the "
    "fallback list's, whose first 10 torch.backends.cudnn.benchmark times, then the rest of mode A's) are screened "
    "by the least of two warm runs held behind a blocking kernel, "
    "the 2 fastest and mode A's first are tuned, once per shape in a worker (a shape tuned before is measured with "
    "the plan chosen then); algo:heuristic: mode A's first. Each sample is queued behind a blocking kernel and "
    "calls under the batching threshold run as CUDA graph replays of back-to-back calls, so the host's cost of "
    "cudnnBackendExecute stays out of the time. Engines by torch's rule: none that down-converts inputs; fp32 is "
    "strict (no tensor-core engine, "
    "which would be TF32); tf32 admits tensor-core engines as torch's allow_tf32 does. % of peak against the "
    "datasheet dense rate of the type; Winograd and FFT engines do fewer flops than counted, so the plausibility "
    "bound is R x S x T times that. flops = 2 x N x K x (C/groups) x R x S x P x Q (x T x D' in 3-D). Random inputs "
    "of magnitude [0.25, 1) with random sign; every tuned candidate is verified on 4096 random output points (a filter "
    "gradient: fewer, >= 64) against an FP64 reference, |err| <= tol x sum|terms| with tol fp32 2e-5, tf32 3e-3, "
    "fp16 2e-3, bf16 1e-2. Layers from configs/conv_layers/<net>.json; layout:nchw, algo:heuristic and (for the gradients) "
    "layers other than the 3x3 ones by --config";

gpubench::Family& layer_family(const std::string& name, const std::string& what, bool three_by_three_only,
                               ConvPass pass) {
  auto& family =
      gpubench::family(name).describe(what + kCommon + ". " + gpubench::power_limited_description(conv_settings(2.0)));
  add_layer_axes(family, false, true, three_by_three_only);
  add_problem_axes(family);
  family.axis_str("algo", {"best"}, {}, {"heuristic"});
  add_workspace_axis(family);
  return family.per_device()
      .needs_library("cudnn")
      .settings(conv_settings(2.0))
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
