// gemm/strided: strided-batched cuBLASLt GEMMs (attention's per-head products) from the
// shapes of configs/gemm_shapes.json with batch > 1.
#include "benches/gemm/gemm_case.h"

namespace {

const auto& strided_family = gpubench::gemm::gemm_family(
    "gemm/strided",
    "cuBLASLt strided-batched matmul, batch GEMMs of one shape at a stride of one matrix, as gemm/matmul "
    "otherwise (layouts, algos, data, verification of the first and last batch). Shapes from "
    "configs/gemm_shapes.json entries with batch > 1: attention scores (Q K^T) and values (P V) per head of 32 "
    "at 2048 tokens, head size 128. tflops counts 2 m n k x batch.",
    gpubench::gemm::ShapeUse::kStrided);

}  // namespace
