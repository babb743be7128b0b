#pragma once
// The NCCL functions the suite calls, loaded at run time (harness/system/library.h): gpubench
// never links libnccl, so it starts on nodes without it.
#include <nccl.h>

#include <string>

#include "harness/system/library.h"

#define GPUBENCH_NCCL_FUNCTIONS(X)                                                                      \
  X(ncclGetUniqueId) X(ncclCommInitAll) X(ncclCommInitRank) X(ncclCommDestroy) X(ncclCommAbort)         \
  X(ncclCommGetAsyncError) X(ncclGetErrorString) X(ncclAllReduce) X(ncclAllGather) X(ncclReduceScatter) \
  X(ncclBroadcast) X(ncclReduce) X(ncclSend) X(ncclRecv) X(ncclGroupStart) X(ncclGroupEnd)

namespace gpubench::collective {

GPUBENCH_LIBRARY_TABLE(NcclApi, "nccl", GPUBENCH_NCCL_FUNCTIONS)

// What nccl-tests uses where the loaded NCCL has it, each null where it does not: ncclAlltoAll
// (2.28; else alltoall is grouped ncclSend/ncclRecv per peer, as nccl-tests falls back to) and
// ncclMemAlloc/ncclMemFree (2.19; the buffers NCCL can register, else cudaMalloc's).
struct NcclNewerApi {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  decltype(&::ncclAlltoAll) ncclAlltoAll = nullptr;
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 19, 0)
  decltype(&::ncclMemAlloc) ncclMemAlloc = nullptr;
  decltype(&::ncclMemFree) ncclMemFree = nullptr;
#endif
  static const NcclNewerApi& get();
};

// Throws std::runtime_error naming the call and NCCL's reason.
void nccl_check(ncclResult_t result, const char* expression);

}  // namespace gpubench::collective

#define GPUBENCH_NCCL(expression) ::gpubench::collective::nccl_check((expression), #expression)
