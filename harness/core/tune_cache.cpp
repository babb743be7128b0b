#include "harness/core/tune_cache.h"

namespace gpubench {

std::optional<TunedChoice> TuneCache::find(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

void TuneCache::store(const std::string& key, TunedChoice choice) {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.emplace(key, std::move(choice));
}

std::size_t TuneCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

TuneCache& worker_tune_cache() {
  static TuneCache cache;
  return cache;
}

std::string tune_cache_key(const std::string& family, const nlohmann::json& shape, const std::string& gpu,
                           const std::string& libraries) {
  return nlohmann::json{{"family", family}, {"shape", shape}, {"gpu", gpu}, {"libraries", libraries}}.dump();
}

}  // namespace gpubench
