#pragma once
// Choices that State::tune made earlier in this worker, so that a shape tuned once on a GPU is
// not searched again: repetitions of a benchmark, layers of different networks that share a
// shape. Like torch's cudnn.benchmark cache, a hit measures the remembered candidate alone.
// Keyed by family, the family's shape key (shape, type, layout: whatever decides the choice),
// GPU and library versions; one cache per worker process, shared by its lanes in node mode.
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace gpubench {

struct TunedChoice {
  nlohmann::json identity;  // the kept candidate's TuneCandidate::identity
  std::string tuned_by;     // the benchmark whose tune chose it
  nlohmann::json record;    // that benchmark's gpubench.choice
};

class TuneCache {
 public:
  std::optional<TunedChoice> find(const std::string& key) const;
  // The first choice stored under a key stays: lanes tuning the same key at once keep one.
  void store(const std::string& key, TunedChoice choice);
  std::size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, TunedChoice> entries_;
};

// This process's cache.
TuneCache& worker_tune_cache();

// The key of a tune: `family`, the family's `shape`, the GPU (UUID, else name and index) and
// the library versions that offer the candidates.
std::string tune_cache_key(const std::string& family, const nlohmann::json& shape, const std::string& gpu,
                           const std::string& libraries);

}  // namespace gpubench
