// transfer/peer: copies between two GPUs, over their direct path (NVLink, or PCIe peer-to-peer)
// and, beside it, staged by the driver through host memory: "PCIe vs NVLink" for every pair.
#include "benches/transfer/lanes.h"
#include "benches/transfer/support.h"
#include "benches/transfer/transfer.h"
#include "harness/core/gpubench.h"

namespace {

using namespace gpubench;
using namespace gpubench::transfer;

constexpr std::uint64_t kSeedForward = 0x5032500001ull;
constexpr std::uint64_t kSeedReverse = 0x5032500002ull;

// The GPU whose stream issues a copy from `from` to `to`: the sender pushes into the peer's
// memory (write), or the receiver pulls from it (read). The copy engine or SMs of that GPU do
// the work, as in nvbandwidth's _write_ and _read_ cases.
int issuer(const std::string& op, int from, int to) { return op == "write" ? from : to; }

std::string pair_name(int from, int to) { return "gpu" + std::to_string(from) + " -> gpu" + std::to_string(to); }

void run_peer(State& s) {
  const int src = s.get_gpu("src"), dst = s.get_gpu("dst");
  const std::string& engine = s.get_str("engine");
  const std::string& op = s.get_str("op");
  const bool bidir = s.get_str("dir") == "bidir";
  const bool staged = s.get_str("path") == "staged";
  const auto bytes = static_cast<std::size_t>(s.get_int("bytes"));

  if (!staged) {
    require_peer_access(s, src, dst);
    require_peer_access(s, dst, src);
  }
  // Before the buffers, so that they are freed before access is restored.
  PeerAccessScope access(src, dst, !staged);
  s.note("link", describe_pair(s.context(), src, dst));
  s.note("path", staged ? "staged through host memory: peer access disabled, the driver copies via host buffers"
                        : "direct: peer access enabled");

  // A read pulls from the peer's memory through the reader's L2: its sources rotate.
  const kernels::SourceRotation forward_rotation =
      op == "read" ? remote_source_rotation(s, engine, dst, bytes) : kernels::SourceRotation{1, bytes};
  DeviceBuffer forward_src = allocate_on(src, rotation_bytes(forward_rotation, bytes)),
               forward_dst = allocate_on(dst, bytes);
  fill_sources(forward_src.get(), forward_rotation, bytes, kSeedForward, src);
  poison_destination(forward_dst.get(), bytes, dst);
  std::vector<Lane> lanes{copy_lane(engine, issuer(op, src, dst), forward_dst.get(), forward_src.get(), bytes, 0,
                                    forward_rotation)};
  DeviceBuffer reverse_src, reverse_dst;
  if (bidir) {
    const kernels::SourceRotation reverse_rotation =
        op == "read" ? remote_source_rotation(s, engine, src, bytes) : kernels::SourceRotation{1, bytes};
    reverse_src = allocate_on(dst, rotation_bytes(reverse_rotation, bytes));
    reverse_dst = allocate_on(src, bytes);
    fill_sources(reverse_src.get(), reverse_rotation, bytes, kSeedReverse, dst);
    poison_destination(reverse_dst.get(), bytes, src);
    lanes[0].metric = "forward_gbps";
    lanes.push_back(copy_lane(engine, issuer(op, dst, src), reverse_dst.get(), reverse_src.get(), bytes, 0,
                              reverse_rotation));
    lanes.back().metric = "reverse_gbps";
  }
  const int directions = bidir ? 2 : 1;
  const Peak peak = staged ? staged_peak(s.context(), src, dst, directions) : peer_peak(s.context(), src, dst, directions);
  s.set_peak(peak.gbps, peak.source);

  measure_lanes(s, lanes, staged ? Hold::kUnblocked : Hold::kBlocked);

  verify_copy(s, pair_name(src, dst), forward_dst.get(), bytes, kSeedForward, dst);
  if (bidir) verify_copy(s, pair_name(dst, src), reverse_dst.get(), bytes, kSeedReverse, src);
}

const auto& peer_family =
    gpubench::family("transfer/peer")
        .describe("Copies between two GPUs, every ordered pair. engine ce: cudaMemcpyAsync; sm: copy kernel over the "
                  "peer's mapped memory. op write: the source GPU issues the copy, pushing into the peer; read: the "
                  "destination GPU pulls (with sm, through buffers on the peer that rotate and together exceed "
                  "twice the reader's L2, so that no pass is served from L2: notes.l2). dir uni, or bidir: both directions at once, once per pair (forward_gbps "
                  "src->dst, reverse_gbps dst->src, bandwidth_gbps all bytes over the span). path p2p: peer access "
                  "enabled, over NVLink or PCIe peer-to-peer, whichever the pair has (skipped, with the reason, "
                  "where the pair has no peer access); staged: peer access disabled, so the driver stages the copy "
                  "through host memory (CE write only). Bytes counted once per direction. % of peak: the pair's "
                  "NVLinks x per-link rate, else PCIe")
        .axis_gpus("src")
        .axis_gpus("dst")
        .axis_str("engine", {"ce", "sm"}, {"ce"})
        .axis_str("op", {"write", "read"}, {"write"})
        .axis_str("dir", {"uni", "bidir"}, {"uni"})
        .axis_str("path", {"p2p", "staged"}, {"p2p"})
        .axis_int("bytes", peer_sizes(), {std::int64_t{1} << 26})
        .where(keep_peer_case)
        .needs_gpus(2)
        .run(run_peer);

}  // namespace
