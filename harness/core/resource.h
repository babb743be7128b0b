#pragma once
// Per-worker resources: library handles, workspaces, communicators. State::resource<T>() makes
// one T per process and device on first use (T(int device), with that device current) and
// hands the same object to every later benchmark of the worker, so a handle's creation cost and
// a workspace's allocation stay out of every measurement but the first family's set-up. The
// runner destroys them (destroy_worker_resources) when the worker's benchmarks are done, newest
// first, while the CUDA context is still alive.
#include <typeindex>

namespace gpubench {
namespace detail {
void* find_worker_resource(std::type_index type, int device);
void add_worker_resource(std::type_index type, int device, void* object, void (*destroy)(void*));
}  // namespace detail

template <class T>
T& worker_resource(int device) {
  if (void* found = detail::find_worker_resource(typeid(T), device)) return *static_cast<T*>(found);
  T* made = new T(device);  // a constructor that throws leaves nothing registered
  detail::add_worker_resource(typeid(T), device, made, [](void* object) { delete static_cast<T*>(object); });
  return *made;
}

// Destroys every resource, newest first. Safe to call more than once.
void destroy_worker_resources();

}  // namespace gpubench
