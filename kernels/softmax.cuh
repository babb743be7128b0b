#pragma once
// The softmax of the unfused attention path: each row of the S x S score matrix, scaled, with an
// optional causal mask (row i keeps columns j <= i), computed in FP32 and written back in place
// in the scores' 16-bit type as the probabilities P that P·V reads.
#include <cuda_runtime.h>

#include <cstdint>

namespace gpubench::kernels {

enum class Float16Kind { kHalf, kBfloat16 };

// `scores` holds heads_total x seq rows of seq elements each; P overwrites them (a masked entry
// becomes exactly 0). A causal row reads only its seq_index + 1 unmasked scores.
void softmax_rows(void* scores, std::int64_t heads_total, std::int64_t seq, float scale, bool causal,
                  Float16Kind kind, cudaStream_t stream);

}  // namespace gpubench::kernels
