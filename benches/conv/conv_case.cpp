#include "benches/conv/conv_case.h"

#include <algorithm>
#include <limits>

#include "harness/core/cuda_check.h"
#include "harness/core/held_region.h"
#include "harness/core/timing_events.h"
#include "kernels/random_fill.cuh"

namespace gpubench::conv {
namespace {

std::size_t bytes_of(std::int64_t elements, Precision precision) {
  return static_cast<std::size_t>(elements * element_bytes(precision));
}

}  // namespace

ConvCase::ConvCase(cudnnHandle_t handle, const ConvSpec& spec, std::int64_t workspace_limit, std::size_t max_plans,
                   std::uint64_t seed, cudaStream_t stream)
    : handle_(handle), spec_(spec), geometry_(geometry(spec)) {
  const auto type = element(spec.precision);
  const std::int64_t xs = kernels::conv_x_elements(geometry_), ws = kernels::conv_w_elements(geometry_),
                     ys = kernels::conv_y_elements(geometry_);
  x_ = gpubench::DeviceBuffer(bytes_of(xs, spec.precision));
  w_ = gpubench::DeviceBuffer(bytes_of(ws, spec.precision));
  y_ = gpubench::DeviceBuffer(bytes_of(ys, spec.precision));
  // Inputs random; the output each pass writes is poisoned before every check.
  if (spec.pass != ConvPass::kBackwardData) kernels::fill_conv_signed(x_.get(), xs, type, seed, stream);
  if (spec.pass != ConvPass::kBackwardFilter) kernels::fill_conv_signed(w_.get(), ws, type, seed + 1, stream);
  if (spec.pass != ConvPass::kForward) kernels::fill_conv_signed(y_.get(), ys, type, seed + 2, stream);
  try {
    graph_ = std::make_unique<ConvGraph>(handle, spec);
  } catch (const cudnn::CudnnError& error) {
    if (error.status != CUDNN_STATUS_NOT_SUPPORTED && error.status != CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED) throw;
    plans_.why_none = std::string("cuDNN cannot express this convolution: ") + error.what();
    return;
  }
  plans_ = graph_->plans(workspace_limit, max_plans);
}

std::int64_t ConvCase::largest_workspace() const { return cudnn::largest_workspace(plans_); }

nlohmann::json ConvCase::offer_summary() const {
  return {{"admitted", plans_.plans.size()},
          {"excluded_by_numerical_notes", plans_.rejected_by_notes},
          {"over_workspace_limit", plans_.rejected_by_workspace},
          {"not_finalized", plans_.failed_to_finalize}};
}

std::vector<double> ConvCase::screen(cudaStream_t stream) const {
  // A cold run includes loading the engine's kernels; past both limits a plan is out of the
  // running however fast its kernels load, and running it again would only cost time.
  constexpr double kSlowerThanBest = 4.0, kLongRun_s = 0.02;
  int device = 0;
  GPUBENCH_CUDA(cudaGetDevice(&device));
  // Warm runs are held behind the blocking kernel: cudnnBackendExecute spends several
  // microseconds on the host, longer than a small layer's kernels, and an unheld event pair
  // would rank the plans by that host cost (the cold run stays unheld, as a kernel module
  // loaded lazily would deadlock behind the blocker).
  HeldRegion held({{device, stream}}, Hold::kBlocked);
  const auto warm_run = [&](std::size_t plan) {
    return held.run({}, [&](std::size_t, cudaStream_t st) { run(plan, st); }).lane_s.at(0);
  };
  TimingEvents events;
  std::vector<double> seconds;
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < plans_.plans.size(); ++i) {
    double cold = 0;
    try {
      cold = events.time(stream, [&] { run(i, stream); });
    } catch (const cudnn::CudnnError&) {
      seconds.push_back(std::numeric_limits<double>::infinity());
      continue;
    }
    if (cold > kSlowerThanBest * best && cold > kLongRun_s) {
      seconds.push_back(cold);
      continue;
    }
    const double warm = std::min(warm_run(i), warm_run(i));
    seconds.push_back(warm);
    best = std::min(best, warm);
  }
  return seconds;
}

void ConvCase::keep(const std::vector<std::size_t>& indices) {
  std::vector<ConvPlan> kept;
  for (std::size_t i : indices) kept.push_back(std::move(plans_.plans.at(i)));
  plans_.plans = std::move(kept);
}

