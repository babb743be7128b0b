#include "benches/collective/nccl_engine.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "benches/collective/nccl_api.h"
#include "harness/core/host_clock.h"
#include "harness/core/scoped_device.h"
#include "harness/core/streams.h"

namespace gpubench::collective {
namespace {

// After aborting a hung collective, wait this long before failing: a supervising parent whose
// per-benchmark timeout is a few seconds past this one kills the worker first and reports the
// benchmark as `timeout`; without one (--no-isolate) the benchmark then fails with the reason.
constexpr double kAfterAbortS = 10;
// run_host polls this long without sleeping before it waits as run() does.
constexpr double kSpinS = 0.01;

ncclDataType_t nccl_type(kernels::CollectiveType type) {
  switch (type) {
    case kernels::CollectiveType::kFp32: return ncclFloat32;
    case kernels::CollectiveType::kBf16: return ncclBfloat16;
    case kernels::CollectiveType::kFp16: return ncclFloat16;
  }
  return ncclFloat32;
}

kernels::CollectiveCheck check_of(const CollectiveCase& c) {
  switch (c.kind) {
    case Kind::kAllReduce: return c.max ? kernels::CollectiveCheck::kMax : kernels::CollectiveCheck::kSum;
    case Kind::kReduce: return kernels::CollectiveCheck::kSum;
    case Kind::kAllGather: return kernels::CollectiveCheck::kGathered;
    case Kind::kReduceScatter: return kernels::CollectiveCheck::kScattered;
    case Kind::kAllToAll: return kernels::CollectiveCheck::kExchanged;
    case Kind::kBroadcast: return kernels::CollectiveCheck::kFromRoot;
    case Kind::kSendRecv: return kernels::CollectiveCheck::kFromLeft;
  }
  return kernels::CollectiveCheck::kSum;
}

char* offset(void* base, std::size_t elements, std::size_t element_bytes) {
  return static_cast<char*>(base) + elements * element_bytes;
}

}  // namespace

void nccl_check(ncclResult_t result, const char* expression) {
  if (result == ncclSuccess || result == ncclInProgress) return;
  throw std::runtime_error(std::string(expression) + ": " + NcclApi::get().ncclGetErrorString(result));
}

const NcclNewerApi& NcclNewerApi::get() {
  static const NcclNewerApi table = [] {
    const SharedLibrary& library = shared_library("nccl");
    NcclNewerApi api;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
    api.ncclAlltoAll = reinterpret_cast<decltype(&::ncclAlltoAll)>(library.find("ncclAlltoAll"));
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 19, 0)
    api.ncclMemAlloc = reinterpret_cast<decltype(&::ncclMemAlloc)>(library.find("ncclMemAlloc"));
    api.ncclMemFree = reinterpret_cast<decltype(&::ncclMemFree)>(library.find("ncclMemFree"));
#endif
    return api;
  }();
  return table;
}

bool nccl_has_alltoall() {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  return NcclNewerApi::get().ncclAlltoAll != nullptr;
#else
  return false;
#endif
}

CommBuffer::CommBuffer(std::size_t bytes) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 19, 0)
  const NcclNewerApi& nccl = NcclNewerApi::get();
  if (nccl.ncclMemAlloc && nccl.ncclMemFree) {
    GPUBENCH_NCCL(nccl.ncclMemAlloc(&ptr_, bytes));
    from_nccl_ = true;
    return;
  }
#endif
  GPUBENCH_CUDA(cudaMalloc(&ptr_, bytes));
}

CommBuffer::~CommBuffer() { release(); }

CommBuffer::CommBuffer(CommBuffer&& other) noexcept : ptr_(other.ptr_), from_nccl_(other.from_nccl_) {
  other.ptr_ = nullptr;
}

CommBuffer& CommBuffer::operator=(CommBuffer&& other) noexcept {
  if (this != &other) {
    release();
    ptr_ = other.ptr_;
    from_nccl_ = other.from_nccl_;
    other.ptr_ = nullptr;
  }
  return *this;
}

