// GPU tests of our fused attention kernels (ctest label `gpu`), the FlashAttention-2-style one and
// its Hopper build (on compute capability 9.0 only): fp16 and bf16, head dims 64 and 128 (and 256
// for the Hopper build; e4m3 at 128), causal and not, sequence lengths off the tile sizes, checked
// against the FP32 reference with the suite's tolerances; the log-sum-exp is finite on every row. S = 1000 is
// the case the sanitizers run (compute-sanitizer --tool memcheck|racecheck|synccheck
// --gtest_filter='GpuFlashAttention*.*Seq1000*'). Without a GPU every test here skips.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <vector>

#include "benches/attention/attention_case.h"
#include "benches/attention/fp8_inputs.h"
#include "harness/core/cuda_check.h"
#include "harness/core/streams.h"
#include "kernels/flash_attention.cuh"
#include "kernels/flash_attention_sm90.cuh"
#include "kernels/flash_sm90_tiling.cuh"
#include "kernels/flash_sm90_v_pack.cuh"
#include "tests/test_support.h"

namespace gpubench::attention {
namespace {

using Forward = void (*)(const kernels::FlashAttentionArgs&, cudaStream_t);

void expect_finite(const DeviceBuffer& lse, cudaStream_t stream) {
  std::vector<float> host(lse.bytes() / sizeof(float));
  GPUBENCH_CUDA(cudaMemcpyAsync(host.data(), lse.get(), lse.bytes(), cudaMemcpyDeviceToHost, stream));
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  for (std::size_t i = 0; i < host.size(); ++i) ASSERT_TRUE(std::isfinite(host[i])) << "row " << i;
}

void expect_matches_reference(Forward forward, std::int64_t seq, std::int64_t head_dim, bool causal,
                              Element element) {
  const OwnedStream stream;
  AttentionShape shape;
  shape.batch = 2, shape.heads = 3, shape.seq = seq, shape.head_dim = head_dim, shape.causal = causal;
  shape.element = element;
  const AttentionInputs inputs(shape, 0x5EED, stream.get());
  DeviceBuffer lse(sizeof(float) * static_cast<std::size_t>(shape.heads_total() * seq));
  const kernels::FlashAttentionArgs args{inputs.q(), inputs.k(), inputs.v(), inputs.o(), lse.as<float>(),
                                         shape.heads_total(), seq, head_dim,
                                         static_cast<float>(shape.softmax_scale()), causal, float16_kind(element)};
  forward(args, stream.get());
  const kernels::AttentionProblem problem{shape.heads_total(), seq, head_dim, static_cast<float>(shape.softmax_scale()),
                                          causal, float16_kind(element)};
  const kernels::AttentionCheck check =
      kernels::check_attention_sampled(problem, inputs.q(), inputs.k(), inputs.v(), inputs.o(), tolerance(element),
                                       kVerifiedRows, 0xA77E, stream.get());
  EXPECT_EQ(check.rows_failed, 0) << check.first_failure;
  expect_finite(lse, stream.get());
}

void expect_fp8_matches_reference(std::int64_t seq, bool causal) {
  SCOPED_TRACE("e4m3, " + std::to_string(seq) + (causal ? " causal" : ""));
  const OwnedStream stream;
  AttentionShape shape;
  shape.batch = 2, shape.heads = 3, shape.seq = seq, shape.head_dim = 128, shape.causal = causal;
  const Fp8AttentionInputs inputs(shape, 0x5EED, stream.get());
  DeviceBuffer lse(sizeof(float) * static_cast<std::size_t>(shape.heads_total() * seq));
  kernels::FlashAttentionFp8Args args = inputs.args();
  args.lse = lse.as<float>();
  kernels::flash_attention_forward_sm90_fp8(args, stream.get());
  const kernels::AttentionCheck check = inputs.check(stream.get());
  EXPECT_EQ(check.rows_failed, 0) << check.first_failure;
  ::testing::Test::RecordProperty("worst_row_l2_error_" + std::to_string(seq) + (causal ? "_causal" : ""),
                 std::to_string(check.worst_row_l2));
  expect_finite(lse, stream.get());
}

void expect_odd_lengths_match(Forward forward, std::initializer_list<std::int64_t> head_dims) {
  for (const Element element : {Element::kFp16, Element::kBf16})
    for (const std::int64_t head_dim : head_dims)
      for (const std::int64_t seq : {1, 77, 129, 1000})
        for (const bool causal : {false, true}) {
          SCOPED_TRACE(std::to_string(seq) + " x " + std::to_string(head_dim) + (causal ? " causal" : ""));
          expect_matches_reference(forward, seq, head_dim, causal, element);
        }
}

TEST(GpuFlashAttention, Seq1000HeadDim64) {
  GPUBENCH_REQUIRE_GPU();
  for (const bool causal : {false, true})
    expect_matches_reference(kernels::flash_attention_forward, 1000, 64, causal, Element::kFp16);
}

TEST(GpuFlashAttention, OddLengthsBothTypesBothHeadDims) {
  GPUBENCH_REQUIRE_GPU();
  expect_odd_lengths_match(kernels::flash_attention_forward, {64, 128});
}

TEST(GpuFlashAttention, LongSequence) {
  GPUBENCH_REQUIRE_GPU();
  for (const bool causal : {false, true})
    expect_matches_reference(kernels::flash_attention_forward, 4096, 128, causal, Element::kBf16);
}

// The Hopper build needs compute capability 9.0; elsewhere it refuses, which is tested on the CPU.
bool hopper() {
  int major = 0, minor = 0;
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
  return kernels::flash_attention_sm90_unsupported(64, major, minor).empty();
}

TEST(GpuFlashAttentionSm90, Seq1000EveryHeadDim) {
  GPUBENCH_REQUIRE_GPU();
  if (!hopper()) GTEST_SKIP() << "needs compute capability 9.0";
  for (const std::int64_t head_dim : {64, 128, 256})
    for (const bool causal : {false, true})
      expect_matches_reference(kernels::flash_attention_forward_sm90, 1000, head_dim, causal, Element::kFp16);
}

TEST(GpuFlashAttentionSm90, OddLengthsBothTypesEveryHeadDim) {
  GPUBENCH_REQUIRE_GPU();
  if (!hopper()) GTEST_SKIP() << "needs compute capability 9.0";
  expect_odd_lengths_match(kernels::flash_attention_forward_sm90, {64, 128, 256});
}

TEST(GpuFlashAttentionSm90, LongSequence) {
  GPUBENCH_REQUIRE_GPU();
  if (!hopper()) GTEST_SKIP() << "needs compute capability 9.0";
  for (const Element element : {Element::kFp16, Element::kBf16})
    for (const std::int64_t head_dim : {128, 256})
      for (const bool causal : {false, true})
        expect_matches_reference(kernels::flash_attention_forward_sm90, 4096, head_dim, causal, element);
}

TEST(GpuFlashAttentionSm90, Fp8PackedVHoldsTheKernelsKeyOrder) {
  GPUBENCH_REQUIRE_GPU();
  const OwnedStream stream;
  constexpr std::int64_t kHeads = 2, kSeq = 77, kDim = 128;
  std::vector<std::uint8_t> v(kHeads * kSeq * kDim);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint8_t>(1 + i % 251);
  DeviceBuffer device_v(v.size()), packed(kernels::flash_sm90_packed_v_bytes(kHeads, kSeq, kDim));
  GPUBENCH_CUDA(cudaMemcpyAsync(device_v.get(), v.data(), v.size(), cudaMemcpyHostToDevice, stream.get()));
  kernels::flash_sm90_pack_v_e4m3(device_v.get(), packed.get(), kHeads, kSeq, kDim, stream.get());
  std::vector<std::uint8_t> host(packed.bytes());
  GPUBENCH_CUDA(cudaMemcpyAsync(host.data(), packed.get(), host.size(), cudaMemcpyDeviceToHost, stream.get()));
  GPUBENCH_CUDA(cudaStreamSynchronize(stream.get()));
  const std::int64_t keys = kernels::flash_sm90_fp8_packed_keys(kSeq);
  for (std::int64_t h = 0; h < kHeads; ++h)
    for (std::int64_t d = 0; d < kDim; ++d)
      for (std::int64_t p = 0; p < keys; ++p) {
        const std::int64_t key = kernels::flash_sm90_fp8_key(p);
        const std::uint8_t expected = key < kSeq ? v[(h * kSeq + key) * kDim + d] : 0;
        ASSERT_EQ(host[(h * kDim + d) * keys + p], expected) << "head " << h << " row " << d << " column " << p;
      }
}

TEST(GpuFlashAttentionSm90, Fp8Seq1000BothMasks) {
  GPUBENCH_REQUIRE_GPU();
  if (!hopper()) GTEST_SKIP() << "needs compute capability 9.0";
  for (const bool causal : {false, true}) expect_fp8_matches_reference(1000, causal);
}

TEST(GpuFlashAttentionSm90, Fp8OddAndLongLengths) {
  GPUBENCH_REQUIRE_GPU();
  if (!hopper()) GTEST_SKIP() << "needs compute capability 9.0";
  for (const std::int64_t seq : {1, 77, 129, 4096})
    for (const bool causal : {false, true}) expect_fp8_matches_reference(seq, causal);
}

}  // namespace
}  // namespace gpubench::attention
