#include "benches/gemm/gemm_types.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "harness/model/exit_codes.h"

namespace gpubench::gemm {

std::size_t element_bytes(Element element) {
  switch (element) {
    case Element::kFp32: return 4;
    case Element::kFp16:
    case Element::kBf16: return 2;
    default: return 1;
  }
}

const char* element_name(Element element) {
  switch (element) {
    case Element::kFp32: return "fp32";
    case Element::kFp16: return "fp16";
    case Element::kBf16: return "bf16";
    case Element::kFp8E4M3: return "fp8_e4m3";
    case Element::kFp8E5M2: return "fp8_e5m2";
  }
  return "?";
}

// Tolerances are relative to the FP64 reference on positive data in [0.5, 1.5), where no
// cancellation hides an error: FP32 leaves room for K = 16384 accumulations; TF32 for its
// 10-bit inputs; FP16 and BF16 for the rounding of their output (2^-11, 2^-8) and FP8, whose
// inputs the reference reads exactly, for its BF16 output and Hopper's FP8 accumulation.
const std::vector<Precision>& precisions() {
  static const std::vector<Precision> table = {
      {"fp32", Element::kFp32, Element::kFp32, Element::kFp32, "CUBLAS_COMPUTE_32F_PEDANTIC", "fp32", 1e-4, false, 0},
      {"tf32", Element::kFp32, Element::kFp32, Element::kFp32, "CUBLAS_COMPUTE_32F_FAST_TF32", "tf32", 2e-3, false, 0},
      {"fp16", Element::kFp16, Element::kFp16, Element::kFp16, "CUBLAS_COMPUTE_32F", "fp16", 2e-3, false, 0},
      {"bf16", Element::kBf16, Element::kBf16, Element::kBf16, "CUBLAS_COMPUTE_32F", "bf16", 1e-2, false, 0},
      {"fp8_e4m3", Element::kFp8E4M3, Element::kFp8E4M3, Element::kBf16, "CUBLAS_COMPUTE_32F", "fp8", 2e-2, true, 89},
      {"fp8_e4m3_e5m2", Element::kFp8E4M3, Element::kFp8E5M2, Element::kBf16, "CUBLAS_COMPUTE_32F", "fp8", 2e-2, true, 89},
  };
  return table;
}

std::vector<std::string> precision_names() {
  std::vector<std::string> names;
  for (const auto& p : precisions()) names.push_back(p.name);
  return names;
}

const Precision& find_precision(const std::string& name) {
  for (const auto& p : precisions())
    if (p.name == name) return p;
  throw std::invalid_argument("unknown GEMM type '" + name + "'");
}

Layout parse_layout(const std::string& name) {
  if (name == "tn") return Layout::kTN;
  if (name == "nn") return Layout::kNN;
  throw std::invalid_argument("unknown GEMM layout '" + name + "' (known: tn, nn)");
}

const char* layout_name(Layout layout) { return layout == Layout::kTN ? "tn" : "nn"; }

double gemm_flops(const Shape& shape) {
  return 2.0 * double(shape.m) * double(shape.n) * double(shape.k) * double(shape.batch);
}

double gemm_bytes(const Shape& shape, const Precision& precision) {
  const double m = double(shape.m), n = double(shape.n), k = double(shape.k);
  return (m * k * double(element_bytes(precision.a)) + k * n * double(element_bytes(precision.b)) +
          m * n * double(element_bytes(precision.d))) *
         double(shape.batch);
}

bool is_memory_bound_shape(const Shape& shape) { return std::min(shape.m, shape.n) <= 256; }

int cold_operand_sets(double set_bytes, double l2_bytes) {
  if (set_bytes <= 0) throw std::invalid_argument("operand set of no bytes");
  if (set_bytes > 2.0 * l2_bytes) return 1;
  return static_cast<int>(std::floor(2.0 * l2_bytes / set_bytes)) + 1;
}

std::size_t parse_workspace_mib(const char* text) {
  if (!text || !*text) return kDefaultWorkspaceMib;
  char* end = nullptr;
  const long long mib = std::strtoll(text, &end, 10);
  if (*end != '\0' || mib <= 0 || mib > 65536)
    throw UsageError{kExitBadInput, std::string("GPUBENCH_GEMM_WORKSPACE_MIB must be a positive number of MiB up to 65536, not '") +
                                        text + "'"};
  return static_cast<std::size_t>(mib);
}

std::size_t workspace_bytes() { return parse_workspace_mib(std::getenv("GPUBENCH_GEMM_WORKSPACE_MIB")) << 20; }

nlohmann::json to_json(const AlgoIdentity& algo) {
  return {{"algo_id", algo.id},         {"tile", algo.tile},
          {"stages", algo.stages},      {"splitk", algo.splitk},
          {"reduction", algo.reduction}, {"swizzle", algo.swizzle},
          {"custom", algo.custom},      {"inner_shape", algo.inner_shape},
          {"cluster_shape", algo.cluster_shape}, {"workspace_bytes", algo.workspace_bytes}};
}

std::string label(const AlgoIdentity& algo) {
  return "algo " + std::to_string(algo.id) + " tile " + std::to_string(algo.tile) + " stages " +
         std::to_string(algo.stages) + " splitk " + std::to_string(algo.splitk) + " swizzle " +
         std::to_string(algo.swizzle) + " custom " + std::to_string(algo.custom);
}

}  // namespace gpubench::gemm
