// The tuning cache's keys and entries (harness/core/tune_cache.h); State::tune's use of it is
// tested on the GPU (tests/gpu_core.cpp).
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "harness/core/tune_cache.h"

namespace {

using namespace gpubench;

TEST(TuneCache, AKeyChangesWithFamilyShapeGpuAndLibraries) {
  const nlohmann::json shape = {{"n", 32}, {"type", "fp16"}};
  const std::string key = tune_cache_key("conv/forward", shape, "GPU-1", "580 cudnn 9.14");
  EXPECT_EQ(key, tune_cache_key("conv/forward", {{"type", "fp16"}, {"n", 32}}, "GPU-1", "580 cudnn 9.14"));
  EXPECT_NE(key, tune_cache_key("conv/backward_data", shape, "GPU-1", "580 cudnn 9.14"));
  EXPECT_NE(key, tune_cache_key("conv/forward", {{"n", 64}, {"type", "fp16"}}, "GPU-1", "580 cudnn 9.14"));
  EXPECT_NE(key, tune_cache_key("conv/forward", shape, "GPU-2", "580 cudnn 9.14"));
  EXPECT_NE(key, tune_cache_key("conv/forward", shape, "GPU-1", "580 cudnn 9.19"));
}

TEST(TuneCache, TheFirstChoiceStoredUnderAKeyStays) {
  TuneCache cache;
  EXPECT_FALSE(cache.find("k"));
  cache.store("k", {{{"engine", 1}}, "conv/forward/a", {{"chosen", {{"engine", 1}}}}});
  cache.store("k", {{{"engine", 2}}, "conv/forward/b", {{"chosen", {{"engine", 2}}}}});
  ASSERT_TRUE(cache.find("k"));
  EXPECT_EQ(cache.find("k")->identity, (nlohmann::json{{"engine", 1}}));
  EXPECT_EQ(cache.find("k")->tuned_by, "conv/forward/a");
}

TEST(TuneCache, LanesStoringAndFindingAtOnceKeepEveryKey) {
  TuneCache cache;
  std::vector<std::thread> lanes;
  for (int lane = 0; lane < 8; ++lane)
    lanes.emplace_back([&cache, lane] {
      for (int i = 0; i < 200; ++i) {
        cache.store("gpu" + std::to_string(lane) + "/" + std::to_string(i), {{{"i", i}}, "b", {}});
        cache.find("gpu0/" + std::to_string(i));
      }
    });
  for (auto& lane : lanes) lane.join();
  EXPECT_EQ(cache.size(), 8u * 200u);
}

}  // namespace