void CommBuffer::release() {
  if (!ptr_) return;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 19, 0)
  if (from_nccl_) NcclNewerApi::get().ncclMemFree(ptr_);
#endif
  if (!from_nccl_) cudaFree(ptr_);
  ptr_ = nullptr;
}

Clique::Clique(Bootstrap& bootstrap, const std::vector<int>& devices) : devices_(devices) {
  const NcclApi& nccl = NcclApi::get();
  if (bootstrap.size() == 1) {
    ranks_ = static_cast<int>(devices.size());
    std::vector<ncclComm_t> comms(devices.size());
    GPUBENCH_NCCL(nccl.ncclCommInitAll(comms.data(), ranks_, devices.data()));
    for (int r = 0; r < ranks_; ++r) members_.push_back({devices[r], r, comms[r], worker_stream(devices[r])});
    return;
  }
  ranks_ = bootstrap.size();
  const int device = rank_device(bootstrap.local_rank(), devices);
  ncclUniqueId id{};
  if (bootstrap.rank() == 0) GPUBENCH_NCCL(nccl.ncclGetUniqueId(&id));
  std::string wire(reinterpret_cast<const char*>(&id), sizeof id);
  bootstrap.broadcast(wire, 0);
  if (wire.size() != sizeof id) throw std::runtime_error("the ncclUniqueId from rank 0 arrived truncated");
  std::copy(wire.begin(), wire.end(), reinterpret_cast<char*>(&id));
  ScopedDevice on(device);
  ncclComm_t comm = nullptr;
  GPUBENCH_NCCL(nccl.ncclCommInitRank(&comm, ranks_, id, bootstrap.rank()));
  members_.push_back({device, bootstrap.rank(), comm, worker_stream(device)});
}

Clique::~Clique() {
  if (aborted_) return;
  for (auto& m : members_) {
    ScopedDevice on(m.device);
    cudaStreamSynchronize(m.stream);
    NcclApi::get().ncclCommDestroy(m.comm);
  }
}

void Clique::abort() {
  if (aborted_) return;
  aborted_ = true;
  for (auto& m : members_) NcclApi::get().ncclCommAbort(m.comm);
}

void Clique::throw_if_failed() const {
  for (const auto& m : members_) {
    ncclResult_t async = ncclSuccess;
    GPUBENCH_NCCL(NcclApi::get().ncclCommGetAsyncError(m.comm, &async));
    if (async != ncclSuccess && async != ncclInProgress)
      throw std::runtime_error("NCCL reported an asynchronous error on GPU " + std::to_string(m.device) + ": " +
                               NcclApi::get().ncclGetErrorString(async));
  }
}

Clique& CliqueHolder::get(Bootstrap& bootstrap, const std::vector<int>& devices) {
  if (!clique_ || clique_->aborted() || clique_->devices() != devices) {
    clique_.reset();
    clique_ = std::make_unique<Clique>(bootstrap, devices);
  }
  return *clique_;
}

NcclEngine::NcclEngine(Clique& clique, const CollectiveCase& c, std::uint64_t seed, double timeout_s)
    : clique_(clique), case_(c), seed_(seed), timeout_s_(timeout_s) {}

NcclEngine::~NcclEngine() {
  for (std::size_t m = 0; m < buffers_.size(); ++m) {
    ScopedDevice on(clique_.members()[m].device);
    if (buffers_[m].start) cudaEventDestroy(buffers_[m].start);
    if (buffers_[m].end) cudaEventDestroy(buffers_[m].end);
    buffers_[m].send = CommBuffer();
    buffers_[m].recv = CommBuffer();
  }
}

