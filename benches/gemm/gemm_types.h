#pragma once
// What a GEMM of the gemm suite is, independently of cuBLASLt: its precision (operand, output
// and compute types), its shape and layout, and what it counts (flops, bytes) and tolerates.
// Nothing here calls CUDA, so that the CPU tests cover it.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/gemm_reference.cuh"

namespace gpubench::gemm {

using Element = kernels::GemmElement;
std::size_t element_bytes(Element element);
const char* element_name(Element element);  // "fp32", "bf16", "fp8_e4m3", ...

// One value of the `type` axis: every type the GEMM involves, so that TF32 is never FP32.
struct Precision {
  std::string name;         // the axis value: "fp32", "tf32", "fp16", "bf16", "fp8_e4m3", "fp8_e4m3_e5m2"
  Element a, b, d;          // operand and output types (C has D's type)
  std::string compute;      // cuBLAS compute type, as named in cublas_api.h
  std::string peak_key;     // key of the datasheet table: "fp32", "tf32", "fp16", "bf16", "fp8"
  double tolerance;         // largest relative error against the FP64 reference
  bool scaled;              // FP8: per-tensor scales on A and B
  int min_cc;               // compute capability x 10 the type needs (FP8 tensor cores: 89)
};
const std::vector<Precision>& precisions();
std::vector<std::string> precision_names();
const Precision& find_precision(const std::string& name);  // throws std::invalid_argument

// Column-major, as cuBLAS: D (m x n) = op(A) (m x k) * op(B) (k x n). `tn`: A stored k x m and
// transposed (the layout FP8 needs, and PyTorch's x @ W.T), B stored k x n; `nn`: A stored m x k.
enum class Layout { kTN, kNN };
Layout parse_layout(const std::string& name);  // throws std::invalid_argument
const char* layout_name(Layout layout);

struct Shape {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  Layout layout = Layout::kTN;
};

// 2 m n k per GEMM, times the batch.
double gemm_flops(const Shape& shape);
// A and B read once and D written once, times the batch: what a memory-bound GEMM must move.
double gemm_bytes(const Shape& shape, const Precision& precision);
// A GEMM this thin is bound by the bytes of its weights (decode): bandwidth_gbps is reported.
bool is_memory_bound_shape(const Shape& shape);

// The operand sets (A, B and D: gemm_bytes) a cold-L2 measurement rotates through so that their
// total exceeds twice the L2: 1 when one set already does.
int cold_operand_sets(double set_bytes, double l2_bytes);

// The cuBLASLt workspace: GPUBENCH_GEMM_WORKSPACE_MIB when set (a positive integer, else a
// UsageError), else kDefaultWorkspaceMib. Larger workspaces let more split-K algorithms run.
constexpr std::size_t kDefaultWorkspaceMib = 64;
std::size_t parse_workspace_mib(const char* text);  // null or empty: the default
std::size_t workspace_bytes();

// The algorithm identity cuBLASLt reports for a chosen algorithm (gpubench.choice).
struct AlgoIdentity {
  int id = 0, tile = 0, stages = 0, splitk = 0, reduction = 0, swizzle = 0, custom = 0;
  int inner_shape = 0, cluster_shape = 0;
  std::size_t workspace_bytes = 0;
};
nlohmann::json to_json(const AlgoIdentity& algo);
std::string label(const AlgoIdentity& algo);  // short, for tables

}  // namespace gpubench::gemm
