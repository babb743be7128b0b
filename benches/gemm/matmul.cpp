// gemm/matmul: one cuBLASLt GEMM per shape of configs/gemm_shapes.json (batch 1), per type,
// layout and algorithm choice.
#include "benches/gemm/gemm_case.h"
#include "harness/core/gpubench.h"

namespace {

using gpubench::gemm::ShapeUse;
using gpubench::gemm::declared_values;
using gpubench::gemm::present;

const auto& matmul_family =
    gpubench::family("gemm/matmul")
        .describe("cuBLASLt matmul D = op(A) B, column-major as cuBLAS (layout tn: A stored k x m and transposed, "
                  "PyTorch's x @ W.T; nn: A stored m x k), alpha 1, beta 0, random data in [0.5, 1.5). Shapes (m, "
                  "n, k) and the types, layouts and algos each runs by default come from configs/gemm_shapes.json "
                  "(GPUBENCH_GEMM_SHAPES names another file): squares 1024-16384 and 4095 in bf16, 4096 and 8192 in "
                  "every type, Llama-3 8B and 70B QKV, attention output, MLP up/gate and down at 1-16384 tokens "
                  "(m), heuristic only. algo:heuristic is cuBLASLt's first pick, algo:best the fastest of its top " +
                  std::to_string(gpubench::gemm::kBestCandidates) +
                  " (gpubench.choice names each). tflops counts 2 m n k; for m or n <= 256 bandwidth_gbps counts A, "
                  "B and D once each. Operands stay in L2 between GEMMs where they fit (note cache_resident; "
                  "gemm/cache measures cold L2). Verified against an FP64 reference, whole up to 2^22 elements of "
                  "D, else 64 rows and 64 columns. Types: " +
                  gpubench::gemm::precision_description())
        .axis("type", gpubench::gemm::precision_names())
        .quick(std::vector<std::string>{"bf16"})
        .axis("m", declared_values("m", ShapeUse::kMatmul))
        .quick(present({1, 4096}, declared_values("m", ShapeUse::kMatmul)))
        .axis("n", declared_values("n", ShapeUse::kMatmul))
        .quick(present({4096}, declared_values("n", ShapeUse::kMatmul)))
        .axis("k", declared_values("k", ShapeUse::kMatmul))
        .quick(present({4096}, declared_values("k", ShapeUse::kMatmul)))
        .axis("layout", {"tn", "nn"})
        .quick(std::vector<std::string>{"tn"})
        .axis("algo", {"heuristic", "best"})
        .quick(std::vector<std::string>{"heuristic"})
        .per_device()
        .needs_library("cublasLt")
        .settings(gpubench::gemm::tuned_settings())
        .where([](const gpubench::Params& p) { return gpubench::gemm::listed_shape(p, ShapeUse::kMatmul); })
        .run([](gpubench::State& s) { gpubench::gemm::run_gemm(s, gpubench::gemm::spec_of(s.params())); });

}  // namespace
