#include "harness/core/cublaslt/lt_api.h"

#include <stdexcept>

namespace gpubench::cublaslt {

void lt_check(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw std::runtime_error(std::string(call) + ": " + LtApi::get().cublasLtGetStatusString(status));
}

LtHandle::LtHandle(int) { lt_check(LtApi::get().cublasLtCreate(&handle), "cublasLtCreate"); }
LtHandle::~LtHandle() { LtApi::get().cublasLtDestroy(handle); }

std::string lt_version() {
  const std::size_t v = LtApi::get().cublasLtGetVersion();  // major * 10000 + minor * 100 + patch
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

}  // namespace gpubench::cublaslt
