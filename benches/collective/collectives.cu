// collective: NCCL's collectives over the selected GPUs (one process) or over every rank of an
// mpirun/srun job (one process per GPU), measured and reported as nccl-tests does.
#include <cstdlib>
#include <string>

#include "benches/collective/bootstrap.h"
#include "benches/collective/collective_model.h"
#include "benches/collective/driver.h"
#include "benches/collective/nccl_engine.h"
#include "harness/core/gpubench.h"

namespace gpubench::collective {
namespace {

// Per benchmark, communicator set-up included (the first benchmark of a worker makes them).
constexpr double kTimeoutS = 60;
// A collective waits this long before its communicators are aborted: short of kTimeoutS, so the
// supervisor's kill, not this process, ends a hang, and the benchmark is reported as `timeout`.
constexpr double kHangS = kTimeoutS - 15;
// Sampling stops at this soft limit even where the noise target is not met: the default sweep
// must finish in two minutes on 8 GPUs.
constexpr double kMaxSamplingS = 0.1;

kernels::CollectiveType type_of(const std::string& type) {
  if (type == "bf16") return kernels::CollectiveType::kBf16;
  if (type == "fp16") return kernels::CollectiveType::kFp16;
  return kernels::CollectiveType::kFp32;
}

// Under mpirun/srun each rank drives one GPU, the node's local rank's; the GPUs it may choose
// from are the selected ones, or every visible one when only the default was selected.
std::vector<int> candidate_devices(State& s, Bootstrap& bootstrap) {
  if (bootstrap.size() == 1 || s.devices().size() > 1) return s.devices();
  int count = 0;
  GPUBENCH_CUDA(cudaGetDeviceCount(&count));
  std::vector<int> all;
  for (int d = 0; d < count; ++d) all.push_back(d);
  return all;
}

// One rank's collective is a copy within its HBM, each byte read once and written once: its
// algbw cannot pass half the HBM rate (the rotation keeps the L2 from serving it).
void set_one_rank_peak(State& s) {
  const GpuInfo& gpu = s.gpu(s.device());
  s.set_peak(gpu.hbm_peak_gbps() / 2, "one rank copies within HBM: half of 2 x " +
                                          std::to_string(gpu.mem_clock_max_mhz) + " MHz x " +
                                          std::to_string(gpu.memory_bus_width_bits) + " bit");
}

void run_case(State& s, Kind kind) {
  Bootstrap& bootstrap = process_bootstrap();
  Clique& clique = s.resource<CliqueHolder>().get(bootstrap, candidate_devices(s, bootstrap));
  const int ranks = clique.ranks();
  CollectiveCase c;
  c.kind = kind;
  c.type = type_of(s.get_str("type"));
  c.element_bytes = element_bytes(s.get_str("type"));
  c.max = s.params().has("redop") && s.get_str("redop") == "max";
  c.in_place = s.get_str("place") == "in";
  c.counts = counts(kind, parse_size(s.get_str("bytes")), c.element_bytes, ranks);

  const double bytes = static_cast<double>(c.counts.bytes);
  const bool moves = moves_data(ranks, c.in_place);
  const bool bus = moves && bus_bandwidth_meaningful(kind, ranks);
  if (moves) s.declare_metric("algbw_gbps", "GB/s", true);
  if (bus) s.declare_metric("busbw_gbps", "GB/s", true);
  // One rank in place does no GPU work: held, its events bracket nothing (about 0.005 us a call),
  // so NCCL's host cost of the call is the figure.
  s.set_primary_metric(bus ? "busbw_gbps" : moves ? "algbw_gbps" : "time_host_us");
  if (!moves) s.not_applicable("algbw_gbps", kNoDataMovedReason);
  if (!bus) s.not_applicable("busbw_gbps", bus_bandwidth_absent_reason(kind, ranks));
  if (moves && ranks == 1) set_one_rank_peak(s);
  s.note("ranks", ranks);
  s.note("bytes_moved", moves ? c.counts.bytes : 0);
  s.note("bus_factor", bus_factor(kind, ranks));
  s.note("timing",
         "CUDA events on every GPU's stream around a batch of back-to-back collectives, queued whole behind the "
         "blocking kernel and an untimed one; the slowest GPU counts");
  if (kind == Kind::kAllToAll) s.note("alltoall", nccl_has_alltoall() ? "ncclAlltoAll" : "grouped ncclSend/ncclRecv");
  if (const char* nvls = std::getenv("NCCL_NVLS_ENABLE")) s.note("nccl_nvls_enable", nvls);

  NcclEngine engine(clique, c, 0xC011EC7ull + static_cast<std::uint64_t>(s.get_int("bytes")), kHangS);
  DriveSettings drive_settings;
  if (!host_timed(s.get_int("bytes"), moves)) drive_settings.host_ops = 0;
  if (drive_settings.host_ops > 0) {
    s.declare_metric("time_host_us", "us", false);
    s.note("time_host_us", "host clock from enqueueing " + std::to_string(drive_settings.host_ops) +
                               " back-to-back collectives on idle GPUs to their completion, per collective "
                               "(nccl-tests' timer), after every sample");
  } else {
    s.note("time_host_us", "not measured above " + std::to_string(kHostTimedMaxBytes >> 20) +
                               " MiB, where the host's figure and time_us agree");
  }
  auto on_sample = [&](double seconds, int ops, double host_s) {
    if (bootstrap.rank() != 0) return;
    if (host_s > 0) s.record("time_host_us", host_s * 1e6);
    if (!moves) return;
    const double algbw = bytes * ops / seconds / 1e9;
    s.record("algbw_gbps", algbw);
    if (bus) s.record("busbw_gbps", algbw * bus_factor(kind, ranks));
  };
  const DriveOutcome outcome =
      drive(bootstrap, engine, drive_settings, on_sample,
            [&](const std::function<double(int)>& run, const BatchRule& rule) { s.measure_batched(run, rule); });
  s.verify(outcome.wrong == 0, std::to_string(outcome.wrong) + " wrong element(s) over " + std::to_string(ranks) +
                                   " rank(s)");
}

bool in_place_applies(Kind kind) { return kind != Kind::kAllToAll && kind != Kind::kSendRecv; }

const char* description(Kind kind) {
  switch (kind) {
    case Kind::kAllReduce: return "ncclAllReduce; bytes = the buffer of one rank; busbw = algbw x 2(n-1)/n";
    case Kind::kAllGather: return "ncclAllGather; bytes = the gathered buffer of one rank; busbw = algbw x (n-1)/n";
    case Kind::kReduceScatter: return "ncclReduceScatter; bytes = the input of one rank; busbw = algbw x (n-1)/n";
    case Kind::kBroadcast: return "ncclBroadcast from rank 0; bytes = the buffer; busbw = algbw";
    case Kind::kReduce: return "ncclReduce (sum) to rank 0; bytes = the buffer; busbw = algbw";
    case Kind::kAllToAll:
      return "ncclAlltoAll (NCCL 2.28 and later; grouped ncclSend/ncclRecv per peer before); bytes = the send buffer "
             "of one rank; busbw = algbw x (n-1)/n; out of place only";
    case Kind::kSendRecv:
      return "ncclSend/ncclRecv around the ring of ranks; bytes = the buffer; busbw = algbw; out of place only";
  }
  return "";
}

Family& declare(Kind kind) {
  Family& f = family(std::string("collective/") + kind_name(kind));
  f.describe(description(kind)).axis_str("type", {"fp32", "bf16", "fp16"}, {"fp32"});
  if (kind == Kind::kAllReduce) f.axis_str("redop", {"sum", "max"}, {"sum"});
  if (in_place_applies(kind))
    f.axis_str("place", {"out", "in"}, {"out"});
  else
    f.axis_str("place", {"out"});
  return f.axis_int("bytes", default_sizes(), quick_sizes())
      .needs_library("nccl")
      .quiet_host()  // the small sizes' time is NCCL's host enqueue cost: no NVML read beside it
      .settings(FamilySettings{kTimeoutS, kMaxSamplingS, std::nullopt})
      .run([kind](State& s) { run_case(s, kind); });
}

const bool registered = [] {
  for (const auto& name : kind_names()) declare(kind_from_name(name));
  return true;
}();

}  // namespace
}  // namespace gpubench::collective
