// gemm/matmul: one cuBLASLt GEMM per shape of configs/gemm_shapes.json (batch 1), per type,
// layout and algorithm choice.
#include "benches/gemm/gemm_case.h"

namespace {

const auto& matmul_family = gpubench::gemm::gemm_family(
    "gemm/matmul",
    "cuBLASLt matmul D = op(A) B, column-major as cuBLAS (layout tn: A stored k x m and transposed, PyTorch's "
    "x @ W.T; nn: A stored m x k), alpha 1, beta 0, random data in [0.5, 1.5). Shapes (m, n, k) and the types, "
    "layouts and algos each runs by default come from configs/gemm_shapes.json (GPUBENCH_GEMM_SHAPES names "
    "another file): squares 1024-16384 and 4095 in bf16, 4096 and 8192 in every type, Llama-3 8B and 70B QKV, "
    "attention output, MLP up/gate and down at 1-16384 tokens (m), heuristic only; --config narrows any axis, "
    "a shape is added in the file. algo:heuristic is cuBLASLt's "
    "first pick, algo:best the fastest of its top " +
        std::to_string(gpubench::gemm::kBestCandidates) +
        " (gpubench.choice names each). tflops counts 2 m n k; for m or n <= 256 bandwidth_gbps counts A, B and D "
        "once each. Operands stay in L2 between GEMMs where they fit (note cache_resident; gemm/cache measures "
        "cold L2). Verified against an FP64 reference, whole up to 2^22 elements of D, else 64 rows and 64 "
        "columns. FP8 types need compute capability 8.9 and are skipped below it. The workspace is "
        "GPUBENCH_GEMM_WORKSPACE_MIB (default 64).",
    gpubench::gemm::ShapeUse::kMatmul);

}  // namespace
