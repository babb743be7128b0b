// GPU tests of grouped and depthwise convolution (ctest label `gpu`, issue 34): the reference
// that verifies cuDNN (kernels/conv_reference.cu) agrees with a plain CPU convolution on every
// point of all three passes, and rejects an output whose groups are mixed up; then cuDNN's plans
// for a grouped (ResNeXt-style) and a depthwise (MobileNetV2-style) layer pass that reference in
// every pass and type, as the conv suite runs them. Without a GPU every test here skips.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "benches/conv/conv_case.h"
#include "harness/core/cuda_check.h"
#include "harness/core/cudnn/cudnn_api.h"
#include "harness/core/family.h"
#include "harness/core/state.h"
#include "harness/core/streams.h"
#include "harness/system/capture.h"
#include "kernels/conv_reference.cuh"
#include "tests/test_support.h"

namespace gpubench::conv {
namespace {

ConvLayer grouped_layer(std::int64_t c, std::int64_t k, std::int64_t groups, std::int64_t hw) {
  ConvLayer layer;
  layer.name = "g" + std::to_string(groups) + "_" + std::to_string(c) + "_" + std::to_string(k);
  layer.c = c, layer.k = k, layer.groups = groups;
  layer.input = {1, hw, hw - 1};  // not square, so that h and w cannot be swapped unseen
  layer.filter = {1, 3, 3};
  layer.pad = {0, 1, 1};
  return layer;
}

// x, w and y of one geometry in FP32 on the host, with the three passes of a direct convolution.
struct HostConv {
  kernels::ConvGeometry g;
  std::vector<float> x, w, y;

  std::int64_t x_at(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w_) const {
    return g.channels_last ? ((n * g.in[1] + h) * g.in[2] + w_) * g.c + c : ((n * g.c + c) * g.in[1] + h) * g.in[2] + w_;
  }
  std::int64_t w_at(std::int64_t k, std::int64_t cl, std::int64_t r, std::int64_t s) const {
    const std::int64_t cg = g.c / g.groups;
    return g.channels_last ? ((k * g.filter[1] + r) * g.filter[2] + s) * cg + cl
                           : ((k * cg + cl) * g.filter[1] + r) * g.filter[2] + s;
  }
  std::int64_t y_at(std::int64_t n, std::int64_t k, std::int64_t p, std::int64_t q) const {
    return g.channels_last ? ((n * g.out[1] + p) * g.out[2] + q) * g.k + k : ((n * g.k + k) * g.out[1] + p) * g.out[2] + q;
  }

  // Calls term(n, k, input channel, h, w, cl, r, s, p, q) for every product of the convolution;
  // `group_shift` hands each output channel the inputs of another group (a deliberate mistake).
  template <typename Term>
  void each_term(std::int64_t group_shift, Term term) const {
    const std::int64_t cg = g.c / g.groups, kg = g.k / g.groups;
    for (std::int64_t n = 0; n < g.n; ++n)
      for (std::int64_t k = 0; k < g.k; ++k)
        for (std::int64_t p = 0; p < g.out[1]; ++p)
          for (std::int64_t q = 0; q < g.out[2]; ++q)
            for (std::int64_t cl = 0; cl < cg; ++cl)
              for (std::int64_t r = 0; r < g.filter[1]; ++r)
                for (std::int64_t s = 0; s < g.filter[2]; ++s) {
                  const std::int64_t h = p * g.stride[1] - g.pad[1] + r * g.dilation[1];
                  const std::int64_t w_ = q * g.stride[2] - g.pad[2] + s * g.dilation[2];
                  if (h < 0 || h >= g.in[1] || w_ < 0 || w_ >= g.in[2]) continue;
                  const std::int64_t c = ((k / kg + group_shift) % g.groups) * cg + cl;
                  term(x_at(n, c, h, w_), w_at(k, cl, r, s), y_at(n, k, p, q));
                }
  }

