#include "harness/system/library.h"

#include <dlfcn.h>

#include <map>
#include <memory>
#include <mutex>

namespace gpubench {
namespace {

struct Known {
  std::vector<std::string> sonames;
  SymbolScope scope = SymbolScope::kLocal;
  std::unique_ptr<SharedLibrary> library;  // opened on first use
};

std::mutex& registry_mutex() {
  static std::mutex mutex;
  return mutex;
}

// Newest ABI first; the unversioned name last, for a toolkit installed without the symlinks.
std::map<std::string, Known>& known_libraries() {
  static std::map<std::string, Known> known = [] {
    std::map<std::string, Known> libraries;
    libraries["cublas"].sonames = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
    libraries["cublasLt"].sonames = {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"};
    libraries["cudnn"].sonames = {"libcudnn.so.9", "libcudnn.so"};
    libraries["nccl"].sonames = {"libnccl.so.2", "libnccl.so"};
    return libraries;
  }();
  return known;
}

}  // namespace

SharedLibrary::SharedLibrary(const std::vector<std::string>& sonames, SymbolScope scope) {
  const int visibility = scope == SymbolScope::kGlobal ? RTLD_GLOBAL : RTLD_LOCAL;
  for (const auto& name : sonames) {
    handle_ = dlopen(name.c_str(), RTLD_NOW | visibility);
    if (handle_) {
      soname_ = name;
      return;
    }
    if (error_.empty()) error_ = dlerror();  // the preferred name's reason is the useful one
  }
  if (error_.empty()) error_ = "no library name given";
}

void* SharedLibrary::find(const char* symbol) const { return handle_ ? dlsym(handle_, symbol) : nullptr; }

void* SharedLibrary::require(const char* symbol) const {
  if (!handle_) throw LibraryError(error_);
  void* address = dlsym(handle_, symbol);
  if (!address) throw LibraryError(soname_ + " has no " + symbol + " (too old?)");
  return address;
}

const SharedLibrary& shared_library(const std::string& name) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto& known = known_libraries();
  const auto it = known.find(name);
  if (it == known.end()) throw std::logic_error("unknown library '" + name + "'");
  if (!it->second.library)
    it->second.library = std::make_unique<SharedLibrary>(it->second.sonames, it->second.scope);
  return *it->second.library;
}

bool is_known_library(const std::string& name) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  return known_libraries().count(name) > 0;
}

std::string library_unavailable_reason(const std::string& name) {
  const SharedLibrary& library = shared_library(name);
  return library.loaded() ? "" : library.error();
}

void register_library(const std::string& name, std::vector<std::string> sonames, SymbolScope scope) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  Known& entry = known_libraries()[name];
  entry.sonames = std::move(sonames);
  entry.scope = scope;
  entry.library.reset();
}

}  // namespace gpubench
