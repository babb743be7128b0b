#pragma once
// What each collective moves, by nccl-tests' definitions (its doc/PERFORMANCE.md), so that our
// figures and nccl-tests' compare directly. No CUDA: the CPU tests check every rule here.
//
// `bytes` is nccl-tests' "size": the buffer of one rank that is the larger of send and receive
// (all_gather: the gathered result; reduce_scatter: the input; alltoall: either), so algbw =
// bytes / time, and busbw = algbw x the collective's bus factor.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpubench::collective {

enum class Kind { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kReduce, kAllToAll, kSendRecv };

const std::vector<std::string>& kind_names();  // family names, in declaration order
Kind kind_from_name(const std::string& name);   // throws std::invalid_argument
const char* kind_name(Kind kind);

// busbw / algbw: all_reduce 2(n-1)/n; all_gather, reduce_scatter, alltoall (n-1)/n; broadcast,
// reduce, sendrecv 1. With one rank every factor but the last group's is 0.
double bus_factor(Kind kind, int ranks);
// Bus bandwidth means nothing here (one rank moves nothing across a bus): the primary metric
// is then algbw, and no busbw figure is reported, not even a 0 that compare or check could use.
bool bus_bandwidth_meaningful(Kind kind, int ranks);
// Why there is no bus bandwidth, for the result's notes.not_applicable (the table shows it);
// empty where bus_bandwidth_meaningful.
std::string bus_bandwidth_absent_reason(Kind kind, int ranks);
// In place with one rank the output already is the input and NCCL moves no byte (about 0.2 us
// a call on an H200, which nccl-tests divides the size by): no bandwidth, not even algbw, means
// anything there, and the time per call is the figure.
bool moves_data(int ranks, bool in_place);
constexpr const char* kNoDataMovedReason = "in place with 1 rank: no data moves";

// Whether a benchmark also gives nccl-tests' host-timed figure (time_host_us): up to 64 MiB,
// the quick preset's size (NCCL's enqueue cost can exceed the GPU's time below 16 MiB; from there
// the two agree within a few per cent, and above 64 MiB 20 more collectives a sample would add
// seconds on 8 GPUs), and at every size where no data moves (the host's figure is then the primary
// one). Decided by the benchmark, never by its batch, so that every run of a benchmark has the
// figure or none has.
bool host_timed(std::int64_t bytes, bool moves);
constexpr std::int64_t kHostTimedMaxBytes = std::int64_t{64} << 20;

// Element counts of one rank's buffers for `bytes` of nccl-tests' size.
struct Counts {
  std::size_t send = 0;   // elements in the send buffer
  std::size_t recv = 0;   // elements in the receive buffer
  std::size_t chunk = 0;  // elements each rank contributes or receives per block
  std::size_t bytes = 0;  // the size actually moved: `bytes` rounded down to whole chunks
};
// A rank's block of all_gather, reduce_scatter and alltoall is nccl-tests': its share rounded
// down to whole 16 bytes (kept unrounded where that would leave it empty).
// Throws std::invalid_argument for sizes outside [kMinBytes, kMaxBytes] or too small to give
// every rank one element.
Counts counts(Kind kind, std::int64_t bytes, std::size_t element_bytes, int ranks);
constexpr std::int64_t kMinBytes = 8;
constexpr std::int64_t kMaxBytes = std::int64_t{8} << 30;

// "8", "4K", "1KiB", "4G", "8GiB" (binary units): the size of a --config `bytes` list written
// for people. Throws std::invalid_argument naming the bad text.
std::int64_t parse_size(const std::string& text);
// The default sweep: powers of 4 from 1 KiB to 4 GiB.
std::vector<std::int64_t> default_sizes();
// --quick: one size, 64 MiB, where the links rather than NCCL's launch cost set the time.
std::vector<std::int64_t> quick_sizes();

// Bytes of one element of a type axis value: fp32 4, bf16 2, fp16 2.
std::size_t element_bytes(const std::string& type);

// Which GPU a rank drives, of the GPUs this process may use. A rank that sees one GPU drives it:
// the launcher gave each rank its own (srun --gpus-per-task=1, or CUDA_VISIBLE_DEVICES set per
// rank). A rank that sees the node's GPUs drives its local rank's entry. Throws when a node has
// more ranks than the GPUs they see (two ranks sharing a GPU would measure neither).
int rank_device(int local_rank, const std::vector<int>& devices);

// How many slots of `footprint_bytes` (one collective's send and receive buffers) a rotation
// needs so that it spans at least twice the L2: 1 where one slot already does.
std::size_t rotation_slots(std::size_t footprint_bytes, std::size_t l2_bytes);

}  // namespace gpubench::collective
