// compare: a changed GEMM algorithm or cuDNN engine is named beside what its figure did.
#include <gtest/gtest.h>

#include "harness/analysis/compare.h"
#include "tests/result_builder.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

using testing::ResultBuilder;
using testing::samples;

// A gpubench.choice as State::tune records it, for cuBLASLt (algo fields) or cuDNN (engine, knobs).
nlohmann::json gemm_choice(int tile, int cluster_shape = 3) {
  const nlohmann::json chosen = {{"algo_id", 66}, {"tile", tile}, {"stages", 35}, {"cluster_shape", cluster_shape}};
  const nlohmann::json candidate = {{"label", "algo 66 tile " + std::to_string(tile) + " stages 35"},
                                    {"median_us", 9.7}, {"status", "ok"}};
  return {{"chosen", chosen}, {"chosen_index", 0}, {"heuristic", chosen}, {"heuristic_index", 0},
          {"candidates", nlohmann::json::array({candidate})}};
}
nlohmann::json engine_choice(int engine, int knob) {
  const nlohmann::json chosen = {{"engine", engine}, {"knobs", {{"25", knob}}}, {"numerical_notes", {"tensor_core"}}};
  const nlohmann::json candidate = {{"label", "engine " + std::to_string(engine) + " (tensor_core) knobs 25=" +
                                               std::to_string(knob)}, {"median_us", 120.0}, {"status", "ok"}};
  return {{"chosen", chosen}, {"chosen_index", 0}, {"candidates", nlohmann::json::array({candidate})}};
}

const char* kGemm = "gemm/matmul/type:bf16/m:8192/n:8192/k:8192/layout:tn/algo:best/gpu:gpu0";
const char* kConv = "conv/forward/layer:res2/type:bf16/algo:best/gpu:gpu0";

Comparison compare_choices(const nlohmann::json& base_choice, const nlohmann::json& new_choice,
                           double new_tflops = 700) {
  ResultBuilder base, now;
  base.bench(kGemm, "tflops", samples(700, 0.5, 20));
  base.last()["gpubench"]["choice"] = base_choice;
  now.bench(kGemm, "tflops", samples(new_tflops, 0.5, 20));
  now.last()["gpubench"]["choice"] = new_choice;
  return compare_runs(base.parse("base.json"), now.parse("new.json"), {});
}

TEST(CompareChoice, ChangedAlgorithmIsNamedWithWhatTheFigureDid) {
  const Comparison c = compare_choices(gemm_choice(197), gemm_choice(248), 630);
  ASSERT_EQ(c.choice_changes.size(), 1u);
  const ChoiceChange& change = c.choice_changes[0];
  EXPECT_EQ(change.benchmark, kGemm);
  EXPECT_EQ(change.base_choice, "algo 66 tile 197 stages 35");
  EXPECT_EQ(change.new_choice, "algo 66 tile 248 stages 35");
  ASSERT_TRUE(change.figure);
  EXPECT_EQ(change.figure->metric, "tflops");
  EXPECT_EQ(change.figure->verdict, Verdict::kRegressed);

  const std::string table = render_comparison(c, "table");
  EXPECT_NE(table.find("Chosen algorithm or engine changed in 1 tuned benchmark:"), std::string::npos) << table;
  EXPECT_NE(table.find("algo 66 tile 197 stages 35"), std::string::npos);
  EXPECT_NE(table.find("algo 66 tile 248 stages 35"), std::string::npos);
  EXPECT_NE(table.find("-10.0%"), std::string::npos);
  const std::string md = render_comparison(c, "md");
  EXPECT_NE(md.find("#### Chosen algorithm or engine changed in 1 tuned benchmark\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| algo 66 tile 197 stages 35 | algo 66 tile 248 stages 35 | tflops |"), std::string::npos);
  const auto json = nlohmann::json::parse(render_comparison(c, "json"));
  ASSERT_EQ(json["choice_changes"].size(), 1u);
  const auto& j = json["choice_changes"][0];
  EXPECT_EQ(j["benchmark"], kGemm);
  EXPECT_EQ(j["base_choice"], "algo 66 tile 197 stages 35");
  EXPECT_EQ(j["new_identity"][0]["tile"], 248);
  EXPECT_EQ(j["verdict"], "regressed");
  EXPECT_NEAR(j["change_pct"].get<double>(), -10, 1e-9);
}

