// Context capture, peaks, JSON and `info` text, without a GPU: hand-made contexts, and NVML
// loaded from a path that does not exist.
#include <gtest/gtest.h>

#include <cstdlib>

#include "harness/model/context.h"
#include "harness/report/info_text.h"
#include "harness/system/nvml.h"
#include "harness/system/capture.h"
#include "harness/system/gpu_probe.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

// Two H200 SXM joined by 18 NVLink 4 links, as capture would describe them.
Context two_h200() {
  Context c;
  c.driver_version = "570.86.15";
  c.cuda_driver = "12.8";
  c.cuda_runtime = "13.0";
  c.cublas = "13.0.2";
  c.nvml_available = true;
  for (int i = 0; i < 2; ++i) {
    GpuInfo g = testing::h200_gpu_info(i);
    g.nvlinks_total = 18;
    g.throttle_mask = 0x1;  // idle
    c.gpus.push_back(g);
  }
  c.links.assign(2, std::vector<GpuLink>(2));
  c.links[0][0].kind = c.links[1][1].kind = "X";
  for (auto [i, j] : {std::pair{0, 1}, std::pair{1, 0}}) {
    c.links[i][j].kind = "NV18";
    c.links[i][j].nvlinks = 18;
    c.links[i][j].p2p_access = true;
  }
  return c;
}

TEST(ContextPeaks, PcieLaneRates) {
  EXPECT_NEAR(pcie_lane_gbps(5) * 16, 63.0, 0.1);
  EXPECT_NEAR(pcie_lane_gbps(4) * 16, 31.5, 0.1);
  EXPECT_NEAR(pcie_lane_gbps(3) * 16, 15.75, 0.01);
  EXPECT_DOUBLE_EQ(pcie_lane_gbps(1), 0.25);
  EXPECT_DOUBLE_EQ(pcie_lane_gbps(2), 0.5);
  for (int gen = 2; gen <= 6; ++gen) EXPECT_GT(pcie_lane_gbps(gen), pcie_lane_gbps(gen - 1));
  EXPECT_EQ(pcie_lane_gbps(0), 0);
  EXPECT_EQ(pcie_lane_gbps(7), 0);
}

TEST(ContextPeaks, HbmFromMemoryClockAndBusWidth) {
  GpuInfo g;
  g.mem_clock_max_mhz = 3201;
  g.memory_bus_width_bits = 6144;
  EXPECT_NEAR(g.hbm_peak_gbps(), 4917, 1);
  EXPECT_EQ(GpuInfo{}.hbm_peak_gbps(), 0);
}

TEST(ContextPeaks, PcieUsesMaxGenerationAndCurrentWidth) {
  GpuInfo g;
  g.pcie = {1, 16, 5, 16};  // idle: trained down to Gen1
  EXPECT_NEAR(g.pcie_peak_gbps(), 63.0, 0.1);
  g.pcie = {5, 8, 5, 16};  // a x16 card running x8
  EXPECT_NEAR(g.pcie_peak_gbps(), 31.5, 0.1);
  g.pcie = {4, 16, 0, 0};  // max unknown: the current link
  EXPECT_NEAR(g.pcie_peak_gbps(), 31.5, 0.1);
  g.pcie = {};
  EXPECT_EQ(g.pcie_peak_gbps(), 0);
}

TEST(ContextPeaks, NvlinkRateByNvmlVersionEnum) {
  EXPECT_EQ(nvlink_link_gbps(1), 20);  // NVLink 1.0 (P100)
  EXPECT_EQ(nvlink_link_gbps(2), 25);  // 2.0 (V100)
  EXPECT_EQ(nvlink_link_gbps(5), 25);  // 3.1: what an A100 answers
  EXPECT_EQ(nvlink_link_gbps(6), 25);  // 4.0 (H100, H200)
  EXPECT_EQ(nvlink_link_gbps(7), 50);  // 5.0 (B200)
  EXPECT_EQ(nvlink_link_gbps(0), 0);
  EXPECT_EQ(nvlink_link_gbps(99), 0);
  GpuInfo g;
  g.nvlinks_active = 18;
  g.nvlink_gbps_per_link = nvlink_link_gbps(6);
  EXPECT_DOUBLE_EQ(g.nvlink_peak_gbps(), 450);
}

