// attention/forward_fp8: the attention forward of attention/forward on e4m3 (FP8) operands, our
// Hopper kernel's e4m3 build, timed from V as the user holds it (the repack of V is in every call).
#include "benches/attention/attention_axes.h"
#include "benches/attention/attention_case.h"
#include "benches/attention/fp8_inputs.h"
#include "harness/core/gpubench.h"
#include "harness/core/peaks.h"
#include "harness/core/timing_events.h"
#include "kernels/flash_attention_sm90.cuh"
#include "kernels/flash_sm90_tiling.cuh"

namespace {

using namespace gpubench::attention;

constexpr std::int64_t kFp8HeadDim = 128;

// Bytes the call moves at least: Q and K read once (1 byte an element), V read and written packed
// by the repack and the packed copy read by the kernel, O written once in bf16.
double fp8_min_bytes(const AttentionShape& shape) { return 7.0 * static_cast<double>(shape.qkv_elements()); }

void run_forward_fp8(gpubench::State& s) {
  namespace k = gpubench::kernels;
  AttentionShape shape = shape_from_axes(s, Element::kBf16);
  const gpubench::GpuInfo& gpu = s.gpu(s.device());
  if (const std::string why = k::flash_attention_sm90_fp8_unsupported(shape.head_dim, gpu.cc_major, gpu.cc_minor);
      !why.empty())
    s.skip(why);
  if (!k::flash_attention_sm90_code_present()) s.skip("this build has no sm_90a code for our Hopper kernel");
  const Fp8AttentionInputs inputs(shape, 0x5EED, s.stream());
  const k::FlashAttentionFp8Args args = inputs.args();
  const auto op = [&](cudaStream_t stream) {
    inputs.pack_v(stream);
    k::flash_attention_forward_sm90_fp8(args, stream);
  };
  inputs.verify(s, "gpubench e4m3 (Hopper kernel)", op, s.stream());
  // The repack's share of a call, for the reader of the figure: 16 repacks back to back, warm.
  gpubench::TimingEvents repack;
  constexpr int kRepacks = 16;
  const double repack_s = repack.time(s.stream(), [&] {
    for (int i = 0; i < kRepacks; ++i) inputs.pack_v(s.stream());
  });
  s.note("v_pack_us", repack_s / kRepacks * 1e6);
  s.count_flops(forward_flops(shape));
  s.count_bytes(fp8_min_bytes(shape));
  s.set_primary_metric("tflops");
  gpubench::set_datasheet_tflops_peak(s, "fp8");
  s.note("heads", shape.heads);
  s.note("head_dim", shape.head_dim);
  s.note("hbm_bytes", fp8_min_bytes(shape));
  s.note("kernel", "flash_attention_sm90 (e4m3)");
  s.note("block_n", k::flash_sm90_block_n(shape.head_dim));
  s.note("stages", k::flash_sm90_stages(shape.head_dim, 1));
  s.note("descale", kFp8Descale);
  s.measure(op);
}

const auto& forward_fp8 =
    add_shape_axes(
        gpubench::family("attention/forward_fp8")
            .describe(
                "Scaled dot-product attention forward as attention/forward, on e4m3 (FP8) Q, K and V of B x H x S x "
                "D with a per-tensor descale (real value = stored x descale; the suite stores its random values x 4, "
                "descale 1/4), O in bf16: our Hopper kernel (kernels/flash_attention_sm90.cu) with e4m3 warpgroup "
                "MMAs (k32, twice the 16-bit rate), FP32 accumulation and online softmax, P rounded to e4m3 after a "
                "lift of 2^8 that keeps small probabilities out of e4m3's subnormals. fp8 wgmma reads B K-major "
                "only, so each call first repacks V (D rows of keys, keys reordered within 16 to match the score "
                "accumulators: kernels/flash_sm90_v_pack.cuh); the time includes it. Head dim 128 (models of "
                "configs/attention_shapes.json with D = 128), compute capability 9.0. No library offers this "
                "attention to compare with here (cuDNN's FP8 attention graph is not built yet): attention/forward's "
                "bf16 and fp16 figures of the same shapes are the reference. flops = 4 x B x H x S^2 x D, halved "
                "when causal; peak: the datasheet's dense FP8 rate. hbm_bytes: Q, K read once, V read, packed and "
                "read again, O written: 7 bytes an element. Verified on 256 query rows against the FP32 reference "
                "on the values the e4m3 hold (|err| <= 0.1 x sum p|v|: e4m3's rounding of P; row L2 error <= "
                "0.1). " + gpubench::power_limited_description(forward_settings())),
        {1000, 2048, 4096, 16384}, {4096}, {4, 16}, {"e4m3"}, kFp8HeadDim)
        // Batch 16 is the short-sequence point (S = 2048), batch 4 the rest, as attention/forward.
        .where([](const gpubench::Params& p) { return (p.integer("batch") == 16) == (p.integer("seq") == 2048); })
        .per_device()
        .needs_cc(9, 0)
        .settings(forward_settings())
        .run(run_forward_fp8);

}  // namespace