void NcclEngine::prepare() {
  const Counts& n = case_.counts;
  const std::size_t e = case_.element_bytes;
  // nccl-tests' rotation: each collective on the next slot of a span larger than the L2, so that
  // no size is served from the cache a previous collective left warm.
  send_stride_ = std::max(n.send, n.recv) * e;
  recv_stride_ = case_.in_place ? send_stride_ : n.recv * e;
  int l2_bytes = 0;
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, clique_.members().front().device));
  slots_ = rotation_slots(send_stride_ + (case_.in_place ? 0 : recv_stride_), static_cast<std::size_t>(l2_bytes));
  buffers_.resize(clique_.members().size());
  for (std::size_t m = 0; m < buffers_.size(); ++m) {
    const Clique::Member& member = clique_.members()[m];
    ScopedDevice on(member.device);
    Buffers& b = buffers_[m];
    b.send = CommBuffer(slots_ * send_stride_);
    if (!case_.in_place) b.recv = CommBuffer(slots_ * recv_stride_);
    b.send_ptr = b.send.get();
    b.recv_ptr = case_.in_place ? b.send.get() : b.recv.get();
    // In place, nccl-tests' convention: a rank's own block of the gathered or scattered buffer.
    if (case_.in_place && case_.kind == Kind::kAllGather) b.send_ptr = offset(b.recv_ptr, member.rank * n.chunk, e);
    if (case_.in_place && case_.kind == Kind::kReduceScatter) b.recv_ptr = offset(b.send_ptr, member.rank * n.chunk, e);
    GPUBENCH_CUDA(cudaEventCreate(&b.start));
    GPUBENCH_CUDA(cudaEventCreate(&b.end));
    kernels::fill_collective_input(b.send.get(), case_.type, slots_ * send_stride_ / e, seed_, member.rank, 0,
                                   member.stream);
    fill(m);
  }
  for (const auto& member : clique_.members()) GPUBENCH_CUDA(cudaStreamSynchronize(member.stream));
}

void NcclEngine::fill(std::size_t m) {
  const Clique::Member& member = clique_.members()[m];
  Buffers& b = buffers_[m];
  // Poisoned first, so that an element the collective failed to write cannot pass.
  if (!case_.in_place) kernels::poison(b.recv_ptr, case_.counts.recv * case_.element_bytes, member.stream);
  if (case_.in_place && case_.kind == Kind::kAllGather)
    kernels::poison(b.send.get(), case_.counts.recv * case_.element_bytes, member.stream);
  kernels::fill_collective_input(b.send_ptr, case_.type, case_.counts.send, seed_, member.rank, 0, member.stream);
}

void NcclEngine::issue(const Clique::Member& member, const Slot& b) {
  const NcclApi& nccl = NcclApi::get();
  const ncclDataType_t type = nccl_type(case_.type);
  const ncclRedOp_t op = case_.max ? ncclMax : ncclSum;
  const Counts& n = case_.counts;
  switch (case_.kind) {
    case Kind::kAllReduce:
      return GPUBENCH_NCCL(nccl.ncclAllReduce(b.send, b.recv, n.send, type, op, member.comm, member.stream));
    case Kind::kAllGather:
      return GPUBENCH_NCCL(nccl.ncclAllGather(b.send, b.recv, n.chunk, type, member.comm, member.stream));
    case Kind::kReduceScatter:
      return GPUBENCH_NCCL(
          nccl.ncclReduceScatter(b.send, b.recv, n.chunk, type, ncclSum, member.comm, member.stream));
    case Kind::kBroadcast:
      return GPUBENCH_NCCL(nccl.ncclBroadcast(b.send, b.recv, n.send, type, 0, member.comm, member.stream));
    case Kind::kReduce:
      return GPUBENCH_NCCL(nccl.ncclReduce(b.send, b.recv, n.send, type, ncclSum, 0, member.comm, member.stream));
    case Kind::kAllToAll:
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
      if (const auto alltoall = NcclNewerApi::get().ncclAlltoAll)
        return GPUBENCH_NCCL(alltoall(b.send, b.recv, n.chunk, type, member.comm, member.stream));
#endif
      return issue_point_to_point(member, b);
    case Kind::kSendRecv:
      return issue_point_to_point(member, b);
  }
}

