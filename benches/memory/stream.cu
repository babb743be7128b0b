// memory/stream: HBM (and, at small sizes, L2) bandwidth of the STREAM kernels.
#include "harness/core/gpubench.h"
#include "harness/core/peaks.h"
#include "kernels/stream.cuh"

namespace {

using gpubench::kernels::StreamArrays;

template <typename T>
void run_stream(gpubench::State& s) {
  const auto op = gpubench::kernels::parse_stream_op(s.get_str("op"));
  StreamArrays<T> arrays(static_cast<std::size_t>(s.get_int("array_bytes")));
  arrays.prepare(op, s.stream());
  s.count_bytes(arrays.bytes_moved(op));
  gpubench::set_hbm_peak(s, arrays.bytes_moved(op));
  s.measure([&](cudaStream_t stream) { arrays.run(op, stream); }, gpubench::Batching::kGraph);
  const std::string problem = arrays.check(op, s.stream());
  s.verify(problem.empty(), problem);
}

const auto& stream_family =
    gpubench::family("memory/stream")
        .describe("STREAM copy/scale/add/triad/dot plus read-only and write-only over three arrays of random "
                  "data, 16-byte accesses. Bytes as BabelStream counts them: copy, scale, dot 2 arrays; add, "
                  "triad 3; read, write 1. Arrays under the L2 size measure L2, not HBM")
        .axis_str("op", {"copy", "scale", "add", "triad", "dot", "read", "write"}, {"triad"})
        .axis_str("type", {"fp32", "fp64"}, {"fp32"})
        .axis_pow2("array_bytes", 20, 32, 2, {1 << 28})
        .per_device()
        .run([](gpubench::State& s) {
          if (s.get_str("type") == "fp32")
            run_stream<float>(s);
          else
            run_stream<double>(s);
        });

}  // namespace
