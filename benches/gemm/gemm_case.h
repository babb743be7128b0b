#pragma once
// One GEMM benchmark of the gemm suite, shared by gemm/matmul, gemm/strided and gemm/cache:
// random operands, the heuristic's candidates, the measured region (through State::tune, so
// that the chosen algorithm is recorded in gpubench.choice) and verification against our
// FP64 reference.
#include <map>
#include <string>

#include <vector>

#include "benches/gemm/gemm_types.h"
#include "benches/gemm/lt_matmul.h"
#include "benches/gemm/shapes.h"
#include "harness/core/state.h"

namespace gpubench::gemm {

// algo:best tunes over this many of the heuristic's candidates (fewer when it offers fewer).
constexpr int kBestCandidates = 16;

struct GemmSpec {
  const Precision* precision = nullptr;
  Shape shape;
  bool best = false;     // algo:best, else the heuristic's first pick
  bool cold_l2 = false;  // l2:cold: operand sets rotate so that none is in L2 when it is used
};

// The shape of an instance from its m, n, k, layout and (where the family has it) batch axes.
Shape shape_of(const Params& params);
// The spec of an instance from its axes: type, the shape, algo (absent: heuristic), l2 (absent: hot).
GemmSpec spec_of(const Params& params);
// The values of the type, layout and algo axes the instance has: what a shape entry's "only" restricts.
std::map<std::string, std::string> restricted_axes(const Params& params);
// A where() filter for expansion: true, or a UsageError (exit 2) for a bad
// GPUBENCH_GEMM_WORKSPACE_MIB, so that a typo stops the run before anything is measured.
bool options_valid(const Params& params);
// A where() filter: options_valid, and the instance's shape is one the shape file lists for `use`, at these axes.
bool listed_shape(const Params& params, ShapeUse use);

// `count` copies of A, B and D, each A and B filled from the same seeds (so every D has the same
// expected value) and every D poisoned (NaN), so that an element no GEMM wrote cannot pass.
class OperandSets {
 public:
  OperandSets(const Precision& precision, const Shape& shape, int count, cudaStream_t stream);
  int count() const { return static_cast<int>(a_.size()); }
  ScalePointers scales() const { return {a_scale_.as<float>(), b_scale_.as<float>()}; }  // FP8, else null
  GemmPointers pointers(int set) const { return {a_[set].get(), b_[set].get(), d_[set].get()}; }
  kernels::GemmOperands reference_view(int set) const;

 private:
  const Precision& precision_;
  Shape shape_;
  std::vector<DeviceBuffer> a_, b_, d_;
  // Each scale in its own allocation: cuBLASLt refuses (NOT_SUPPORTED, at cublasLtMatmul, not
  // in the heuristic) a scale pointer that is not 16-byte aligned, such as the second float of one.
  DeviceBuffer a_scale_, b_scale_;
};

// A GEMM ready to run: operands, descriptors and up to `candidates` of the heuristic's
// algorithms (skips the benchmark where it offers none). Notes what it set up.
class PreparedGemm {
 public:
  PreparedGemm(State& s, const GemmSpec& spec, int candidates);
  const std::vector<cublasLtMatmulHeuristicResult_t>& algos() const { return algos_; }
  // One GEMM with algorithm `index` on the next operand set.
  void run(std::size_t index, cudaStream_t stream);
  // Checks every operand set's D against the reference.
  void verify(State& s) const;

 private:
  const Precision& precision_;
  OperandSets operands_;
  const LtHandle& handle_;
  const LtWorkspace& workspace_;
  LtMatmul matmul_;
  std::vector<cublasLtMatmulHeuristicResult_t> algos_;
  int next_set_ = 0;
};

void run_gemm(State& s, const GemmSpec& spec);

// Declares one of the shape-file families: axes type, [batch,] m, n, k, layout and then algo
// (matmul, strided) or l2 (cache), per device, needing cuBLASLt, running run_gemm on the shapes
// the file lists for `use`. --quick runs bf16, tn, the heuristic's pick, and of the m, n and k the
// file lists those of a 4096-cube and a 1-token decode GEMM over a 4096 x 4096 weight.
Family& gemm_family(const std::string& name, const std::string& description, ShapeUse use);

// The datasheet's dense rate of `precision` on the benchmark's GPU as its peak, where known.
void set_tflops_peak(State& s, const Precision& precision);

// For family descriptions: each type's operand, output and compute types and its tolerance.
std::string precision_description();

}  // namespace gpubench::gemm