// nccl-tests' sendrecv (to the next rank, from the previous) and its alltoall fallback (to and
// from every rank), each in a group of its own: one rank's send to itself and the matching
// receive must be issued together.
void NcclEngine::issue_point_to_point(const Clique::Member& member, const Slot& b) {
  const NcclApi& nccl = NcclApi::get();
  const ncclDataType_t type = nccl_type(case_.type);
  const Counts& n = case_.counts;
  const std::size_t e = case_.element_bytes;
  const int ranks = clique_.ranks();
  GPUBENCH_NCCL(nccl.ncclGroupStart());
  if (case_.kind == Kind::kSendRecv) {
    GPUBENCH_NCCL(nccl.ncclSend(b.send, n.send, type, (member.rank + 1) % ranks, member.comm, member.stream));
    GPUBENCH_NCCL(nccl.ncclRecv(b.recv, n.recv, type, (member.rank + ranks - 1) % ranks, member.comm, member.stream));
  } else {
    for (int peer = 0; peer < ranks; ++peer) {
      GPUBENCH_NCCL(nccl.ncclSend(offset(b.send, peer * n.chunk, e), n.chunk, type, peer, member.comm, member.stream));
      GPUBENCH_NCCL(nccl.ncclRecv(offset(b.recv, peer * n.chunk, e), n.chunk, type, peer, member.comm, member.stream));
    }
  }
  GPUBENCH_NCCL(nccl.ncclGroupEnd());
}

NcclEngine::Slot NcclEngine::slot(const Buffers& b, std::size_t index) const {
  return {static_cast<char*>(b.send_ptr) + index * send_stride_, static_cast<char*>(b.recv_ptr) + index * recv_stride_};
}

void NcclEngine::enqueue_one(std::size_t index) {
  const auto& members = clique_.members();
  // One GPU: the call alone, as nccl-tests makes it with -g 1 (run() made the device current);
  // a surrounding group adds host time, and at small sizes host time is the collective's time.
  if (members.size() == 1) return issue(members.front(), slot(buffers_.front(), index));
  // Several: one group over every GPU of the process, as NCCL needs all of a collective's local
  // ranks issued together (a single thread otherwise deadlocks on the first of them).
  GPUBENCH_NCCL(NcclApi::get().ncclGroupStart());
  for (std::size_t m = 0; m < members.size(); ++m) {
    ScopedDevice on(members[m].device);
    issue(members[m], slot(buffers_[m], index));
  }
  GPUBENCH_NCCL(NcclApi::get().ncclGroupEnd());
}

void NcclEngine::record(cudaEvent_t Buffers::*event) {
  for (std::size_t m = 0; m < buffers_.size(); ++m) {
    ScopedDevice on(clique_.members()[m].device);
    GPUBENCH_CUDA(cudaEventRecord(buffers_[m].*event, clique_.members()[m].stream));
  }
}

bool NcclEngine::ends_reached() const {
  for (const auto& b : buffers_)
    if (cudaEventQuery(b.end) == cudaErrorNotReady) return false;
  return true;
}

void NcclEngine::wait_for_ends() {
  try {
    wait_or_abort(
        [&] {
          clique_.throw_if_failed();
          return ends_reached();
        },
        timeout_s_, [&] { clique_.abort(); });
  } catch (const CollectiveHung&) {
    std::this_thread::sleep_for(std::chrono::duration<double>(kAfterAbortS));
    throw;
  }
  for (const auto& b : buffers_) GPUBENCH_CUDA(cudaEventSynchronize(b.end));
}

void NcclEngine::throw_if_aborted() const {
  if (clique_.aborted()) throw std::runtime_error("the communicators were aborted after an earlier failure");
}

