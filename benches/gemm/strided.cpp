// gemm/strided: strided-batched cuBLASLt GEMMs (attention's per-head products) from the
// shapes of configs/gemm_shapes.json with batch > 1.
#include "benches/gemm/gemm_case.h"
#include "harness/core/gpubench.h"

namespace {

using gpubench::gemm::ShapeUse;
using gpubench::gemm::declared_values;

const auto& strided_family =
    gpubench::family("gemm/strided")
        .describe("cuBLASLt strided-batched matmul, batch GEMMs of one shape at a stride of one matrix, as "
                  "gemm/matmul otherwise (layouts, algos, data, verification of the first and last batch). "
                  "Shapes from configs/gemm_shapes.json entries with batch > 1: attention scores (Q K^T) and "
                  "values (P V) per head of 32 at 2048 tokens, head size 128. tflops counts 2 m n k x batch. "
                  "Types: " + gpubench::gemm::precision_description())
        .axis("type", gpubench::gemm::precision_names())
        .quick(std::vector<std::string>{"bf16"})
        .axis("batch", declared_values("batch", ShapeUse::kStrided))
        .axis("m", declared_values("m", ShapeUse::kStrided))
        .axis("n", declared_values("n", ShapeUse::kStrided))
        .axis("k", declared_values("k", ShapeUse::kStrided))
        .axis("layout", {"tn", "nn"})
        .quick(std::vector<std::string>{"tn"})
        .axis("algo", {"heuristic", "best"})
        .quick(std::vector<std::string>{"heuristic"})
        .per_device()
        .needs_library("cublasLt")
        .settings(gpubench::gemm::tuned_settings())
        .where([](const gpubench::Params& p) { return gpubench::gemm::listed_shape(p, ShapeUse::kStrided); })
        .run([](gpubench::State& s) { gpubench::gemm::run_gemm(s, gpubench::gemm::spec_of(s.params())); });

}  // namespace
