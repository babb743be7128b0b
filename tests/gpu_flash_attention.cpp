// GPU tests of our fused attention kernel (ctest label `gpu`): fp16 and bf16, head dims 64 and
// 128, causal and not, sequence lengths off the tile sizes, checked against the FP32 reference
// with the suite's tolerances; the log-sum-exp is finite on every row. S = 1000, D = 64 is the
// case the sanitizers run (compute-sanitizer --tool memcheck|racecheck
// --gtest_filter='GpuFlashAttention.*Seq1000*'). Without a GPU every test here skips.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "benches/attention/attention_case.h"
#include "harness/core/cuda_check.h"
#include "harness/core/streams.h"
#include "kernels/flash_attention.cuh"
#include "tests/test_support.h"

namespace gpubench::attention {
namespace {

void expect_matches_reference(std::int64_t seq, std::int64_t head_dim, bool causal, Element element) {
  GPUBENCH_REQUIRE_GPU();
  const OwnedStream stream;
  AttentionShape shape;
  shape.batch = 2, shape.heads = 3, shape.seq = seq, shape.head_dim = head_dim, shape.causal = causal;
  shape.element = element;
  const AttentionInputs inputs(shape, 0x5EED, stream.get());
  DeviceBuffer lse(sizeof(float) * static_cast<std::size_t>(shape.heads_total() * seq));
  const kernels::FlashAttentionArgs args{inputs.q(), inputs.k(), inputs.v(), inputs.o(), lse.as<float>(),
                                         shape.heads_total(), seq, head_dim,
                                         static_cast<float>(shape.softmax_scale()), causal, float16_kind(element)};
  kernels::flash_attention_forward(args, stream.get());
  const kernels::AttentionProblem problem{shape.heads_total(), seq, head_dim, static_cast<float>(shape.softmax_scale()),
                                          causal, float16_kind(element)};
  const kernels::AttentionCheck check =
      kernels::check_attention_sampled(problem, inputs.q(), inputs.k(), inputs.v(), inputs.o(), tolerance(element),
                                       kVerifiedRows, 0xA77E, stream.get());
  EXPECT_EQ(check.rows_failed, 0) << check.first_failure;
  std::vector<float> host(static_cast<std::size_t>(shape.heads_total() * seq));
  GPUBENCH_CUDA(cudaMemcpyAsync(host.data(), lse.get(), lse.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  GPUBENCH_CUDA(cudaStreamSynchronize(stream.get()));
  for (std::size_t i = 0; i < host.size(); ++i) ASSERT_TRUE(std::isfinite(host[i])) << "row " << i;
}

TEST(GpuFlashAttention, Seq1000HeadDim64) {
  for (const bool causal : {false, true}) expect_matches_reference(1000, 64, causal, Element::kFp16);
}

TEST(GpuFlashAttention, OddLengthsBothTypesBothHeadDims) {
  for (const Element element : {Element::kFp16, Element::kBf16})
    for (const std::int64_t head_dim : {64, 128})
      for (const std::int64_t seq : {1, 77, 129, 1000})
        for (const bool causal : {false, true}) {
          SCOPED_TRACE(std::to_string(seq) + " x " + std::to_string(head_dim) + (causal ? " causal" : ""));
          expect_matches_reference(seq, head_dim, causal, element);
        }
}

TEST(GpuFlashAttention, LongSequence) {
  for (const bool causal : {false, true}) expect_matches_reference(4096, 128, causal, Element::kBf16);
}

}  // namespace
}  // namespace gpubench::attention