TEST(ContextThrottle, NamesFollowNvmlBits) {
  EXPECT_TRUE(throttle_reason_names(0).empty());
  EXPECT_EQ(throttle_reason_names(0x1 | 0x4 | 0x40),
            (std::vector<std::string>{"gpu_idle", "sw_power_cap", "hw_thermal_slowdown"}));
  EXPECT_EQ(throttle_reason_names(0x1ff),
            (std::vector<std::string>{"gpu_idle", "applications_clocks_setting", "sw_power_cap",
                                      "hw_slowdown", "sync_boost", "sw_thermal_slowdown",
                                      "hw_thermal_slowdown", "hw_power_brake_slowdown",
                                      "display_clock_setting"}));
  EXPECT_EQ(throttle_reason_names(0x200), std::vector<std::string>{"reason_0x200"});
}

TEST(ContextThrottle, OnlyPowerAndThermalReasonsThrottle) {
  for (std::uint64_t bit : {0x4, 0x8, 0x20, 0x40, 0x80}) EXPECT_TRUE(is_throttled(bit)) << bit;
  for (std::uint64_t bit : {0x0, 0x1, 0x2, 0x10, 0x100}) EXPECT_FALSE(is_throttled(bit)) << bit;
}

TEST(ContextVersions, Encodings) {
  EXPECT_EQ(cuda_version_string(12040), "12.4");
  EXPECT_EQ(cuda_version_string(13000), "13.0");
  EXPECT_EQ(cuda_version_string(0), "");
  EXPECT_EQ(cudnn_version_string(90100), "9.1.0");
  EXPECT_EQ(cudnn_version_string(91300), "9.13.0");
  EXPECT_EQ(cudnn_version_string(8907), "8.9.7");
  EXPECT_EQ(nccl_version_string(22105), "2.21.5");
  EXPECT_EQ(nccl_version_string(2708), "2.7.8");
}

TEST(ContextPci, AddressesCompareAcrossFormats) {
  const auto nvml_form = parse_pci_address("00000000:1B:00.0");
  const auto cuda_form = parse_pci_address("0000:1b:00.0");
  ASSERT_TRUE(nvml_form && cuda_form);
  EXPECT_EQ(*nvml_form, *cuda_form);
  EXPECT_EQ(sysfs_pci_name(*nvml_form), "0000:1b:00.0");
  EXPECT_EQ(parse_pci_address("1b:00.1")->function, 1u);
  EXPECT_FALSE(parse_pci_address("not a bus id"));
}

TEST(ContextJson, RoundTrip) {
  const Context c = two_h200();
  const nlohmann::json j = to_json(c);
  for (const char* key : {"driver_version", "cuda_driver", "cuda_runtime", "cublas", "cudnn",
                          "nccl", "nvml", "gpus", "links", "peak"})
    EXPECT_TRUE(j.contains(key)) << key;
  ASSERT_EQ(j["gpus"].size(), 2u);
  const auto& g0 = j["gpus"][0];
  EXPECT_EQ(g0["cc"], "9.0");
  EXPECT_EQ(g0["pcie"]["gen_max"], 5);
  EXPECT_EQ(g0["nvlink"]["links_active"], 18);
  EXPECT_EQ(g0["mig_mode"], false);
  EXPECT_EQ(j["links"][0][1], "NV18");
  EXPECT_EQ(j["nvml"]["available"], true);
  EXPECT_NEAR(j["peak"]["gpu1"]["hbm_gbps"].get<double>(), 4917, 1);
  EXPECT_NEAR(j["peak"]["gpu1"]["pcie_gbps"].get<double>(), 63.0, 0.1);
  EXPECT_DOUBLE_EQ(j["peak"]["gpu1"]["nvlink_gbps"].get<double>(), 450);

  for (std::size_t i = 0; i < 2; ++i) {
    const GpuInfo& a = c.gpus[i];
    const GpuInfo b = read_gpu_info(JsonAt(j["gpus"][i], "t.json"));
    EXPECT_EQ(b.index, a.index);
    EXPECT_EQ(b.name, a.name);
    EXPECT_EQ(b.uuid, a.uuid);
    EXPECT_EQ(b.pci_bus_id, a.pci_bus_id);
    EXPECT_EQ(b.sm_count, a.sm_count);
    EXPECT_EQ(b.cc_major, a.cc_major);
    EXPECT_EQ(b.cc_minor, a.cc_minor);
    EXPECT_EQ(b.memory_bytes, a.memory_bytes);
    EXPECT_EQ(b.l2_bytes, a.l2_bytes);
    EXPECT_EQ(b.sm_clock_max_mhz, a.sm_clock_max_mhz);
    EXPECT_EQ(b.mem_clock_max_mhz, a.mem_clock_max_mhz);
    EXPECT_EQ(b.memory_bus_width_bits, a.memory_bus_width_bits);
    EXPECT_EQ(b.pcie.gen, a.pcie.gen);
    EXPECT_EQ(b.pcie.width_max, a.pcie.width_max);
    EXPECT_EQ(b.nvlinks_active, a.nvlinks_active);
    EXPECT_EQ(b.nvlink_gbps_per_link, a.nvlink_gbps_per_link);
    EXPECT_EQ(b.numa_node, a.numa_node);
    EXPECT_EQ(b.ecc_enabled, a.ecc_enabled);
    EXPECT_EQ(b.mig_mode, a.mig_mode);
    EXPECT_EQ(b.power_limit_w, a.power_limit_w);
    EXPECT_DOUBLE_EQ(b.hbm_peak_gbps(), a.hbm_peak_gbps());
  }
  const Context back = read_context(JsonAt(j, "t.json"));
  EXPECT_EQ(back.driver_version, c.driver_version);
  EXPECT_EQ(back.cublas, c.cublas);
  EXPECT_TRUE(back.nvml_available);
  ASSERT_EQ(back.links.size(), 2u);
  EXPECT_EQ(back.links[1][0].kind, "NV18");
  EXPECT_EQ(back.links[1][0].nvlinks, 18);
  EXPECT_EQ(to_json(back), j);
}

