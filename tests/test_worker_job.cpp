// What the parent sends a worker (WorkerJob): settings, context and instances survive the JSON
// round trip exactly, including what the result document leaves out of the context and
// parameters that expanding the family again would not produce.
#include <gtest/gtest.h>

#include <stdexcept>

#include "harness/run/worker_job.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

const Family& job_family = family("unittest/worker_job")
                               .axis_str("op", {"copy", "triad"})
                               .axis_int("bytes", {1024})
                               .axis_gpus("peer")
                               .cpu_only()
                               .hidden()
                               .run([](State&) {});

WorkerJob sample_job() {
  WorkerJob job;
  job.settings.stop.min_samples = 7;
  job.settings.stop.max_time_s = 2.5;
  job.settings.repetitions = 3;
  job.settings.timeout_s = 300;
  job.settings.quick = true;
  job.settings.devices = {0, 1};
  job.context.driver_version = "580.65";
  job.context.gpus = {testing::h200_gpu_info(0), testing::h200_gpu_info(1)};
  job.context.gpus[1].throttle_mask = 4;
  job.context.gpus[0].nvlinks_total = 18;
  job.context.links = {{{"X", 0, false}, {"PIX", 0, true}}, {{"PIX", 0, true}, {"X", 0, false}}};
  job.context.gpu_error = "";
  job.context.environment = {{"CUDA_DEVICE_MAX_CONNECTIONS", "8"}};
  // A value the family does not declare (as an axis computed from a file would give), in an
  // order a JSON object would sort differently.
  Instance instance;
  instance.family = &job_family;
  instance.params.values = {{"op", "scale"}, {"bytes", "3000000"}, {"peer", "gpu1"}, {"ratio", "0.25"}};
  instance.params.kinds = {Axis::Kind::kString, Axis::Kind::kInt, Axis::Kind::kGpu, Axis::Kind::kFloat};
  instance.name = instance_name(job_family.name(), instance.params);
  instance.device = 1;
  job.instances.push_back(instance);
  instance.skip_reason = "needs 3 GPUs (2 selected)";
  instance.params.values[0].second = "copy";
  instance.name = instance_name(job_family.name(), instance.params);
  job.instances.push_back(instance);
  return job;
}

TEST(WorkerJob, RoundTripKeepsEverything) {
  const WorkerJob job = sample_job();
  const nlohmann::json json = job_to_json(job);
  const WorkerJob back = job_from_json(nlohmann::json::parse(json.dump()));
  EXPECT_EQ(job_to_json(back), json);

  EXPECT_EQ(back.settings.stop.min_samples, 7);
  EXPECT_EQ(back.settings.repetitions, 3);
  EXPECT_EQ(back.settings.timeout_s, 300);
  EXPECT_EQ(back.settings.devices, (std::vector<int>{0, 1}));

  ASSERT_EQ(back.instances.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const Instance& a = job.instances[i];
    const Instance& b = back.instances[i];
    EXPECT_EQ(b.family, &job_family);
    EXPECT_EQ(b.name, a.name);
    EXPECT_EQ(b.params.values, a.params.values);
    EXPECT_EQ(b.params.kinds, a.params.kinds);
    EXPECT_EQ(b.device, 1);
    EXPECT_EQ(b.skip_reason, a.skip_reason);
  }
  EXPECT_EQ(back.instances[0].params.integer("bytes"), 3000000);
  EXPECT_EQ(back.instances[0].params.gpu("peer"), 1);
  EXPECT_EQ(back.instances[0].params.to_json().at("ratio"), 0.25);  // a float axis stays a number
}

TEST(WorkerJob, ContextKeepsWhatTheDocumentLeavesOut) {
  const Context back = job_from_json(job_to_json(sample_job())).context;
  EXPECT_EQ(back.driver_version, "580.65");
  ASSERT_EQ(back.gpus.size(), 2u);
  EXPECT_EQ(back.gpus[1].name, "NVIDIA H200");
  EXPECT_EQ(back.gpus[1].memory_bus_width_bits, 6144);
  EXPECT_EQ(back.gpus[1].throttle_mask, std::optional<std::uint64_t>(4));
  EXPECT_FALSE(back.gpus[0].throttle_mask.has_value());
  EXPECT_EQ(back.gpus[0].nvlinks_total, 18);
  ASSERT_EQ(back.links.size(), 2u);
  EXPECT_TRUE(back.links[0][1].p2p_access);
  EXPECT_FALSE(back.links[0][0].p2p_access);
  EXPECT_EQ(back.links[1][0].kind, "PIX");
  EXPECT_EQ(back.environment.at("CUDA_DEVICE_MAX_CONNECTIONS"), "8");
}

TEST(WorkerJob, NoGpuReasonTravels) {
  WorkerJob job;
  job.context.gpu_error = "cudaGetDeviceCount: no CUDA-capable device is detected";
  EXPECT_EQ(job_from_json(job_to_json(job)).context.gpu_error, job.context.gpu_error);
}

TEST(WorkerJob, UnknownFamilyOrMalformedJobIsAnError) {
  nlohmann::json json = job_to_json(sample_job());
  json["instances"][0]["family"] = "unittest/no_such_family";
  EXPECT_THROW(job_from_json(json), std::runtime_error);
  json = job_to_json(sample_job());
  json["instances"][0]["params"][0][2] = "complex";
  EXPECT_THROW(job_from_json(json), std::runtime_error);
  json = job_to_json(sample_job());
  json["settings"].erase("timeout_s");
  EXPECT_THROW(job_from_json(json), std::runtime_error);
}

}  // namespace
}  // namespace gpubench
