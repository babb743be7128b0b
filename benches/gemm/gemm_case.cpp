#include "benches/gemm/gemm_case.h"

#include "harness/core/family.h"

#include "harness/core/cuda_check.h"
#include "harness/model/number_text.h"
#include "kernels/random_fill.cuh"

namespace gpubench::gemm {
namespace {

constexpr std::uint64_t kSeedA = 0x6E3A, kSeedB = 0x6E3B;
// Per-tensor FP8 scales: powers of two, so the reference's product of them is exact.
constexpr float kScaleA = 0.5f, kScaleB = 0.25f;

// The dense datasheet rate, TFLOP/s, of the H100 and H200 SXM (NVIDIA H200 datasheet; H100
// datasheet, SXM column): the sparse figures halved. 0 where the GPU is not in the table.
double datasheet_tflops(const GpuInfo& gpu, const std::string& key) {
  const bool hopper_sxm = gpu.name.find("H200") != std::string::npos || gpu.name.find("H100 80GB HBM3") != std::string::npos ||
                          gpu.name.find("H100 SXM") != std::string::npos;
  if (!hopper_sxm) return 0;
  static const std::map<std::string, double> rates = {
      {"fp32", 67.0}, {"tf32", 494.7}, {"fp16", 989.4}, {"bf16", 989.4}, {"fp8", 1978.9}};
  return rates.at(key);
}

// One set, or for l2:cold enough sets to exceed twice the L2; skips a shape that cannot be cold
// and a type the GPU cannot run (FP8 is one value of the type axis, so its compute capability is
// the type's requirement: a family-wide needs_cc would drop every type on an A100).
int operand_set_count(State& s, const GemmSpec& spec) {
  const GpuInfo& gpu = s.gpu(s.device());
  if (gpu.cc_major * 10 + gpu.cc_minor < spec.precision->min_cc)
    s.skip(spec.precision->name + " needs compute capability " + std::to_string(spec.precision->min_cc / 10) + "." +
           std::to_string(spec.precision->min_cc % 10) + " (gpu" + std::to_string(gpu.index) + " is " +
           std::to_string(gpu.cc_major) + "." + std::to_string(gpu.cc_minor) + ")");
  if (!spec.cold_l2) return 1;
  const double l2_bytes = static_cast<double>(s.gpu(s.device()).l2_bytes);
  const double set_bytes = gemm_bytes(spec.shape, *spec.precision);
  if (set_bytes > l2_bytes)
    s.skip("the operands (" + std::to_string(set_bytes) + " bytes) exceed the L2: hot and cold L2 are the same");
  return cold_operand_sets(set_bytes, l2_bytes);
}

void note_setup(State& s, const GemmSpec& spec, int operand_sets, double l2_bytes) {
  const Precision& p = *spec.precision;
  const double set_bytes = gemm_bytes(spec.shape, p);
  s.note("a_type", element_name(p.a));
  s.note("b_type", element_name(p.b));
  s.note("d_type", element_name(p.d));
  s.note("compute_type", p.compute);
  s.note("scale_type", "fp32");
  if (p.scaled) s.note("scales", {{"a", kScaleA}, {"b", kScaleB}});
  s.note("layout", layout_name(spec.shape.layout));
  s.note("batch", spec.shape.batch);
  s.note("tolerance", p.tolerance);
  s.note("l2", spec.cold_l2 ? "cold" : "hot");
  s.note("operand_sets", operand_sets);
  s.note("operand_bytes", set_bytes);
  // A hot operand set that fits in L2 is served from it: bandwidth_gbps is then not HBM's.
  s.note("cache_resident", !spec.cold_l2 && set_bytes <= l2_bytes);
  s.note("cublaslt", lt_version());
  s.note("workspace_limit_bytes", s.resource<LtWorkspace>().buffer.bytes());
}

}  // namespace

Shape shape_of(const Params& params) {
  Shape shape;
  shape.m = params.integer("m");
  shape.n = params.integer("n");
  shape.k = params.integer("k");
  shape.batch = params.has("batch") ? params.integer("batch") : 1;
  shape.layout = parse_layout(params.str("layout"));
  return shape;
}

GemmSpec spec_of(const Params& params) {
  GemmSpec spec;
  spec.precision = &find_precision(params.str("type"));
  spec.shape = shape_of(params);
  spec.best = params.has("algo") && params.str("algo") == "best";
  spec.cold_l2 = params.has("l2") && params.str("l2") == "cold";
  return spec;
}

std::map<std::string, std::string> restricted_axes(const Params& params) {
  std::map<std::string, std::string> axes;
  for (const char* axis : {"type", "layout", "algo"})
    if (params.has(axis)) axes[axis] = params.str(axis);
  return axes;
}

bool options_valid(const Params&) { return workspace_bytes() > 0; }

bool listed_shape(const Params& params, ShapeUse use) {
  return options_valid(params) && shape_catalog().allows(shape_of(params), restricted_axes(params), use);
}

void set_tflops_peak(State& s, const Precision& precision) {
  const GpuInfo& gpu = s.gpu(s.device());
  const double peak = datasheet_tflops(gpu, precision.peak_key);
  if (peak > 0) s.set_peak(peak, gpu.name + " datasheet, dense " + precision.peak_key);
}

OperandSets::OperandSets(const Precision& p, const Shape& shape, int count, cudaStream_t stream)
    : precision_(p), shape_(shape) {
  const auto a_elements = static_cast<std::size_t>(shape.m * shape.k * shape.batch);
  const auto b_elements = static_cast<std::size_t>(shape.k * shape.n * shape.batch);
  const auto d_elements = static_cast<std::size_t>(shape.m * shape.n * shape.batch);
  for (int i = 0; i < count; ++i) {
    a_.emplace_back(a_elements * element_bytes(p.a));
    b_.emplace_back(b_elements * element_bytes(p.b));
    d_.emplace_back(d_elements * element_bytes(p.d));
    kernels::fill_gemm_operand(a_.back().get(), p.a, a_elements, kSeedA, stream);
    kernels::fill_gemm_operand(b_.back().get(), p.b, b_elements, kSeedB, stream);
    kernels::poison(d_.back().get(), d_.back().bytes(), stream);
  }
  if (p.scaled) {
    a_scale_ = DeviceBuffer(sizeof kScaleA);
    b_scale_ = DeviceBuffer(sizeof kScaleB);
    GPUBENCH_CUDA(cudaMemcpyAsync(a_scale_.get(), &kScaleA, sizeof kScaleA, cudaMemcpyHostToDevice, stream));
    GPUBENCH_CUDA(cudaMemcpyAsync(b_scale_.get(), &kScaleB, sizeof kScaleB, cudaMemcpyHostToDevice, stream));
  }
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
}

kernels::GemmOperands OperandSets::reference_view(int set) const {
  const bool tn = shape_.layout == Layout::kTN;
  kernels::GemmOperands g{precision_.a, precision_.b, precision_.d};
  g.a = a_[set].get();
  g.b = b_[set].get();
  g.d = d_[set].get();
  g.m = shape_.m, g.n = shape_.n, g.k = shape_.k, g.batch = shape_.batch;
  g.a_transposed = tn;
  g.lda = tn ? shape_.k : shape_.m;
  g.ldb = shape_.k;
  g.ldd = shape_.m;
  g.stride_a = shape_.m * shape_.k, g.stride_b = shape_.k * shape_.n, g.stride_d = shape_.m * shape_.n;
  g.scale = precision_.scaled ? double(kScaleA) * double(kScaleB) : 1.0;
  return g;
}

PreparedGemm::PreparedGemm(State& s, const GemmSpec& spec, int candidates)
    : precision_(*spec.precision),
      operands_(*spec.precision, spec.shape, operand_set_count(s, spec), s.stream()),
      handle_(s.resource<LtHandle>()),
      workspace_(s.resource<LtWorkspace>()),
      matmul_(*spec.precision, spec.shape, operands_.scales()) {
  algos_ = matmul_.heuristic(handle_.handle, candidates, workspace_.buffer.bytes());
  if (algos_.empty()) s.skip("cuBLASLt offers no algorithm for this type and shape");
  note_setup(s, spec, operands_.count(), static_cast<double>(s.gpu(s.device()).l2_bytes));
  s.note("candidates", algos_.size());
}

void PreparedGemm::run(std::size_t index, cudaStream_t stream) {
  matmul_.run(handle_.handle, algos_.at(index), operands_.pointers(next_set_), workspace_.buffer, stream);
  next_set_ = (next_set_ + 1) % operands_.count();
}

void PreparedGemm::verify(State& s) const {
  std::uint64_t checked = 0, bad = 0;
  for (int set = 0; set < operands_.count(); ++set) {
    const kernels::GemmCheck check = kernels::check_gemm(operands_.reference_view(set), precision_.tolerance, s.stream());
    checked += check.checked;
    bad += check.bad;
    s.verify(check.bad == 0 && check.checked > 0, "operand set " + std::to_string(set) + ": " + check.summary());
  }
  s.note("checked_elements", checked);
  s.note("bad_elements", bad);
}

void run_gemm(State& s, const GemmSpec& spec) {
  PreparedGemm gemm(s, spec, spec.best ? kBestCandidates : 1);
  std::vector<TuneCandidate> candidates;
  for (std::size_t i = 0; i < gemm.algos().size(); ++i) {
    const AlgoIdentity identity = identify(gemm.algos()[i]);
    candidates.push_back({label(identity), to_json(identity), [&gemm, i](cudaStream_t stream) { gemm.run(i, stream); }});
  }
  s.count_flops(gemm_flops(spec.shape));
  if (is_memory_bound_shape(spec.shape)) s.count_bytes(gemm_bytes(spec.shape, *spec.precision));
  s.set_primary_metric("tflops");
  set_tflops_peak(s, *spec.precision);
  s.queue_samples_behind_blocker();  // cuBLASLt calls are captured into graphs: they never wait on the host
  // Batches of short GEMMs replay as a graph: on Hopper a cublasLtMatmul call costs the host
  // longer than a decode GEMM runs (its TMA descriptors are built per call), so back-to-back
  // calls on a stream time the host; an application replays its decode step as a graph too.
  s.tune(candidates, 0, Batching::kGraph);
  gemm.verify(s);
}

Family& gemm_family(const std::string& name, const std::string& description, ShapeUse use) {
  // 16 candidates of a 16384-cube FP32 GEMM outlast the run's default limit.
  FamilySettings limits;
  limits.timeout_s = 300;
  // GEMMs under 1 ms run in back-to-back batches of 2 ms: the GPU idles between samples, and
  // an idle of 0.2 ms a sample lifted an H200's TF32 4096^3 rate 5-7 % (its clock rose).
  limits.batch_below_s = 1e-3;
  limits.batch_target_s = 2e-3;
  const FamilySettings settings = power_limited(limits);
  Family& f = family(name).describe(description + " " + power_limited_description(settings) +
                                    " GEMMs under 1 ms are timed in back-to-back batches of about 2 ms (a CUDA "
                                    "graph), so that the GPU's idle between samples, which would lift a "
                                    "power-capped clock, stays under 1 %. Samples of one launch (a call or a "
                                    "batch's graph) are queued behind a blocking kernel, about 20 ms of them at "
                                    "a time: the host's cost of issuing them is not timed, and the GPU runs them "
                                    "back to back (notes.busy_pct). Types: " +
                                    precision_description());
  f.axis_str("type", precision_names(), {"bf16"});
  if (use == ShapeUse::kStrided) f.axis_int("batch", declared_values("batch", use));
  // --quick: one shape where listed: 4096 cubed; strided the attention scores (2048 x 2048 x
  // 128); cache the decode GEMM of one token.
  const bool strided = use == ShapeUse::kStrided;
  const std::int64_t quick_m = use == ShapeUse::kCache ? 1 : strided ? 2048 : 4096;
  const std::vector<std::pair<std::string, std::vector<std::int64_t>>> quick = {
      {"m", {quick_m}}, {"n", {strided ? 2048 : 4096}}, {"k", {strided ? 128 : 4096}}};
  for (const auto& [dimension, values] : quick)
    f.axis_int(dimension, declared_values(dimension, use), present(values, declared_values(dimension, use)));
  f.axis_str("layout", {"tn", "nn"}, {"tn"});
  if (use == ShapeUse::kCache)
    f.axis_str("l2", {"hot", "cold"}, {"hot"});
  else
    f.axis_str("algo", {"heuristic", "best"}, {"heuristic"});
  return f.per_device()
      .needs_library("cublasLt")
      .settings(settings)
      .where([use](const Params& p) { return listed_shape(p, use); })
      .run([](State& s) { run_gemm(s, spec_of(s.params())); });
}

std::string precision_description() {
  std::string text;
  for (const auto& p : precisions()) {
    const std::string tolerance = gpubench::significant_text(p.tolerance, 6);
    text += (text.empty() ? "" : "; ") + p.name + ": A " + element_name(p.a) + ", B " + element_name(p.b) + ", D " +
            element_name(p.d) + ", " + p.compute + (p.scaled ? ", per-tensor scales" : "") + ", tolerance " + tolerance;
  }
  return text;
}

}  // namespace gpubench::gemm