TEST(ContextEnvironment, KeepsCudaAndNcclVariablesOnly) {
  const char* block[] = {"PATH=/usr/bin",
                         "CUDA_DEVICE_MAX_CONNECTIONS=1",
                         "NCCL_NVLS_ENABLE=0",
                         "MY_CUDA_THING=1",
                         "CUDA_VISIBLE_DEVICES=0,1",
                         "CUDA_MODULE_LOADING=",
                         "NO_EQUALS_SIGN",
                         nullptr};
  const auto env = measurement_environment(block);
  EXPECT_EQ(env, (std::map<std::string, std::string>{{"CUDA_DEVICE_MAX_CONNECTIONS", "1"},
                                                     {"CUDA_MODULE_LOADING", ""},
                                                     {"CUDA_VISIBLE_DEVICES", "0,1"},
                                                     {"NCCL_NVLS_ENABLE", "0"}}));
  EXPECT_TRUE(measurement_environment(nullptr).empty());

  Context c = two_h200();
  c.environment = env;
  const nlohmann::json j = to_json(c);
  EXPECT_EQ(j["environment"]["CUDA_DEVICE_MAX_CONNECTIONS"], "1");
  EXPECT_EQ(read_context(JsonAt(j, "t.json")).environment, env);
}

TEST(ContextJson, UnknownsAreNullAndMissingFieldsReadAsUnknown) {
  Context c = two_h200();
  c.gpus[0].mig_mode.reset();
  c.gpus[0].ecc_enabled.reset();
  const nlohmann::json j = to_json(c);
  EXPECT_TRUE(j["gpus"][0]["mig_mode"].is_null());
  EXPECT_TRUE(j["gpus"][0]["ecc_enabled"].is_null());
  EXPECT_FALSE(read_gpu_info(JsonAt(j["gpus"][0], "t.json")).mig_mode.has_value());

  const nlohmann::json sparse_json = {{"index", 3}, {"name", "X"}, {"cc", 7}};
  const GpuInfo sparse = read_gpu_info(JsonAt(sparse_json, "t.json"));
  EXPECT_EQ(sparse.index, 3);
  EXPECT_EQ(sparse.cc_major, 7);  // a bare number is the major version
  EXPECT_EQ(sparse.cc_minor, 0);
  EXPECT_EQ(sparse.numa_node, -1);
  EXPECT_EQ(sparse.pcie_peak_gbps(), 0);
  EXPECT_FALSE(sparse.ecc_enabled.has_value());
}

TEST(ContextJson, MistypedFieldsAreBadInputWithTheirPlace) {
  nlohmann::json j = to_json(two_h200());
  j["gpus"][1]["pcie"]["width"] = "x16";
  try {
    read_context(JsonAt(j, "t.json", "/context/gpubench"));
    FAIL() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.code, kExitBadInput);
    EXPECT_EQ(e.message, "t.json: /context/gpubench/gpus/1/pcie/width: expected a number, found a string");
  }
}

