// GPU tests of attention's cuDNN path (ctest label `gpu`, issue 34): every plan cuDNN offers for
// the fused pattern (impl:cudnn) and for its single SDPA operation (impl:cudnn_unified) passes the
// FP32 reference on sampled rows, as attention/forward verifies them, and the SDPA operation
// declines a causal shape with its reason. Without a GPU every test here skips.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "benches/attention/attention_case.h"
#include "harness/core/cudnn/cudnn_api.h"
#include "harness/core/family.h"
#include "harness/core/state.h"
#include "harness/system/capture.h"
#include "tests/test_support.h"

namespace gpubench::attention {
namespace {

const Family& gpu_attention_family =
    family("unittest/gpu_cudnn_attention").axis_str("case", {"a"}).hidden().run([](State&) {});

AttentionShape shape_of(std::int64_t heads, std::int64_t seq, std::int64_t head_dim, Element element, bool causal) {
  AttentionShape shape;
  shape.batch = 2;
  shape.heads = heads;
  shape.seq = seq;
  shape.head_dim = head_dim;
  shape.element = element;
  shape.causal = causal;
  return shape;
}

class GpuCudnnAttention : public ::testing::Test {
 protected:
  GpuCudnnAttention() : instance_(gpu_attention_family.expand(ExpandOptions{}).at(0)) {
    if (testing::gpu_present()) context_ = capture_context();
  }
  // Every plan of `form` for `shape` against the reference, or, where the form declines the shape
  // on this cuDNN (sdpa_form_unsupported), no plan at all.
  void expect_plans_verify(const AttentionShape& shape, SdpaForm form) {
    const cudnn::CudnnHandle handle(0);
    State s(instance_, settings_, context_);
    const AttentionInputs inputs(shape, 0x5EED, s.stream());
    CudnnAttention fused(handle, inputs, {std::int64_t{256} << 20, 8, nullptr}, form);
    if (!sdpa_form_unsupported(form, SdpaMode::kInference, handle.version_number(), shape).empty()) {
      EXPECT_FALSE(fused.runnable());
      return;
    }
    ASSERT_TRUE(fused.runnable()) << fused.why_not_runnable();
    DeviceBuffer workspace(static_cast<std::size_t>(std::max<std::int64_t>(fused.largest_workspace(), 1)));
    fused.bind(workspace.get());
    for (std::size_t i = 0; i < fused.plans().size(); ++i)
      inputs.verify(s, fused.plans()[i].choice.label(), [&](cudaStream_t stream) { fused.run(i, stream); }, s.stream());
    const BenchResult r = s.finish();
    EXPECT_TRUE(r.verified) << r.error;
  }
  Instance instance_;
  RunSettings settings_;
  Context context_;
};

TEST_F(GpuCudnnAttention, EveryPlanOfBothGraphsPassesTheReference) {
  GPUBENCH_REQUIRE_GPU();
  const AttentionShape shapes[] = {
      shape_of(4, 77, 64, Element::kFp16, false), shape_of(2, 300, 128, Element::kBf16, false),
      shape_of(2, 129, 96, Element::kFp16, false), shape_of(4, 129, 64, Element::kBf16, true)};
  for (const AttentionShape& shape : shapes)
    for (const SdpaForm form : {SdpaForm::kDecomposed, SdpaForm::kUnified}) {
      SCOPED_TRACE("seq " + std::to_string(shape.seq) + " head_dim " + std::to_string(shape.head_dim) +
                   (shape.causal ? " causal" : "") + (form == SdpaForm::kUnified ? " unified" : " decomposed"));
      expect_plans_verify(shape, form);
    }
}

TEST_F(GpuCudnnAttention, TheSdpaOperationDeclinesACausalShapeSayingWhy) {
  GPUBENCH_REQUIRE_GPU();
  const cudnn::CudnnHandle handle(0);
  State s(instance_, settings_, context_);
  const AttentionInputs inputs(shape_of(2, 64, 64, Element::kFp16, true), 0x5EED, s.stream());
  const CudnnAttention fused(handle, inputs, {std::int64_t{256} << 20, 8, nullptr}, SdpaForm::kUnified);
  EXPECT_FALSE(fused.runnable());
  EXPECT_FALSE(fused.why_not_runnable().empty());
}

}  // namespace
}  // namespace gpubench::attention
