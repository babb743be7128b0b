#pragma once
// The NCCL functions the suite calls, loaded at run time (harness/system/library.h): gpubench
// never links libnccl, so it starts on nodes without it. alltoall is built from ncclSend and
// ncclRecv, as nccl-tests builds it, so that every NCCL 2.x with point-to-point serves.
#include <nccl.h>

#include <string>

#include "harness/system/library.h"

#define GPUBENCH_NCCL_FUNCTIONS(X)                                                                      \
  X(ncclGetUniqueId) X(ncclCommInitAll) X(ncclCommInitRank) X(ncclCommDestroy) X(ncclCommAbort)         \
  X(ncclCommGetAsyncError) X(ncclGetErrorString) X(ncclAllReduce) X(ncclAllGather) X(ncclReduceScatter) \
  X(ncclBroadcast) X(ncclReduce) X(ncclSend) X(ncclRecv) X(ncclGroupStart) X(ncclGroupEnd)

namespace gpubench::collective {

GPUBENCH_LIBRARY_TABLE(NcclApi, "nccl", GPUBENCH_NCCL_FUNCTIONS)

// Throws std::runtime_error naming the call and NCCL's reason.
void nccl_check(ncclResult_t result, const char* expression);

}  // namespace gpubench::collective

#define GPUBENCH_NCCL(expression) ::gpubench::collective::nccl_check((expression), #expression)
