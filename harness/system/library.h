#pragma once
// Libraries gpubench loads at run time instead of linking: cuBLAS(Lt), cuDNN, NCCL. A node that
// lacks one still runs every suite that does not need it, and the families that declare
// needs_library(name) are skipped with the loader's reason ("libcudnn.so.9: cannot open shared
// object file"). A suite calls the library through a typed table of its functions:
//
//   #define GEMM_LT_FUNCTIONS(X) X(cublasLtCreate) X(cublasLtMatmul) ...
//   GPUBENCH_LIBRARY_TABLE(LtApi, "cublasLt", GEMM_LT_FUNCTIONS)
//   ...  LtApi::get().cublasLtCreate(&handle);
//
// The table's types come from the library's own header (decltype), so a signature cannot drift.
#include <stdexcept>
#include <string>
#include <vector>

namespace gpubench {

// A library that cannot be loaded, or lacks a function a suite calls.
struct LibraryError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Whether a library's symbols serve the libraries it loads itself: MPI's plugins may resolve
// MPI's own symbols through the global scope rather than link them.
enum class SymbolScope { kLocal, kGlobal };

class SharedLibrary {
 public:
  // Opens the first of `sonames` that loads; never throws. Stays loaded for the process's life:
  // unloading cuBLAS or NCCL runs their teardown, which is not safe while CUDA is in use.
  explicit SharedLibrary(const std::vector<std::string>& sonames, SymbolScope scope = SymbolScope::kLocal);
  bool loaded() const { return handle_ != nullptr; }
  const std::string& soname() const { return soname_; }  // the one that loaded
  const std::string& error() const { return error_; }    // why none loaded
  void* find(const char* symbol) const;                  // nullptr when absent
  void* require(const char* symbol) const;               // throws LibraryError

 private:
  void* handle_ = nullptr;
  std::string soname_, error_;
};

// The process-wide copy of a known library by name: "cublas", "cublasLt", "cudnn", "nccl".
// Throws std::logic_error for an unknown name (a typo in a family declaration).
const SharedLibrary& shared_library(const std::string& name);
// Whether `name` is a known library, without loading it: a family declares its libraries at
// start-up, and loading cuBLASLt there cost every command (check, history) a third of a second.
bool is_known_library(const std::string& name);
// Empty when `name` loads here, else why not.
std::string library_unavailable_reason(const std::string& name);
// Makes a further name known: a suite's own library (MPI), or in tests one that is not installed.
void register_library(const std::string& name, std::vector<std::string> sonames,
                      SymbolScope scope = SymbolScope::kLocal);

}  // namespace gpubench

#define GPUBENCH_LIBRARY_TABLE_FIELD(fn) decltype(&::fn) fn = nullptr;
#define GPUBENCH_LIBRARY_TABLE_RESOLVE(fn) api.fn = reinterpret_cast<decltype(&::fn)>(library.require(#fn));
#define GPUBENCH_LIBRARY_TABLE(Type, library_name, FUNCTIONS)                       \
  struct Type {                                                                     \
    FUNCTIONS(GPUBENCH_LIBRARY_TABLE_FIELD)                                         \
    static const Type& get() {                                                      \
      static const Type table = [] {                                                \
        const ::gpubench::SharedLibrary& library = ::gpubench::shared_library(library_name); \
        Type api;                                                                   \
        FUNCTIONS(GPUBENCH_LIBRARY_TABLE_RESOLVE)                                   \
        return api;                                                                 \
      }();                                                                          \
      return table;                                                                 \
    }                                                                               \
  };
