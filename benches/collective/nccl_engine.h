#pragma once
// NCCL's side of a collective benchmark: the communicators of this process and the engine that
// runs one collective case on them.
#include <nccl.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "benches/collective/bootstrap.h"
#include "benches/collective/collective_model.h"
#include "benches/collective/driver.h"
#include "harness/core/blocking_kernel.h"
#include "harness/core/cuda_check.h"
#include "kernels/collective_check.cuh"

namespace gpubench::collective {

// One communicator per GPU this process drives: every selected GPU in a single process
// (ncclCommInitAll), this rank's GPU under MPI (ncclCommInitRank, the id sent by the bootstrap).
class Clique {
 public:
  struct Member {
    int device = 0;
    int rank = 0;
    ncclComm_t comm = nullptr;
    cudaStream_t stream = nullptr;
  };
  Clique(Bootstrap& bootstrap, const std::vector<int>& devices);
  ~Clique();
  Clique(const Clique&) = delete;
  Clique& operator=(const Clique&) = delete;

  int ranks() const { return ranks_; }
  const std::vector<Member>& members() const { return members_; }
  const std::vector<int>& devices() const { return devices_; }
  // After a hang or an asynchronous error: the communicators cannot be used again.
  void abort();
  bool aborted() const { return aborted_; }
  void throw_if_failed() const;  // an asynchronous NCCL error on any member

 private:
  std::vector<int> devices_;
  std::vector<Member> members_;
  int ranks_ = 1;
  bool aborted_ = false;
};

// The per-worker resource (State::resource): the clique, made on first use and made again when
// the GPUs change or an abort left it unusable.
class CliqueHolder {
 public:
  explicit CliqueHolder(int) {}
  Clique& get(Bootstrap& bootstrap, const std::vector<int>& devices);

 private:
  std::unique_ptr<Clique> clique_;
};

// A buffer on the current GPU, made as nccl-tests makes its buffers: ncclMemAlloc's where the
// loaded NCCL has it (memory NCCL can register and map for its peers), else cudaMalloc's.
class CommBuffer {
 public:
  CommBuffer() = default;
  explicit CommBuffer(std::size_t bytes);
  ~CommBuffer();
  CommBuffer(CommBuffer&& other) noexcept;
  CommBuffer& operator=(CommBuffer&& other) noexcept;
  void* get() const { return ptr_; }

 private:
  void release();
  void* ptr_ = nullptr;
  bool from_nccl_ = false;
};

// Whether alltoall is NCCL's own ncclAlltoAll here, rather than grouped ncclSend/ncclRecv.
bool nccl_has_alltoall();

struct CollectiveCase {
  Kind kind = Kind::kAllReduce;
  kernels::CollectiveType type = kernels::CollectiveType::kFp32;
  bool max = false;  // all_reduce with ncclMax rather than ncclSum
  bool in_place = false;
  Counts counts;
  std::size_t element_bytes = 4;
};

class NcclEngine : public RankEngine {
 public:
  // `timeout_s`: how long one call of run() or check() may wait for its collectives.
  NcclEngine(Clique& clique, const CollectiveCase& c, std::uint64_t seed, double timeout_s);
  ~NcclEngine() override;
  void prepare() override;
  double run(int ops) override;
  double run_host(int ops) override;
  long long check() override;

  // A held sample is queued in well under this; an enqueue that waits for the GPU (a full launch
  // queue or NCCL's work FIFO) would wait this long before the blocker gives up.
  static constexpr double kBlockerTimeoutS = 5;

 private:
  struct Buffers {
    CommBuffer send, recv;  // recv empty in place
    void* send_ptr = nullptr;  // slot 0's, the one verified
    void* recv_ptr = nullptr;
    cudaEvent_t start = nullptr, end = nullptr;
  };
  struct Slot {  // one collective's buffers: slot `index` of the rotation
    void* send = nullptr;
    void* recv = nullptr;
  };
  void fill(std::size_t m);
  Slot slot(const Buffers& b, std::size_t index) const;
  void enqueue_one(std::size_t index);
  bool ends_reached() const;
  bool streams_idle() const;
  void throw_if_aborted() const;
  std::size_t next_slot() { return next_slot_++ % slots_; }  // the rotation's next slot
  void issue(const Clique::Member& member, const Slot& b);
  void issue_point_to_point(const Clique::Member& member, const Slot& b);
  void record(cudaEvent_t Buffers::*event);
  void wait_for_ends();

  Clique& clique_;
  CollectiveCase case_;
  std::uint64_t seed_;
  double timeout_s_;
  std::vector<Buffers> buffers_;
  std::size_t slots_ = 1, send_stride_ = 0, recv_stride_ = 0;  // the rotation, bytes between slots
  std::size_t next_slot_ = 0;
  StreamBlocker blocker_{kBlockerTimeoutS};
  bool loaded_ = false;  // run() has run once, unheld
};

}  // namespace gpubench::collective
