// attention/fused_speedup: the unfused and the cuDNN fused forward on the same inputs, timed in
// the same samples, for the fused/unfused speedup and the ratio of the bytes they move.
#include "benches/attention/attention_axes.h"
#include "benches/attention/attention_case.h"
#include "harness/core/cudnn/cudnn_api.h"
#include "harness/core/gpubench.h"
#include "harness/core/timing_events.h"

namespace {

using namespace gpubench::attention;

constexpr std::int64_t kWorkspaceLimit = std::int64_t{256} << 20;

void run_speedup(gpubench::State& s) {
  const AttentionShape shape = shape_from_axes(s);
  skip_if_unsupported(s, shape, true);
  auto& handle = s.resource<gpubench::cudnn::CudnnHandle>();
  auto& workspace = s.resource<gpubench::cudnn::CudnnWorkspace>();
  const AttentionInputs inputs(shape, 0x5EED, s.stream());
  const UnfusedAttention unfused(s.resource<gpubench::cublaslt::LtHandle>(), s.resource<LtBatchedWorkspace>(), inputs);
  CudnnAttention fused(handle, inputs, {kWorkspaceLimit, 1, nullptr});
  if (!fused.runnable()) s.skip(fused.why_not_runnable());
  fused.bind(workspace.reserve(fused.largest_workspace()));
  inputs.verify(s, "unfused", [&](cudaStream_t stream) { unfused.run(stream); }, s.stream());
  inputs.verify(s, "cudnn " + fused.plans()[0].choice.label(), [&](cudaStream_t stream) { fused.run(0, stream); },
                s.stream());
  s.note("heads", shape.heads);
  s.note("head_dim", shape.head_dim);
  s.note("cudnn", handle.version());
  s.note("engine", fused.plans()[0].choice.identity());
  s.declare_metric("speedup", "x", true);
  s.declare_metric("traffic_ratio", "x", true);
  s.declare_metric("unfused_time_us", "us", false);
  s.set_primary_metric("speedup");
  const double ratio = traffic_ratio(shape);
  gpubench::TimingEvents unfused_events, fused_events;
  // measure_manual: each sample times the unfused and the fused run one after the other, their ratio per sample; a
  // batch would merge them.
  s.measure_manual([&] {
    cudaStream_t stream = s.stream();
    const double unfused_s = unfused_events.time(stream, [&] { unfused.run(stream); });
    const double fused_s = fused_events.time(stream, [&] { fused.run(0, stream); });
    s.record("speedup", unfused_s / fused_s);
    s.record("traffic_ratio", ratio);
    s.record("unfused_time_us", unfused_s * 1e6);
    return fused_s;
  });
}

const auto& fused_speedup =
    add_shape_axes(gpubench::family("attention/fused_speedup")
                       .describe("The forward of attention/forward run unfused and through cuDNN's fused engine "
                                 "(its heuristic's first pick) on the same inputs, both verified, each sample timing "
                                 "one of each: speedup = unfused time / fused time, traffic_ratio = the unfused "
                                 "path's HBM bytes (per-step tensors) / the fused minimum (Q, K, V, O once), "
                                 "time_us the fused time, unfused_time_us the unfused one"),
                   {4096}, {4096})
        .per_device()
        .needs_library("cudnn")
        .needs_library("cublasLt")
        .settings(gpubench::FamilySettings{300.0, 1.0, {}})
        .run(run_speedup);

}  // namespace