TEST(CompareChoice, SameChoiceOrNoneRecordedSaysNothing) {
  EXPECT_TRUE(compare_choices(gemm_choice(197), gemm_choice(197)).choice_changes.empty());
  // A file from before choices were recorded, and a tune whose every candidate failed.
  EXPECT_TRUE(compare_choices(nullptr, gemm_choice(197)).choice_changes.empty());
  nlohmann::json failed = gemm_choice(197);
  failed["chosen"] = nullptr;
  EXPECT_TRUE(compare_choices(gemm_choice(197), failed).choice_changes.empty());
  const Comparison c = compare_choices(gemm_choice(197), gemm_choice(197));
  EXPECT_EQ(render_comparison(c, "table").find("Chosen"), std::string::npos);
  EXPECT_TRUE(nlohmann::json::parse(render_comparison(c, "json"))["choice_changes"].empty());
}

TEST(CompareChoice, IdentityFieldsTheLabelDoesNotShowAreNamed) {
  const Comparison c = compare_choices(gemm_choice(197, 3), gemm_choice(197, 4));
  ASSERT_EQ(c.choice_changes.size(), 1u);
  EXPECT_EQ(c.choice_changes[0].base_choice, "algo 66 tile 197 stages 35 (cluster_shape 3)");
  EXPECT_EQ(c.choice_changes[0].new_choice, "algo 66 tile 197 stages 35 (cluster_shape 4)");
  EXPECT_EQ(c.choice_changes[0].figure->verdict, Verdict::kSame);
}

TEST(CompareChoice, EnginesAndKnobsAreComparedAlike) {
  ResultBuilder base, now;
  base.bench(kConv, "tflops", samples(500, 0.5, 20));
  base.last()["gpubench"]["choice"] = engine_choice(62, 1);
  now.bench(kConv, "tflops", samples(500, 0.5, 20));
  now.last()["gpubench"]["choice"] = engine_choice(62, 0);
  const Comparison c = compare_runs(base.parse(), now.parse(), {});
  ASSERT_EQ(c.choice_changes.size(), 1u);
  EXPECT_EQ(c.choice_changes[0].base_choice, "engine 62 (tensor_core) knobs 25=1");
  EXPECT_EQ(c.choice_changes[0].new_choice, "engine 62 (tensor_core) knobs 25=0");
}

TEST(CompareChoice, RepetitionsThatChoseAlikeInEitherOrderAreNoChange) {
  ResultBuilder base, now, other;
  const std::vector<int> base_tiles{197, 248}, new_tiles{248, 197}, other_tiles{248, 248};
  for (auto [builder, tiles] : {std::pair{&base, &base_tiles}, {&now, &new_tiles}, {&other, &other_tiles}})
    for (int rep = 0; rep < 2; ++rep) {
      builder->bench(kGemm, "tflops", samples(700, 0.5, 20), true, rep, 2);
      builder->last()["gpubench"]["choice"] = gemm_choice((*tiles)[rep]);
    }
  EXPECT_TRUE(compare_runs(base.parse(), now.parse(), {}).choice_changes.empty());
  const Comparison c = compare_runs(base.parse(), other.parse(), {});
  ASSERT_EQ(c.choice_changes.size(), 1u);
  EXPECT_EQ(c.choice_changes[0].base_choice, "algo 66 tile 197 stages 35; algo 66 tile 248 stages 35");
  EXPECT_EQ(c.choice_changes[0].new_choice, "algo 66 tile 248 stages 35");
}

}  // namespace
}  // namespace gpubench