double NcclEngine::run(int ops) {
  throw_if_aborted();
  ScopedDevice on(clique_.members().front().device);
  // Every GPU's stream is held by the blocking kernel while the sample is queued: NCCL's enqueue
  // (4-6 us a call on the H100 and H200 nodes) is longer than a small collective's GPU time, so
  // back-to-back calls released as they are queued would time the host. The first call of an
  // engine loads NCCL's kernels and is never held (a module loaded behind a blocker deadlocks).
  // The streams are held here rather than through HeldRegion: NCCL issues every GPU's call as
  // one group, and the wait must poll so that a hung communicator can be aborted.
  const bool held = loaded_;
  try {
    if (held)
      for (const auto& m : clique_.members()) {
        ScopedDevice lane(m.device);
        blocker_.block(m.stream);
      }
    // An untimed lead-in collective aligns the ranks' start events (across processes, each
    // releases its own streams when it has queued its sample).
    enqueue_one(next_slot());
    record(&Buffers::start);
    for (int i = 0; i < ops; ++i) enqueue_one(next_slot());
    record(&Buffers::end);
  } catch (...) {
    blocker_.release();
    throw;
  }
  blocker_.release();
  loaded_ = true;
  wait_for_ends();
  if (held && blocker_.timed_out())
    throw std::runtime_error("queueing " + std::to_string(ops) +
                             " collectives behind the blocking kernel did not finish before it gave up: NCCL's "
                             "enqueue waited for the GPU, so the sample is not the GPU's time");
  double slowest_s = 0;
  for (const auto& b : buffers_) {
    float ms = 0;
    GPUBENCH_CUDA(cudaEventElapsedTime(&ms, b.start, b.end));
    slowest_s = std::max(slowest_s, ms * 1e-3);
  }
  return slowest_s;
}

double NcclEngine::run_host(int ops) {
  throw_if_aborted();
  ScopedDevice on(clique_.members().front().device);
  for (const auto& m : clique_.members()) GPUBENCH_CUDA(cudaStreamSynchronize(m.stream));
  const double start = host_now_s();
  for (int i = 0; i < ops; ++i) enqueue_one(next_slot());
  // The streams are queried without sleeping, as nccl-tests does: recording an end event first
  // would add its cost to every collective's share, and a sleep's wake-up is longer than they are.
  while (!streams_idle()) {
    if (host_now_s() - start < kSpinS) continue;
    record(&Buffers::end);  // a long or hung collective: waited for as run() waits, abort included
    wait_for_ends();
    break;
  }
  return host_now_s() - start;
}

bool NcclEngine::streams_idle() const {
  for (const auto& m : clique_.members()) {
    const cudaError_t state = cudaStreamQuery(m.stream);
    if (state == cudaErrorNotReady) return false;
    GPUBENCH_CUDA(state);
  }
  return true;
}

long long NcclEngine::check() {
  for (std::size_t m = 0; m < buffers_.size(); ++m) {
    ScopedDevice on(clique_.members()[m].device);
    fill(m);
  }
  {
    // Exactly one collective on the fresh inputs: a second would sum an in-place buffer twice.
    ScopedDevice on(clique_.members().front().device);
    enqueue_one(0);
    record(&Buffers::end);
    wait_for_ends();
  }
  long long wrong = 0;
  const Counts& n = case_.counts;
  for (std::size_t m = 0; m < buffers_.size(); ++m) {
    const Clique::Member& member = clique_.members()[m];
    if (case_.kind == Kind::kReduce && member.rank != 0) continue;  // only the root receives
    ScopedDevice on(member.device);
    kernels::CollectiveExpectation expect;
    expect.check = check_of(case_);
    expect.rank = member.rank;
    expect.ranks = clique_.ranks();
    expect.chunk = n.chunk;
    expect.seed = seed_;
    wrong += kernels::count_collective_mismatches(buffers_[m].recv_ptr, case_.type, n.recv, expect, member.stream);
  }
  return wrong;
}

}  // namespace gpubench::collective
