#pragma once
// V in the operand layout of our Hopper e4m3 attention kernel: per head, D rows of
// flash_sm90_fp8_packed_keys(S) bytes, column p holding key flash_sm90_fp8_key(p) (zero past S).
// fp8 wgmma reads its B operand K-major only, so P·V needs V with the keys contiguous; the key
// order inside each 16 is what lets P's fragments be S's accumulators unmoved. The benchmark runs
// this on every call beside the kernel, so its figure starts from V as the user holds it.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gpubench::kernels {

std::size_t flash_sm90_packed_v_bytes(std::int64_t heads_total, std::int64_t seq, std::int64_t head_dim);

// `v`: e4m3, heads_total x seq x head_dim (head_dim a multiple of 4); `packed`:
// flash_sm90_packed_v_bytes of them.
void flash_sm90_pack_v_e4m3(const void* v, void* packed, std::int64_t heads_total, std::int64_t seq,
                            std::int64_t head_dim, cudaStream_t stream);

}  // namespace gpubench::kernels