  // The written buffer of `direction`, recomputed from the other two in FP64.
  std::vector<float> written(kernels::ConvDirection direction, std::int64_t group_shift) const {
    std::vector<double> out(direction == kernels::ConvDirection::kForward        ? y.size()
                            : direction == kernels::ConvDirection::kBackwardData ? x.size()
                                                                                 : w.size());
    each_term(group_shift, [&](std::int64_t xi, std::int64_t wi, std::int64_t yi) {
      if (direction == kernels::ConvDirection::kForward) out[yi] += double{x[xi]} * w[wi];
      else if (direction == kernels::ConvDirection::kBackwardData) out[xi] += double{y[yi]} * w[wi];
      else out[wi] += double{x[xi]} * y[yi];
    });
    return {out.begin(), out.end()};
  }
};

std::vector<float> download(const DeviceBuffer& buffer, cudaStream_t stream) {
  std::vector<float> host(buffer.bytes() / sizeof(float));
  GPUBENCH_CUDA(cudaMemcpyAsync(host.data(), buffer.get(), buffer.bytes(), cudaMemcpyDeviceToHost, stream));
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  return host;
}

// Checks every point of `direction`'s output computed on the host with `group_shift`; returns
// the points that failed.
std::int64_t reference_failures(const ConvLayer& layer, bool channels_last, kernels::ConvDirection direction,
                                std::int64_t group_shift) {
  const OwnedStream stream;
  ConvSpec spec{layer, 2, Precision::kFp32, channels_last ? Layout::kNhwc : Layout::kNchw, ConvPass::kForward};
  HostConv host{geometry(spec), {}, {}, {}};
  DeviceBuffer x(sizeof(float) * kernels::conv_x_elements(host.g));
  DeviceBuffer w(sizeof(float) * kernels::conv_w_elements(host.g));
  DeviceBuffer y(sizeof(float) * kernels::conv_y_elements(host.g));
  kernels::fill_conv_signed(x.get(), kernels::conv_x_elements(host.g), kernels::ConvElement::kFloat, 1, stream.get());
  kernels::fill_conv_signed(w.get(), kernels::conv_w_elements(host.g), kernels::ConvElement::kFloat, 2, stream.get());
  kernels::fill_conv_signed(y.get(), kernels::conv_y_elements(host.g), kernels::ConvElement::kFloat, 3, stream.get());
  host.x = download(x, stream.get()), host.w = download(w, stream.get()), host.y = download(y, stream.get());
  const std::vector<float> out = host.written(direction, group_shift);
  const DeviceBuffer& target = direction == kernels::ConvDirection::kForward        ? y
                               : direction == kernels::ConvDirection::kBackwardData ? x
                                                                                    : w;
  GPUBENCH_CUDA(cudaMemcpyAsync(target.get(), out.data(), target.bytes(), cudaMemcpyHostToDevice, stream.get()));
  const kernels::ConvCheck check =
      kernels::check_conv_sampled(direction, host.g, {x.get(), w.get(), y.get()}, kernels::ConvElement::kFloat,
                                  tolerance(Precision::kFp32), std::int64_t{1} << 30, 0xC0417, stream.get());
  EXPECT_EQ(check.checked, static_cast<std::int64_t>(out.size()));
  return check.failed;
}

TEST(GpuConvReference, GroupedAndDepthwiseMatchACpuConvolutionInEveryPass) {
  GPUBENCH_REQUIRE_GPU();
  using kernels::ConvDirection;
  for (const ConvLayer& layer : {grouped_layer(8, 12, 4, 7), grouped_layer(6, 6, 6, 6)})
    for (const bool channels_last : {true, false})
      for (const ConvDirection direction :
           {ConvDirection::kForward, ConvDirection::kBackwardData, ConvDirection::kBackwardFilter}) {
        SCOPED_TRACE(layer.name + (channels_last ? " nhwc " : " nchw ") + std::to_string(static_cast<int>(direction)));
        EXPECT_EQ(reference_failures(layer, channels_last, direction, 0), 0);
        EXPECT_GT(reference_failures(layer, channels_last, direction, 1), 0) << "a group mix-up passed";
      }
}

const Family& gpu_conv_family = family("unittest/gpu_conv").axis_str("case", {"a"}).hidden().run([](State&) {});

class GpuConvCudnn : public ::testing::Test {
 protected:
  GpuConvCudnn() : instance_(gpu_conv_family.expand(ExpandOptions{}).at(0)) {
    if (testing::gpu_present()) context_ = capture_context();
  }
  // Every plan cuDNN offers for `spec` (at most kScreenedPlans) against the reference.
  void expect_plans_verify(const ConvSpec& spec) {
    SCOPED_TRACE(spec.layer.name + " " + pass_name(spec.pass) + " " + precision_name(spec.precision));
    const cudnn::CudnnHandle handle(0);
    State s(instance_, settings_, context_);
    ConvCase conv(handle.get(), spec, std::int64_t{256} << 20, kScreenedPlans, 0x5EED, s.stream());
    ASSERT_TRUE(conv.runnable()) << conv.why_not_runnable();
    DeviceBuffer workspace(static_cast<std::size_t>(std::max<std::int64_t>(conv.largest_workspace(), 1)));
    conv.bind(workspace.get());
    conv.verify(s, s.stream());
    const BenchResult r = s.finish();
    EXPECT_TRUE(r.verified) << r.error;
  }
  Instance instance_;
  RunSettings settings_;
  Context context_;
};

TEST_F(GpuConvCudnn, GroupedAndDepthwiseLayersPassTheReferenceInEveryPassAndType) {
  GPUBENCH_REQUIRE_GPU();
  for (const ConvLayer& layer : {grouped_layer(128, 128, 32, 14), grouped_layer(96, 96, 96, 28)})
    for (const ConvPass pass : {ConvPass::kForward, ConvPass::kBackwardData, ConvPass::kBackwardFilter})
      for (const Precision precision : {Precision::kFp32, Precision::kFp16, Precision::kBf16})
        expect_plans_verify(ConvSpec{layer, 4, precision, Layout::kNhwc, pass});
}

}  // namespace
}  // namespace gpubench::conv
