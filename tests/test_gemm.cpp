// The gemm suite's CPU side: the shape file, FLOP and byte counting, tolerances per precision,
// instance names and the algorithm identity recorded in gpubench.choice.
#include <gtest/gtest.h>

#include <cstdlib>

#include "benches/gemm/gemm_types.h"
#include "benches/gemm/shapes.h"
#include "harness/core/family.h"
#include "harness/model/exit_codes.h"
#include "harness/system/library.h"

namespace gpubench::gemm {
namespace {

bool library_available() { return library_unavailable_reason("cublasLt").empty(); }

const std::string kShippedShapes = std::string(GPUBENCH_SOURCE_DIR) + "/configs/gemm_shapes.json";

ShapeCatalog parse(const std::string& entries) {
  return parse_shapes(nlohmann::json::parse("{\"shapes\": [" + entries + "]}"), "shapes.json");
}

// The message of the UsageError that parsing `entries` throws, or "" where it does not.
std::string parse_error(const std::string& entries) {
  try {
    parse(entries);
  } catch (const UsageError& error) {
    EXPECT_EQ(error.code, kExitBadInput);
    return error.message;
  }
  return "";
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in: " << text;
}

Shape shape(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch = 1) {
  Shape s;
  s.m = m, s.n = n, s.k = k, s.batch = batch;
  return s;
}

TEST(GemmShapes, TheShippedFileLoads) {
  const ShapeCatalog catalog = load_shapes(kShippedShapes);
  EXPECT_GE(catalog.entries().size(), 10u);
  const auto m = catalog.values("m", ShapeUse::kMatmul);
  for (std::int64_t tokens : {1, 16384, 1024, 4095}) EXPECT_NE(std::find(m.begin(), m.end(), tokens), m.end()) << tokens;
  const std::map<std::string, std::string> bf16_tn = {{"type", "bf16"}, {"layout", "tn"}, {"algo", "best"}};
  EXPECT_TRUE(catalog.allows(shape(8192, 8192, 8192), bf16_tn, ShapeUse::kMatmul));
  EXPECT_TRUE(catalog.allows(shape(1, 14336, 4096), {{"type", "bf16"}, {"layout", "tn"}, {"algo", "heuristic"}},
                             ShapeUse::kMatmul));
  EXPECT_TRUE(catalog.allows(shape(2048, 2048, 128, 32), {{"type", "bf16"}}, ShapeUse::kStrided));
  EXPECT_TRUE(catalog.allows(shape(1, 4096, 4096), {{"type", "bf16"}, {"layout", "tn"}}, ShapeUse::kCache));
}

TEST(GemmShapes, ABadShapeNamesTheEntry) {
  expect_contains(parse_error(R"({"name": "ok", "square": [64]}, {"name": "qkv", "m": -1, "n": 2, "k": 3})"),
                  "shapes.json: shapes[1] (\"qkv\"): m must be a positive integer");
  expect_contains(parse_error(R"({"name": "no_k", "m": 1, "n": 2})"), "shapes[0] (\"no_k\"): needs \"k\"");
  expect_contains(parse_error(R"({"name": "x", "m": 1, "n": 2, "k": 2.5})"), "(\"x\"): k must be a positive integer");
  expect_contains(parse_error(R"({"name": "x", "m": [], "n": 2, "k": 2})"), "m is an empty list");
  expect_contains(parse_error(R"({"name": "x", "m": 1, "n": 2, "k": 2, "heads": 4})"), "unknown key \"heads\"");
  expect_contains(parse_error(R"({"m": 1, "n": 2, "k": 2})"), "shapes[0]: needs a non-empty \"name\"");
  expect_contains(parse_error(R"({"name": "a", "square": [8]}, {"name": "a", "square": [16]})"),
                  "shapes[1] (\"a\"): a second entry of this name");
  expect_contains(parse_error(R"({"name": "a", "square": [8], "m": 8})"), "square and m/n/k together");
  expect_contains(parse_error(R"({"name": "a", "square": [8], "only": {"type": ["fp64"]}})"),
                  "only.type: unknown value \"fp64\"");
  expect_contains(parse_error(R"({"name": "a", "square": [8], "only": {"gpu": ["gpu0"]}})"), "only.gpu: not an axis");
  expect_contains(parse_error(R"({"name": "a", "square": [8], "batch": 4, "l2_modes": true})"),
                  "l2_modes is for single GEMMs");
  EXPECT_EQ(parse_error(R"({"name": "a", "square": [8], "batch": 4, "only": {"layout": ["nn"]}})"), "");
}

TEST(GemmShapes, AnUnreadableOrMalformedFileIsBadInput) {
  try {
    load_shapes("/nonexistent/gemm_shapes.json");
    FAIL() << "no throw";
  } catch (const UsageError& error) {
    EXPECT_EQ(error.code, kExitBadInput);
    expect_contains(error.message, "/nonexistent/gemm_shapes.json: cannot be read");
  }
  EXPECT_THROW(parse_shapes(nlohmann::json::parse(R"({"shape": []})"), "f.json"), UsageError);
}

TEST(GemmShapes, TheFileIsFoundOnTheConfigPathOrNamedByTheEnvironment) {
  ::setenv("GPUBENCH_GEMM_SHAPES", "/elsewhere/shapes.json", 1);
  EXPECT_EQ(shapes_path(), "/elsewhere/shapes.json");
  ::unsetenv("GPUBENCH_GEMM_SHAPES");
  const std::string found = shapes_path();
  EXPECT_EQ(found.substr(found.size() - std::string("configs/gemm_shapes.json").size()), "configs/gemm_shapes.json");
  EXPECT_NO_THROW(load_shapes(found));
}

TEST(GemmShapes, SquaresAreNotCrossedAndOnlyRestrictsAxes) {
  const ShapeCatalog catalog = parse(R"({"name": "sq", "square": [64, 128], "only": {"type": ["bf16"]}},
                                        {"name": "mlp", "m": [1, 16], "n": 256, "k": 512},
                                        {"name": "heads", "batch": 8, "m": 64, "n": 64, "k": 32})");
  EXPECT_TRUE(catalog.allows(shape(128, 128, 128), {{"type", "bf16"}}, ShapeUse::kMatmul));
  EXPECT_FALSE(catalog.allows(shape(64, 128, 128), {{"type", "bf16"}}, ShapeUse::kMatmul));
  EXPECT_FALSE(catalog.allows(shape(64, 64, 64), {{"type", "fp16"}}, ShapeUse::kMatmul));
  EXPECT_TRUE(catalog.allows(shape(16, 256, 512), {{"type", "fp16"}, {"layout", "nn"}}, ShapeUse::kMatmul));
  EXPECT_FALSE(catalog.allows(shape(64, 64, 32, 8), {}, ShapeUse::kMatmul));
  EXPECT_TRUE(catalog.allows(shape(64, 64, 32, 8), {}, ShapeUse::kStrided));
  EXPECT_FALSE(catalog.allows(shape(16, 256, 512), {}, ShapeUse::kCache));
  EXPECT_EQ(catalog.values("m", ShapeUse::kMatmul), (std::vector<std::int64_t>{1, 16, 64, 128}));
  EXPECT_EQ(catalog.values("batch", ShapeUse::kStrided), (std::vector<std::int64_t>{8}));
  EXPECT_EQ(present({1, 4096}, catalog.values("m", ShapeUse::kMatmul)), (std::vector<std::int64_t>{1}));
}

TEST(GemmCounting, FlopsAreTwoMnkPerGemmTimesTheBatch) {
  EXPECT_DOUBLE_EQ(gemm_flops(shape(8192, 8192, 8192)), 2.0 * 8192 * 8192 * 8192);
  EXPECT_DOUBLE_EQ(gemm_flops(shape(2048, 128, 2048, 32)), 2.0 * 2048 * 128 * 2048 * 32);
}

TEST(GemmCounting, BytesAreAAndBReadAndDWrittenOnceInTheirTypes) {
  // Decode: one token against a 4096 x 14336 bf16 weight.
  EXPECT_DOUBLE_EQ(gemm_bytes(shape(1, 14336, 4096), find_precision("bf16")), 2.0 * (4096 + 4096 * 14336 + 14336));
  // FP8 operands, BF16 output.
  EXPECT_DOUBLE_EQ(gemm_bytes(shape(16, 4096, 4096, 2), find_precision("fp8_e4m3")),
                   2.0 * (16.0 * 4096 + 4096.0 * 4096 + 2.0 * 16 * 4096));
  EXPECT_DOUBLE_EQ(gemm_bytes(shape(64, 64, 64), find_precision("tf32")), 4.0 * 3 * 64 * 64);
  EXPECT_TRUE(is_memory_bound_shape(shape(1, 14336, 4096)));
  EXPECT_TRUE(is_memory_bound_shape(shape(8192, 128, 2048)));
  EXPECT_FALSE(is_memory_bound_shape(shape(2048, 2048, 128)));
}

TEST(GemmCounting, ColdL2RotatesSetsBeyondTwiceTheL2) {
  const double l2 = 50.0 * (1 << 20);
  EXPECT_EQ(cold_operand_sets(32.0 * (1 << 20), l2), 4);  // 128 MiB > 100 MiB
  EXPECT_EQ(cold_operand_sets(50.0 * (1 << 20), l2), 3);
  EXPECT_EQ(cold_operand_sets(200.0 * (1 << 20), l2), 1);
  for (double set : {1e3, 1e6, 3e7, 9.9e7}) EXPECT_GT(cold_operand_sets(set, l2) * set, 2 * l2) << set;
  EXPECT_THROW(cold_operand_sets(0, l2), std::invalid_argument);
}

TEST(GemmPrecision, TypesNameTheirComputeTypeAndTf32IsNeverFp32) {
  EXPECT_EQ(find_precision("fp32").compute, "CUBLAS_COMPUTE_32F_PEDANTIC");
  EXPECT_EQ(find_precision("fp32").peak_key, "fp32");
  EXPECT_EQ(find_precision("tf32").compute, "CUBLAS_COMPUTE_32F_FAST_TF32");
  EXPECT_EQ(find_precision("tf32").peak_key, "tf32");
  for (const char* name : {"fp16", "bf16", "fp8_e4m3", "fp8_e4m3_e5m2"})
    EXPECT_EQ(find_precision(name).compute, "CUBLAS_COMPUTE_32F") << name;
  EXPECT_EQ(find_precision("fp8_e4m3_e5m2").b, Element::kFp8E5M2);
  EXPECT_EQ(find_precision("fp8_e4m3").d, Element::kBf16);
  EXPECT_TRUE(find_precision("fp8_e4m3").scaled);
  EXPECT_EQ(find_precision("fp8_e4m3").min_cc, 89);
  EXPECT_EQ(find_precision("bf16").min_cc, 0);
  EXPECT_THROW(find_precision("fp64"), std::invalid_argument);
  EXPECT_THROW(parse_layout("tt"), std::invalid_argument);
}

TEST(GemmPrecision, ToleranceFollowsEachTypesPrecision) {
  const auto tolerance = [](const char* name) { return find_precision(name).tolerance; };
  EXPECT_LT(tolerance("fp32"), tolerance("tf32"));
  EXPECT_LE(tolerance("tf32"), tolerance("fp16"));
  EXPECT_LT(tolerance("fp16"), tolerance("bf16"));
  EXPECT_LE(tolerance("bf16"), tolerance("fp8_e4m3"));
  // BF16 output rounds by up to 2^-9 relative: the tolerance must allow that and little more.
  EXPECT_GT(tolerance("bf16"), 1.0 / 512);
  EXPECT_LT(tolerance("bf16"), 0.05);
  EXPECT_LT(tolerance("fp32"), 1e-3);
}

TEST(GemmOptions, WorkspaceIsPositiveMibAndDefaultsToAtLeast32) {
  EXPECT_GE(parse_workspace_mib(nullptr), 32u);
  EXPECT_EQ(parse_workspace_mib(""), kDefaultWorkspaceMib);
  EXPECT_EQ(parse_workspace_mib("256"), 256u);
  for (const char* bad : {"0", "-4", "12MiB", "1e3", "999999"}) EXPECT_THROW(parse_workspace_mib(bad), UsageError) << bad;
}

TEST(GemmChoice, TheAlgorithmIdentityIsRecordedWhole) {
  AlgoIdentity algo;
  algo.id = 66, algo.tile = 20, algo.stages = 35, algo.splitk = 1, algo.reduction = 0, algo.swizzle = 1;
  algo.custom = 3, algo.inner_shape = 2, algo.cluster_shape = 4, algo.workspace_bytes = 1 << 20;
  const nlohmann::json json = to_json(algo);
  for (const char* key : {"algo_id", "tile", "stages", "splitk", "reduction", "swizzle", "custom", "inner_shape",
                          "cluster_shape", "workspace_bytes"})
    EXPECT_TRUE(json.contains(key)) << key;
  EXPECT_EQ(json.at("algo_id"), 66);
  EXPECT_EQ(json.at("workspace_bytes"), 1 << 20);
  EXPECT_EQ(label(algo), "algo 66 tile 20 stages 35 splitk 1 swizzle 1 custom 3");
}

std::vector<std::string> names(const std::string& family, const nlohmann::json& overrides, bool quick = false) {
  const Family* f = find_family(family);
  EXPECT_NE(f, nullptr) << family;
  if (!f) return {};
  ExpandOptions options;
  options.quick = quick;
  options.axis_overrides = {{family, overrides}};
  std::vector<std::string> out;
  for (const auto& instance : f->expand(options)) out.push_back(instance.name);
  return out;
}

TEST(GemmFamilies, BatchGemmsUnderAMillisecondIntoTwoMilliseconds) {
  // The GPU's idle between samples lifts a power-capped clock: samples of short GEMMs are long.
  for (const char* name : {"gemm/matmul", "gemm/cache", "gemm/strided"}) {
    const Family* f = find_family(name);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_EQ(f->settings().batch_below_s, 1e-3) << name;
    EXPECT_EQ(f->settings().batch_target_s, 2e-3) << name;
  }
}

TEST(GemmNames, AreTheContractsNames) {
  if (!library_available()) GTEST_SKIP() << "cuBLASLt does not load here: the families expand to one skip";
  EXPECT_EQ(names("gemm/matmul", {{"type", {"bf16"}}, {"m", {8192}}, {"n", {8192}}, {"k", {8192}}, {"layout", {"tn"}},
                                  {"algo", {"best"}}}),
            std::vector<std::string>{"gemm/matmul/type:bf16/m:8192/n:8192/k:8192/layout:tn/algo:best/gpu:gpu0"});
  EXPECT_EQ(names("gemm/strided", {{"type", {"bf16"}}, {"layout", {"tn"}}, {"algo", {"heuristic"}}, {"batch", {32}},
                                   {"m", {2048}}, {"n", {128}}, {"k", {2048}}}),
            std::vector<std::string>{"gemm/strided/type:bf16/batch:32/m:2048/n:128/k:2048/layout:tn/algo:heuristic/gpu:gpu0"});
  EXPECT_EQ(names("gemm/cache", {{"type", {"bf16"}}, {"m", {1}}, {"n", {4096}}, {"k", {4096}}, {"layout", {"tn"}}}),
            (std::vector<std::string>{"gemm/cache/type:bf16/m:1/n:4096/k:4096/layout:tn/l2:hot/gpu:gpu0",
                                      "gemm/cache/type:bf16/m:1/n:4096/k:4096/layout:tn/l2:cold/gpu:gpu0"}));
  EXPECT_EQ(names("gemm/sustained", nlohmann::json::object(), true),
            std::vector<std::string>{"gemm/sustained/type:bf16/m:8192/n:8192/k:8192/layout:tn/seconds:1/gpu:gpu0"});
  // A shape the file does not list is not run, whatever the axes say.
  EXPECT_TRUE(names("gemm/matmul", {{"m", {8192}}, {"n", {8191}}, {"k", {8192}}}).empty());
}

TEST(GemmNames, TheDefaultSweepAndQuickStaySmall) {
  if (!library_available()) GTEST_SKIP() << "cuBLASLt does not load here";
  std::size_t sweep = 0, quick = 0;
  for (const char* family : {"gemm/matmul", "gemm/strided", "gemm/cache", "gemm/sustained"}) {
    sweep += names(family, nlohmann::json::object()).size();
    quick += names(family, nlohmann::json::object(), true).size();
  }
  EXPECT_GT(sweep, 50u);
  EXPECT_LE(sweep, 160u);  // about 0.5 s each on an H200: the sweep's 2 minutes
  EXPECT_EQ(quick, 4u);  // one each
}

}  // namespace
}  // namespace gpubench::gemm
