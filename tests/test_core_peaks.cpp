// configs/peaks.json and its lookup: the shipped table's H100 and H200 figures against their
// datasheets, exact name matching, malformed or missing tables, the config search path and the
// figures in the context JSON.
#include <gtest/gtest.h>

#include <fstream>

#include "harness/model/config_files.h"
#include "harness/model/json_at.h"
#include "harness/system/peaks.h"
#include "test_support.h"

namespace gpubench {
namespace {

nlohmann::json shipped_table() {
  std::ifstream in(std::string(GPUBENCH_SOURCE_DIR) + "/configs/peaks.json");
  return nlohmann::json::parse(in);
}

TEST(Peaks, H200AndH100SxmMatchTheirDatasheetsDense) {
  for (const char* name : {"NVIDIA H200", "NVIDIA H100 80GB HBM3"}) {
    const auto peaks = find_model_peaks(shipped_table(), name);
    ASSERT_TRUE(peaks) << name;
    EXPECT_DOUBLE_EQ(peaks->tflops.at("fp64"), 34);
    EXPECT_DOUBLE_EQ(peaks->tflops.at("fp64_tensor"), 67);
    EXPECT_DOUBLE_EQ(peaks->tflops.at("fp32"), 67);
    EXPECT_NEAR(peaks->tflops.at("tf32"), 495, 0.5);  // 989 with sparsity
    EXPECT_DOUBLE_EQ(peaks->tflops.at("fp16"), 989.5);
    EXPECT_DOUBLE_EQ(peaks->tflops.at("bf16"), 989.5);
    EXPECT_DOUBLE_EQ(peaks->tflops.at("fp8"), 1979);
    EXPECT_NE(peaks->source.find("datasheet"), std::string::npos);
  }
}

TEST(Peaks, H100PcieHasItsOwnColumn) {
  const auto peaks = find_model_peaks(shipped_table(), "NVIDIA H100 PCIe");
  ASSERT_TRUE(peaks);
  EXPECT_EQ(peaks->model, "H100 PCIe");
  EXPECT_DOUBLE_EQ(peaks->tflops.at("fp32"), 51);
  EXPECT_DOUBLE_EQ(peaks->tflops.at("bf16"), 756);
  EXPECT_DOUBLE_EQ(peaks->tflops.at("fp8"), 1513);
}

TEST(Peaks, NamesMatchExactlySoAnotherFormFactorGetsNoPeak) {
  EXPECT_FALSE(find_model_peaks(shipped_table(), "NVIDIA H200 NVL"));
  EXPECT_FALSE(find_model_peaks(shipped_table(), "H200"));
}

TEST(Peaks, MalformedTablesAreRejected) {
  EXPECT_THROW(find_model_peaks(nlohmann::json::object(), "x"), std::invalid_argument);
  const nlohmann::json negative = {{"models", {{{"names", {"G"}}, {"source", "s"}, {"tflops", {{"fp32", -1}}}}}}};
  EXPECT_THROW(find_model_peaks(negative, "G"), std::invalid_argument);
  const nlohmann::json no_source = {{"models", {{{"names", {"G"}}, {"tflops", {{"fp32", 1}}}}}}};
  EXPECT_THROW(find_model_peaks(no_source, "G"), std::invalid_argument);
}

TEST(Peaks, ApplyingATableSetsEachGpuOrSaysWhyNot) {
  Context context;
  context.gpus = {testing::h200_gpu_info(0), testing::h200_gpu_info(1)};
  context.gpus[1].name = "Some Future GPU";
  apply_peak_table(context, shipped_table());
  EXPECT_DOUBLE_EQ(context.gpus[0].tflops_peak.at("bf16"), 989.5);
  EXPECT_TRUE(context.gpus[1].tflops_peak.empty());
  EXPECT_NE(context.gpus[1].tflops_peak_source.find("not in configs/peaks.json"), std::string::npos);
  apply_peak_table(context, nlohmann::json::array());
  EXPECT_TRUE(context.gpus[0].tflops_peak.empty());
  EXPECT_NE(context.gpus[0].tflops_peak_source.find("models"), std::string::npos);
}

TEST(Peaks, AMissingOrMalformedFileIsSaidInEachGpusSource) {
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/peaks.json", "not json");
  Context context;
  context.gpus = {testing::h200_gpu_info(0)};
  apply_peak_table_file(context, dir + "/peaks.json");
  EXPECT_NE(context.gpus[0].tflops_peak_source.find("not valid JSON"), std::string::npos);
  apply_peak_table_file(context, std::nullopt);
  EXPECT_NE(context.gpus[0].tflops_peak_source.find("not found"), std::string::npos);
  apply_peak_table_file(context, std::string(GPUBENCH_SOURCE_DIR) + "/configs/peaks.json");
  EXPECT_DOUBLE_EQ(context.gpus[0].tflops_peak.at("fp8"), 1979);
}

TEST(Peaks, TheShippedTableIsFoundThroughTheConfigSearchPath) {
  const auto path = find_config_file("peaks.json");
  ASSERT_TRUE(path);
  EXPECT_TRUE(find_model_peaks(nlohmann::json::parse(testing::read_file(*path)), "NVIDIA H200"));
}

TEST(Peaks, TheContextJsonCarriesThemAndReadsThemBack) {
  Context context;
  context.gpus = {testing::h200_gpu_info(0)};
  apply_peak_table(context, shipped_table());
  const nlohmann::json j = to_json(context);
  EXPECT_DOUBLE_EQ(j["peak"]["gpu0"]["tflops"]["tf32"].get<double>(), 494.5);
  EXPECT_NE(j["peak"]["gpu0"]["tflops_source"].get<std::string>().find("H200"), std::string::npos);
  const Context back = read_context(JsonAt(j, "context"));
  EXPECT_EQ(back.gpus[0].tflops_peak, context.gpus[0].tflops_peak);
  EXPECT_EQ(back.gpus[0].tflops_peak_source, context.gpus[0].tflops_peak_source);
}

}  // namespace
}  // namespace gpubench