void ConvCase::bind(void* workspace) { variant_pack_ = make_variant_pack(x_.get(), w_.get(), y_.get(), workspace); }

void ConvCase::run(std::size_t plan, cudaStream_t stream) const {
  GPUBENCH_CUDNN(cudnn::CudnnApi::get().cudnnSetStream(handle_, stream));
  cudnn::execute(handle_, plans_.plans[plan], variant_pack_);
}

void ConvCase::verify(State& s, cudaStream_t stream) const {
  const gpubench::DeviceBuffer& written = spec_.pass == ConvPass::kForward        ? y_
                                : spec_.pass == ConvPass::kBackwardData ? x_
                                                                        : w_;
  const kernels::ConvBuffers buffers{x_.get(), w_.get(), y_.get()};
  for (std::size_t i = 0; i < plans_.plans.size(); ++i) {
    kernels::poison(written.get(), written.bytes(), stream);
    run(i, stream);
    const kernels::ConvCheck check =
        kernels::check_conv_sampled(direction(spec_.pass), geometry_, buffers, element(spec_.precision),
                                    tolerance(spec_.precision), verification_samples(spec_), 0xC0417 + i, stream);
    s.verify(check.failed == 0, spec_.layer.name + " " + pass_name(spec_.pass) + " " + plans_.plans[i].choice.label() +
                                    ": " + std::to_string(check.failed) + " of " + std::to_string(check.checked) +
                                    " points off (" + check.first_failure + ")");
  }
}

std::vector<TuneCandidate> ConvCase::candidates() const {
  return cudnn::tune_candidates(plans_, [this](std::size_t plan, cudaStream_t stream) { run(plan, stream); });
}

std::size_t ConvCase::heuristic_index() const { return cudnn::heuristic_index(plans_); }

std::int64_t verification_samples(const ConvSpec& spec) {
  constexpr std::int64_t kPoints = 4096, kTermBudget = std::int64_t{1} << 28;
  if (spec.pass != ConvPass::kBackwardFilter) return kPoints;
  const auto out = spec.layer.output();
  const std::int64_t terms_per_point = spec.n * out[0] * out[1] * out[2];
  return std::clamp<std::int64_t>(kTermBudget / terms_per_point, 64, kPoints);
}

void set_conv_peak(State& s, Precision precision, double per_second_of, double fast_algorithm_bound) {
  const GpuInfo& gpu = s.gpu(s.device());
  const std::string key = precision_name(precision);
  const auto rate = gpu.tflops_peak.find(key);
  if (rate == gpu.tflops_peak.end() || rate->second <= 0) {
    s.set_peak(0, gpu.tflops_peak_source.empty() ? "no datasheet rate for " + key : gpu.tflops_peak_source);
    return;
  }
  s.set_peak(rate->second * 1e12 / per_second_of, gpu.tflops_peak_source + ", dense " + key);
  if (fast_algorithm_bound > 1)
    s.bound_by_peak_times(fast_algorithm_bound,
                          "flops are the direct convolution's; a Winograd or FFT engine does fewer, at least one "
                          "multiply-add per (n, k, c, output point), so a figure is implausible only above " +
                              std::to_string(fast_algorithm_bound) + " x the datasheet peak");
}

ConvSpec spec_from_axes(const State& s, ConvPass pass, const ConvLayer& layer) {
  ConvSpec spec;
  spec.layer = layer;
  spec.n = s.get_int("n");
  spec.precision = parse_precision(s.get_str("type"));
  spec.layout = parse_layout(s.get_str("layout"));
  spec.pass = pass;
  return spec;
}

std::int64_t workspace_limit_bytes(const State& s) { return s.get_int("workspace_mib") << 20; }

nlohmann::json tune_shape(const ConvSpec& spec, std::int64_t workspace_limit) {
  const ConvLayer& l = spec.layer;
  return {{"dims", l.spatial_dims}, {"c", l.c},           {"k", l.k},
          {"groups", l.groups},     {"input", l.input},   {"filter", l.filter},
          {"stride", l.stride},     {"pad", l.pad},       {"dilation", l.dilation},
          {"n", spec.n},            {"type", precision_name(spec.precision)},
          {"layout", spec.layout == Layout::kNhwc ? "nhwc" : "nchw"}, {"pass", pass_name(spec.pass)},
          {"workspace", workspace_limit}};
}

}  // namespace gpubench::conv
