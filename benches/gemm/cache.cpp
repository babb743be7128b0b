// gemm/cache: GEMMs whose operands fit in L2, with the operands L2-resident (hot) and not (cold).
#include "benches/gemm/gemm_case.h"

namespace {

const auto& cache_family = gpubench::gemm::gemm_family(
    "gemm/cache",
    "The L2 modes of a GEMM whose operands fit in L2 (configs/gemm_shapes.json entries with l2_modes: decode "
    "GEMMs of 1 and 16 tokens over a 4096 x 4096 weight), cuBLASLt's heuristic pick. l2:hot repeats the GEMM "
    "on one operand set, which stays in L2 (what a loop over one layer sees); l2:cold rotates through enough "
    "copies of A, B and D that together they exceed twice the L2, so each GEMM reads its weights from HBM (what "
    "a model's forward pass sees). A shape whose operands exceed this GPU's L2 is skipped. bandwidth_gbps counts "
    "A, B and D once.",
    gpubench::gemm::ShapeUse::kCache);

}  // namespace
