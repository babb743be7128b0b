#pragma once
// One convolution ready to run: its buffers (random inputs), its cuDNN graph and plans, the
// variant pack, verification of every plan against the reference, and the plans as tune
// candidates. The per-layer families and the network family are built from these.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "benches/conv/conv_graph.h"
#include "harness/core/cuda_check.h"
#include "harness/core/state.h"

namespace gpubench::conv {

// The admitted plans screened per convolution (cudnn::engine_plans' order: half from heuristics
// mode A, then the instant heuristic's and the fallback list's, then mode A's again).
// torch.backends.cudnn.benchmark times the first benchmark_limit (default 10) plans of the instant
// heuristic and the fallback list that build and run; the 12 places after mode A's cover them,
// duplicates included, while keeping plan building and screening short.
constexpr std::size_t kScreenedPlans = 24;

class ConvCase {
 public:
  ConvCase(cudnnHandle_t handle, const ConvSpec& spec, std::int64_t workspace_limit, std::size_t max_plans,
           std::uint64_t seed, cudaStream_t stream);
  const ConvSpec& spec() const { return spec_; }
  bool runnable() const { return !plans_.plans.empty(); }
  const std::string& why_not_runnable() const { return plans_.why_none; }
  const std::vector<ConvPlan>& plans() const { return plans_.plans; }
  std::int64_t largest_workspace() const;
  // How many engine configurations cuDNN offered and why those not in plans() were left out
  // (notes.engines_offered).
  nlohmann::json offer_summary() const;
  // Binds the buffers and `workspace` (at least largest_workspace() bytes); before run().
  void bind(void* workspace);
  void run(std::size_t plan, cudaStream_t stream) const;
  // Seconds of one run of each plan, as torch.backends.cudnn.benchmark ranks them: a
  // selection, not a measurement. The least of two warm runs, each queued behind the blocking
  // kernel so the host's cost of the call is left out; a plan whose first (cold) run is both
  // slow against the best so far and long is not run again; a plan cuDNN fails to execute gets
  // infinity.
  std::vector<double> screen(cudaStream_t stream) const;
  // Leaves only the plans at `indices` (ascending), e.g. fastest_plans() of a screen().
  void keep(const std::vector<std::size_t>& indices);
  // Runs every plan once into a poisoned output and checks sampled points against the
  // reference; one verify() per plan.
  void verify(State& s, cudaStream_t stream) const;
  std::vector<TuneCandidate> candidates() const;
  std::size_t heuristic_index() const;  // the first plan of cuDNN's mode-A ranking

 private:
  cudnnHandle_t handle_;
  ConvSpec spec_;
  kernels::ConvGeometry geometry_;
  gpubench::DeviceBuffer x_, w_, y_;
  std::unique_ptr<ConvGraph> graph_;
  ConvPlans plans_;
  BackendDescriptor variant_pack_;
};

// Points checked per plan: every reduction of a filter gradient spans the whole batch, so it
// checks fewer points (at least 64) to keep the reference under ~2^28 terms.
std::int64_t verification_samples(const ConvSpec& spec);

// Sets the datasheet dense peak of `precision` on the benchmark's GPU (configs/peaks.json, in
// the context) in the primary metric's unit (`per_second_of` = 1e12 for tflops, the flops of
// one image for images_per_s); a figure is implausible above `fast_algorithm_bound` x that
// peak (fast_algorithm_bound() of the layer or network).
void set_conv_peak(State& s, Precision precision, double per_second_of, double fast_algorithm_bound);

// Reads the conv families' common axes: net, layer, n, type, layout, plus the pass.
ConvSpec spec_from_axes(const State& s, ConvPass pass, const ConvLayer& layer);
std::int64_t workspace_limit_bytes(const State& s);
// What decides a convolution's engine choice, as State::tune_cache_key takes it: the geometry
// (not the layer's name: networks share shapes), batch, type, layout, pass and workspace limit.
nlohmann::json tune_shape(const ConvSpec& spec, std::int64_t workspace_limit);

}  // namespace gpubench::conv
