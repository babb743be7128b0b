// attention/forward_backward: one training step of attention through cuDNN, the forward that
// writes the softmax statistics then the backward (dQ, dK, dV), the figure a framework user
// compares (torch's scaled_dot_product_attention forward + backward under its cuDNN backend).
#include "benches/attention/attention_axes.h"
#include "benches/attention/training_case.h"
#include "harness/core/cudnn/cudnn_api.h"
#include "harness/core/gpubench.h"
#include "harness/core/timing_events.h"

namespace {

using namespace gpubench::attention;

constexpr std::int64_t kWorkspaceLimit = std::int64_t{256} << 20;

void declare(gpubench::State& s, const AttentionShape& shape, const CudnnTraining& training,
             const gpubench::cudnn::CudnnHandle& handle) {
  s.count_flops(forward_backward_flops(shape));
  s.count_bytes(forward_backward_min_bytes(shape));
  s.set_primary_metric("tflops");
  set_tflops_peak(s, shape.element);
  s.declare_metric("forward_time_us", "us", false);
  s.declare_metric("backward_time_us", "us", false);
  s.declare_metric("backward_tflops", "TFLOP/s", true);
  s.note("heads", shape.heads);
  s.note("head_dim", shape.head_dim);
  s.note("hbm_bytes", forward_backward_min_bytes(shape));
  s.note("cudnn", handle.version());
  s.note("forward_engine", training.forward_choice().identity());
  s.note("backward_engine", training.backward_choice().identity());
}

void run_forward_backward(gpubench::State& s) {
  const AttentionShape shape = shape_from_axes(s);
  const std::string& impl = s.get_str("impl");
  if (impl != "cudnn") s.fail("impl must be cudnn, not '" + impl + "'");
  skip_if_unsupported(s, shape, false);
  auto& handle = s.resource<gpubench::cudnn::CudnnHandle>();
  auto& workspace = s.resource<gpubench::cudnn::CudnnWorkspace>();
  const AttentionInputs inputs(shape, 0x5EED, s.stream());
  CudnnTraining training(handle, inputs, kWorkspaceLimit, s.stream());
  if (!training.runnable()) s.skip(training.why_not_runnable());
  training.bind(workspace.reserve(training.largest_workspace()));
  training.verify(s, s.stream());
  declare(s, shape, training, handle);
  const double backward_flop = backward_flops(shape);
  gpubench::TimingEvents total, forward, backward;
  // measure_manual: each sample records the forward's and the backward's event times beside the whole step; a batch
  // would merge them.
  s.measure_manual([&] {
    cudaStream_t stream = s.stream();
    total.record_start(stream);
    forward.time(stream, [&] { training.forward(stream); });
    backward.time(stream, [&] { training.backward(stream); });
    total.record_stop(stream);
    const double seconds = total.elapsed_s();
    s.record("forward_time_us", forward.elapsed_s() * 1e6);
    s.record("backward_time_us", backward.elapsed_s() * 1e6);
    s.record("backward_tflops", backward_flop / backward.elapsed_s() / 1e12);
    return seconds;
  });
}

const auto& forward_backward =
    add_shape_axes(gpubench::family("attention/forward_backward")
                       .describe(
                           "One training step of scaled dot-product attention through cuDNN 9's graph API: the "
                           "forward of attention/forward impl:cudnn that also writes the softmax statistics "
                           "(max + log sum per row, FP32), then the fused backward from them: D = rowsum(dO o O), "
                           "dS = P o (dO·Vᵀ - D) · scale, dQ = dS·K (FP32 accumulator), dK = dSᵀ·Q, dV = Pᵀ·dO, "
                           "with a random output gradient dO; each pass runs cuDNN's heuristic first pick within "
                           "256 MiB of workspace (what the frameworks run). flops = 3.5 x the forward's "
                           "(4 x B x H x S^2 x D, halved when causal; the backward 2.5 x, as the FlashAttention "
                           "papers count); backward_tflops is the backward's 2.5 x over its own time, "
                           "forward_time_us and backward_time_us the two passes of the same sample. HBM bytes are "
                           "the minimum (Q, K, V read and O, statistics written; Q, K, V, O, dO, statistics read and "
                           "dQ, dK, dV written), a traffic rate rather than a claim of HBM bandwidth. Verified: O "
                           "on 256 query rows as attention/forward, and dQ on 32 query rows, dK and dV on 32 key "
                           "rows of the first and the last head against an FP32 reference: |err| <= tol x the sum "
                           "of the terms' magnitudes (fp16 2^-7, bf16 2^-4) and relative row L2 error <= 1e-2 "
                           "(fp16), 5e-2 (bf16) for rows of 16 terms or more")
                       .axis_str("impl", {"cudnn"}),
                   {1000, 4096}, {4096})
        .per_device()
        .needs_library("cudnn")
        .settings(gpubench::FamilySettings{300.0, 1.0, {}})
        .run(run_forward_backward);

}  // namespace