TEST(ContextNvml, AbsentLibraryIsReportedAndCaptureStillWorks) {
  const char* saved = std::getenv("GPUBENCH_NVML_LIBRARY");
  const std::string previous = saved ? saved : "";
  setenv("GPUBENCH_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  const std::string path = Nvml::default_path();
  if (saved) {
    setenv("GPUBENCH_NVML_LIBRARY", previous.c_str(), 1);
  } else {
    unsetenv("GPUBENCH_NVML_LIBRARY");
  }
  EXPECT_EQ(path, "/nonexistent/libnvidia-ml.so.1");

  // A fresh load: Nvml::get() may already hold the real library in this process.
  const auto nvml = Nvml::load(path);
  EXPECT_FALSE(nvml->available());
  EXPECT_NE(nvml->error().find("cannot load /nonexistent/libnvidia-ml.so.1"), std::string::npos)
      << nvml->error();
  EXPECT_EQ(nvml->driver_version(), "");
  EXPECT_EQ(nvml->handle_for_pci_bus_id("0000:1b:00.0"), nullptr);
  EXPECT_TRUE(nvml->nvlinks(nullptr).empty());

  const Context c = capture_context(*nvml);
  EXPECT_FALSE(c.nvml_available);
  EXPECT_EQ(c.nvml_error, nvml->error());
  EXPECT_FALSE(c.cuda_runtime.empty());
  EXPECT_EQ(c.gpus.empty(), !c.gpu_error.empty());
  const nlohmann::json j = to_json(c);
  EXPECT_EQ(j["nvml"]["available"], false);
  EXPECT_EQ(j["nvml"]["error"], nvml->error());
  for (const auto& row : c.links) {
    for (const auto& link : row) EXPECT_TRUE(link.kind == "X" || link.kind == "?");
  }
  EXPECT_NE(format_info(c).find("NVML: unavailable: cannot load"), std::string::npos);
}

TEST(ContextNvml, LibraryWithoutNvmlSymbolsIsUnavailable) {
  const auto nvml = Nvml::load("libc.so.6");
  EXPECT_FALSE(nvml->available());
  EXPECT_NE(nvml->error().find("nvmlInit_v2"), std::string::npos) << nvml->error();
}

TEST(ContextCapture, NoGpuGivesNoGpusAndAReason) {
  if (testing::gpu_present()) GTEST_SKIP() << "a GPU is present";
  const Context c = capture_context();
  EXPECT_TRUE(c.gpus.empty());
  EXPECT_TRUE(c.links.empty());
  EXPECT_FALSE(c.gpu_error.empty());
  EXPECT_NE(format_info(c).find("No usable GPU: " + c.gpu_error), std::string::npos);
  EXPECT_TRUE(to_json(c)["gpus"].empty());
  if (!Nvml::get().available()) {
    EXPECT_FALSE(nvml_probe().available());
    EXPECT_FALSE(nvml_probe().read(0).temp_c);  // unreadable, never 0
  }
}

TEST(ContextCapture, LibraryVersionsLookLikeVersions) {
  const Context c = capture_context();
  for (const std::string* v : {&c.cublas, &c.cudnn, &c.nccl}) {
    if (v->empty()) continue;  // that library is not installed here
    int major = -1, minor = -1, patch = -1;
    EXPECT_EQ(std::sscanf(v->c_str(), "%d.%d.%d", &major, &minor, &patch), 3) << *v;
    EXPECT_GT(major, 0) << *v;
  }
}

TEST(ContextFormat, InfoShowsVersionsGpusLinkMatrixAndPeaks) {
  const std::string text = format_info(two_h200());
  for (const char* expected : {"570.86.15", "13.0.2", "NVIDIA H200", "GPU0", "GPU1", "NV18",
                               "Legend", "Gen5 x16", "4917 GB/s", "63.02 GB/s", "450.0 GB/s",
                               "no findings"})
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
}

TEST(ContextFormat, HealthReportsDegradedLinksAndModes) {
  Context c = two_h200();
  c.gpus[0].nvlinks_active = 16;
  c.gpus[0].pcie = {5, 8, 5, 16};
  c.gpus[1].ecc_enabled = false;
  c.gpus[1].mig_mode = true;
  c.gpus[1].throttle_mask = 0x4;
  const std::string text = format_info(c);
  for (const char* expected : {"NVLink 16 of 18 links active", "PCIe link x8, x16 possible",
                               "ECC disabled", "MIG mode on", "throttled now: sw_power_cap"})
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
}

TEST(ContextFormat, LowPcieGenerationIsAFindingOnlyWhenBusy) {
  Context c = two_h200();
  c.gpus[0].pcie = {1, 16, 5, 16};  // idle (mask has gpu_idle): expected power saving
  EXPECT_EQ(format_info(c).find("PCIe Gen1"), std::string::npos);
  c.gpus[0].throttle_mask = 0;  // busy
  EXPECT_NE(format_info(c).find("PCIe Gen1 while busy, Gen5 possible"), std::string::npos);
}

TEST(ContextFormat, PcieCardsWithoutBridgesAreNotANvlinkFinding) {
  Context c = two_h200();
  for (auto& g : c.gpus) g.nvlinks_active = 0;
  EXPECT_EQ(format_info(c).find("links active"), std::string::npos);
}

}  // namespace
}  // namespace gpubench
