// Requirements declared by families (needs_gpus, needs_cc, needs_library), the run-time
// library loader behind needs_library, and per-worker resources.
#include <gtest/gtest.h>

#include <stdexcept>

#include "harness/core/family.h"
#include "harness/core/resource.h"
#include "harness/model/context.h"
#include "harness/system/library.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

TEST(Library, AnAbsentLibraryGivesTheLoadersReason) {
  register_library("test_absent", {"libgpubench_not_installed.so.1"});
  const std::string reason = library_unavailable_reason("test_absent");
  EXPECT_NE(reason.find("libgpubench_not_installed.so.1"), std::string::npos) << reason;
  EXPECT_THROW(shared_library("test_absent").require("anything"), LibraryError);
}

TEST(Library, APresentLibraryLoadsAndAMissingSymbolIsNamed) {
  register_library("test_libc", {"libc.so.6"});
  ASSERT_EQ(library_unavailable_reason("test_libc"), "");
  EXPECT_NE(shared_library("test_libc").find("strlen"), nullptr);
  try {
    shared_library("test_libc").require("gpubench_no_such_function");
    FAIL() << "no throw";
  } catch (const LibraryError& error) {
    EXPECT_NE(std::string(error.what()).find("gpubench_no_such_function"), std::string::npos);
  }
}

TEST(Library, AnUnknownNameIsADeclarationError) {
  EXPECT_THROW(shared_library("cudnnn"), std::logic_error);
  EXPECT_THROW(Family("test/typo").needs_library("cudnnn"), std::logic_error);
}

TEST(Requirements, AFamilyNeedingAnAbsentLibraryIsSkippedWithTheReason) {
  register_library("test_absent", {"libgpubench_not_installed.so.1"});
  Family f("test/needs_absent");
  f.needs_library("test_absent").axis_str("n", {"1", "2"});
  const auto instances = f.expand(ExpandOptions{});
  ASSERT_EQ(instances.size(), 1u);
  EXPECT_NE(instances[0].skip_reason.find("needs test_absent: libgpubench_not_installed.so.1"), std::string::npos)
      << instances[0].skip_reason;
}

TEST(Requirements, ComputeCapabilityIsCheckedForEverySelectedGpu) {
  Context context;
  for (int i = 0; i < 2; ++i) {
    GpuInfo gpu;
    gpu.index = i;
    gpu.cc_major = i == 0 ? 9 : 8;
    gpu.cc_minor = 0;
    context.gpus.push_back(gpu);
  }
  Family f("test/needs_fp8");
  f.needs_cc(8, 9).axis_str("n", {"1"});
  ExpandOptions options;
  options.context = &context;
  options.devices = {0};
  EXPECT_EQ(f.expand(options).at(0).skip_reason, "");
  options.devices = {0, 1};
  EXPECT_EQ(f.expand(options).at(0).skip_reason, "needs compute capability 8.9 (gpu1 is 8.0)");
}

TEST(Requirements, TooFewGpusIsSkipped) {
  Family f("test/needs_two");
  f.needs_gpus(2).axis_str("n", {"1"});
  EXPECT_EQ(f.expand(ExpandOptions{}).at(0).skip_reason, "needs 2 GPUs (1 selected)");
}

struct CountedResource {
  static inline int made = 0, destroyed = 0;
  explicit CountedResource(int device) : device(device) { ++made; }
  ~CountedResource() { ++destroyed; }
  int device;
};

TEST(Resources, MadeOncePerDeviceAndDestroyedAtTheEnd) {
  CountedResource::made = CountedResource::destroyed = 0;
  CountedResource& a = worker_resource<CountedResource>(0);
  EXPECT_EQ(&a, &worker_resource<CountedResource>(0));
  EXPECT_EQ(worker_resource<CountedResource>(1).device, 1);
  EXPECT_EQ(CountedResource::made, 2);
  destroy_worker_resources();
  EXPECT_EQ(CountedResource::destroyed, 2);
  destroy_worker_resources();
  EXPECT_EQ(CountedResource::destroyed, 2);
}

struct FailingResource {
  explicit FailingResource(int) { throw std::runtime_error("no handle"); }
};

TEST(Resources, AConstructorThatThrowsLeavesNothingBehind) {
  EXPECT_THROW(worker_resource<FailingResource>(0), std::runtime_error);
  EXPECT_THROW(worker_resource<FailingResource>(0), std::runtime_error);
}

TEST(Requirements, TheRunStartsWithoutALibraryAndSkipsWhatNeedsIt) {
  const auto result = testing::run_gpubench("--suite selftest --filter 'missing_library|cpu_faults/fault:none$' --format csv");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("libgpubench_selftest_absent.so.1"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("skipped"), std::string::npos) << result.out;
}

}  // namespace
}  // namespace gpubench
