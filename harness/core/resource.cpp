#include "harness/core/resource.h"

#include <mutex>
#include <vector>

namespace gpubench {
namespace {

struct Entry {
  std::type_index type;
  int device;
  void* object;
  void (*destroy)(void*);
};

std::mutex& resources_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::vector<Entry>& resources() {
  static std::vector<Entry> entries;
  return entries;
}

}  // namespace

namespace detail {

void* find_worker_resource(std::type_index type, int device) {
  std::lock_guard<std::mutex> lock(resources_mutex());
  for (const auto& entry : resources())
    if (entry.type == type && entry.device == device) return entry.object;
  return nullptr;
}

void add_worker_resource(std::type_index type, int device, void* object, void (*destroy)(void*)) {
  std::lock_guard<std::mutex> lock(resources_mutex());
  resources().push_back({type, device, object, destroy});
}

}  // namespace detail

void destroy_worker_resources() {
  std::vector<Entry> entries;
  {
    std::lock_guard<std::mutex> lock(resources_mutex());
    entries.swap(resources());
  }
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) it->destroy(it->object);
}

}  // namespace gpubench
