// Run configuration files (--config): a valid file and every kind of invalid one. Each invalid
// file must give a UsageError with exit code 2 whose one-line message names the file and the
// JSON path of what is wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "harness/run/config.h"
#include "harness/model/exit_codes.h"
#include "harness/core/family.h"
#include "tests/test_support.h"

namespace gpubench {
namespace {

using gpubench::testing::temp_dir;
using gpubench::testing::write_file;
using json = nlohmann::json;

const Family& config_family = family("unittest/config")
                                  .axis_str("op", {"copy", "triad"})
                                  .axis_int("n", {1, 2})
                                  .per_device()
                                  .hidden()
                                  .run([](State&) {});

const std::string kSource = "sweep.json";

// The message of the UsageError that parse_config throws, after checking its code and form.
std::string error_of(const json& config) {
  try {
    parse_config(config, kSource);
  } catch (const UsageError& error) {
    EXPECT_EQ(error.code, 2) << error.message;
    EXPECT_EQ(error.message.rfind(kSource + ": ", 0), 0u) << "does not start with the file: " << error.message;
    EXPECT_EQ(error.message.find('\n'), std::string::npos) << "not one line: " << error.message;
    return error.message;
  }
  ADD_FAILURE() << "accepted: " << config.dump();
  return "";
}

// The message must name the JSON path (as "source: path: ...") and say what is wrong.
void expect_rejected(const json& config, const std::string& path, const std::string& what) {
  const std::string message = error_of(config);
  EXPECT_NE(message.find(kSource + ": " + path + ": "), std::string::npos)
      << "path " << path << " not named in: " << message;
  EXPECT_NE(message.find(what), std::string::npos) << "'" << what << "' not in: " << message;
}

TEST(Config, ValidConfigIsRead) {
  const json config = {
      {"description", "nightly HBM sweep"},
      {"suites", {"memory", "selftest"}},
      {"filter", "triad|dot"},
      {"settings",
       {{"min_time", 0.05}, {"max_noise", 0.25}, {"max_time", 3}, {"min_samples", 20}, {"timeout", 60},
        {"repetitions", 3}}},
      {"families",
       {{"memory/stream", {{"op", {"triad", "dot"}}, {"array_bytes", {1073741824, 4294967296LL}}}},
        {"unittest/config", {{"n", {5}}, {"gpu", {"gpu1"}}}}}}};
  const RunConfig c = parse_config(config, kSource);
  EXPECT_EQ(c.suites, (std::vector<std::string>{"memory", "selftest"}));
  EXPECT_EQ(c.filter, "triad|dot");
  EXPECT_EQ(c.min_time_s, 0.05);
  EXPECT_EQ(c.max_noise_pct, 0.25);
  EXPECT_EQ(c.max_time_s, 3);
  EXPECT_EQ(c.min_samples, 20);
  EXPECT_EQ(c.timeout_s, 60);
  EXPECT_EQ(c.repetitions, 3);
  EXPECT_EQ(c.axis_overrides, config["families"]);
}

TEST(Config, EmptyObjectLeavesEverythingUnset) {
  const RunConfig c = parse_config(json::object(), kSource);
  EXPECT_TRUE(c.suites.empty());
  EXPECT_FALSE(c.filter.has_value());
  EXPECT_FALSE(c.min_time_s.has_value());
  EXPECT_FALSE(c.max_noise_pct.has_value());
  EXPECT_FALSE(c.max_time_s.has_value());
  EXPECT_FALSE(c.timeout_s.has_value());
  EXPECT_FALSE(c.min_samples.has_value());
  EXPECT_FALSE(c.repetitions.has_value());
  EXPECT_TRUE(c.axis_overrides.empty());
}

TEST(Config, OverridesFeedExpansion) {
  const RunConfig c = parse_config({{"families", {{"unittest/config", {{"n", {8, 4}}, {"op", {"triad"}}}}}}}, kSource);
  ExpandOptions options;
  options.axis_overrides = c.axis_overrides;
  const auto instances = config_family.expand(options);
  ASSERT_EQ(instances.size(), 2u);
  EXPECT_EQ(instances[0].name, "unittest/config/op:triad/n:8/gpu:gpu0");
  EXPECT_EQ(instances[1].name, "unittest/config/op:triad/n:4/gpu:gpu0");
}

// A variant the description offers beside the sweep: --config may choose it, nothing else may.
const Family& variant_family = family("unittest/config_variant")
                                   .axis_str("mode", {"default"}, {}, {"variant"})
                                   .hidden()
                                   .run([](State&) {});

TEST(Config, AValueOfferedByConfigIsSelectableButNotSwept) {
  EXPECT_EQ(variant_family.expand(ExpandOptions{}).size(), 1u);
  const RunConfig c = parse_config({{"families", {{"unittest/config_variant", {{"mode", {"variant", "default"}}}}}}},
                                   kSource);
  ExpandOptions options;
  options.axis_overrides = c.axis_overrides;
  const auto instances = variant_family.expand(options);
  ASSERT_EQ(instances.size(), 2u);
  EXPECT_EQ(instances[0].name, "unittest/config_variant/mode:variant");
  EXPECT_NE(error_of({{"families", {{"unittest/config_variant", {{"mode", {"other"}}}}}}}).find("not a value of axis mode"),
            std::string::npos);
}

// A family whose layer axis is computed from the --config file's "axes" documents.
const Family& documented_family = family("unittest/config_documents")
                                      .axis_computed("layer",
                                                     [](const ExpandContext& e) {
                                                       std::vector<std::string> names;
                                                       for (const auto& layer : e.config.value("layers", json::array()))
                                                         names.push_back(layer.get<std::string>());
                                                       return names;
                                                     })
                                      .cpu_only()
                                      .hidden()
                                      .run([](State&) {});

TEST(Config, AxisDocumentsReachComputedAxes) {
  const RunConfig c = parse_config({{"axes", {{"layers", {"conv1", "conv2"}}}}}, kSource);
  ExpandOptions options;
  options.config = c.axis_documents;
  const auto instances = documented_family.expand(options);
  ASSERT_EQ(instances.size(), 2u);
  EXPECT_EQ(instances[1].name, "unittest/config_documents/layer:conv2");
  expect_rejected({{"axes", {"layers"}}}, "/axes", "expected an object");
}

TEST(Config, ComputedAxisOverridesAreCheckedAtExpansion) {
  const RunConfig c = parse_config({{"axes", {{"layers", {"conv1", "conv2"}}}},
                                    {"families", {{"unittest/config_documents", {{"layer", {"conv2"}}}}}}},
                                   kSource);
  ExpandOptions options;
  options.config = c.axis_documents;
  options.axis_overrides = c.axis_overrides;
  const auto instances = documented_family.expand(options);
  ASSERT_EQ(instances.size(), 1u);
  EXPECT_EQ(instances[0].name, "unittest/config_documents/layer:conv2");
  options.axis_overrides = parse_config({{"families", {{"unittest/config_documents", {{"layer", {"conv9"}}}}}}},
                                        kSource)
                               .axis_overrides;
  try {
    documented_family.expand(options);
    FAIL() << "conv9 accepted";
  } catch (const UsageError& error) {
    EXPECT_EQ(error.code, 2);
    EXPECT_NE(error.message.find("'conv9' is not a value of axis layer (conv1, conv2)"), std::string::npos)
        << error.message;
  }
}

TEST(Config, ShippedConfigsAreValid) {
  // Every config in configs/ that is a run config (not a baseline or a datasheet table) loads.
  const std::string root = std::string(GPUBENCH_SOURCE_DIR) + "/configs";
  if (!std::filesystem::exists(root)) GTEST_SKIP() << "no configs/ directory";
  int loaded = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".json") continue;
    const std::string path = entry.path().string();
    if (path.find("/baselines/") != std::string::npos) continue;
    std::ifstream in(path);
    const json j = json::parse(in, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << path;
    // Run configs are the objects whose keys are all config keys.
    bool run_config = j.is_object();
    for (const auto& [key, value] : j.items())
      run_config = run_config && (key == "description" || key == "suites" || key == "filter" ||
                                  key == "settings" || key == "families" || key == "axes");
    if (!run_config || !(j.contains("suites") || j.contains("families") || j.contains("settings"))) continue;
    EXPECT_NO_THROW(load_config(path)) << path;
    ++loaded;
  }
  RecordProperty("configs_loaded", loaded);
}

TEST(Config, NotAnObject) {
  expect_rejected(json::array({"memory"}), "/", "expected a JSON object");
  expect_rejected(json("memory"), "/", "expected a JSON object");
}

TEST(Config, UnknownKey) {
  expect_rejected({{"suite", {"memory"}}}, "/suite", "unknown key");
  expect_rejected({{"suites", {"memory"}}, {"quick", true}}, "/quick", "unknown key");
}

TEST(Config, UnknownSuite) {
  expect_rejected({{"suites", {"memory", "hbm"}}}, "/suites/1", "unknown suite 'hbm'");
}

TEST(Config, UnknownFamily) {
  expect_rejected({{"families", {{"memory/streams", {{"op", {"triad"}}}}}}}, "/families/memory/streams",
                  "unknown family 'memory/streams'");
}

TEST(Config, UnknownAxis) {
  const std::string message = error_of({{"families", {{"memory/stream", {{"bytes", {1024}}}}}}});
  EXPECT_NE(message.find("/families/memory/stream/bytes: "), std::string::npos) << message;
  EXPECT_NE(message.find("no axis 'bytes'"), std::string::npos) << message;
  EXPECT_NE(message.find("array_bytes"), std::string::npos) << "known axes not listed: " << message;
  // "gpu" is an axis only of per-device families.
  expect_rejected({{"families", {{"selftest/cpu_faults", {{"gpu", {"gpu0"}}}}}}}, "/families/selftest/cpu_faults/gpu",
                  "no axis 'gpu'");
}

TEST(Config, UnknownSetting) {
  expect_rejected({{"settings", {{"min_tme", 1}}}}, "/settings/min_tme", "unknown setting");
}

TEST(Config, StringValueNotDeclaredByTheAxis) {
  expect_rejected({{"families", {{"memory/stream", {{"op", {"triad", "triads"}}}}}}},
                  "/families/memory/stream/op/1", "'triads' is not a value of axis op");
}

TEST(Config, WrongTypes) {
  expect_rejected({{"suites", "memory"}}, "/suites", "expected an array");
  expect_rejected({{"suites", {1}}}, "/suites/0", "expected a string");
  expect_rejected({{"filter", json::array({"triad"})}}, "/filter", "expected a regular expression string");
  expect_rejected({{"settings", {1, 2}}}, "/settings", "expected an object");
  expect_rejected({{"settings", {{"min_time", "0.5"}}}}, "/settings/min_time", "expected a positive number");
  expect_rejected({{"settings", {{"max_noise", -1}}}}, "/settings/max_noise", "expected a positive number");
  expect_rejected({{"settings", {{"timeout", true}}}}, "/settings/timeout", "expected a positive number");
  expect_rejected({{"settings", {{"max_time", nullptr}}}}, "/settings/max_time", "expected a positive number");
  expect_rejected({{"settings", {{"min_samples", 2.5}}}}, "/settings/min_samples", "expected a positive integer");
  expect_rejected({{"settings", {{"repetitions", 0}}}}, "/settings/repetitions", "expected a positive integer");
  expect_rejected({{"settings", {{"repetitions", 5000000000LL}}}}, "/settings/repetitions",
                  "expected a positive integer");
  expect_rejected({{"families", {"memory/stream"}}}, "/families", "expected an object");
  expect_rejected({{"families", {{"memory/stream", {"op"}}}}}, "/families/memory/stream", "expected an object");
  expect_rejected({{"families", {{"memory/stream", {{"op", "triad"}}}}}}, "/families/memory/stream/op",
                  "expected a non-empty array");
  expect_rejected({{"families", {{"memory/stream", {{"op", json::array()}}}}}}, "/families/memory/stream/op",
                  "expected a non-empty array");
  expect_rejected({{"families", {{"memory/stream", {{"op", {1}}}}}}}, "/families/memory/stream/op/0",
                  "expected a string");
  expect_rejected({{"families", {{"memory/stream", {{"array_bytes", {"1GB"}}}}}}},
                  "/families/memory/stream/array_bytes/0", "expected a non-negative integer");
  expect_rejected({{"families", {{"memory/stream", {{"array_bytes", {1024, -1}}}}}}},
                  "/families/memory/stream/array_bytes/1", "expected a non-negative integer");
  expect_rejected({{"families", {{"memory/stream", {{"array_bytes", {1.5e9}}}}}}},
                  "/families/memory/stream/array_bytes/0", "expected a non-negative integer");
  expect_rejected({{"families", {{"memory/stream", {{"gpu", {0}}}}}}}, "/families/memory/stream/gpu/0",
                  "expected a string");
}

// A per-device family's gpu axis names GPUs as gpuN. Anything else must be a usage error here;
// otherwise Params::gpu() throws std::invalid_argument during expansion and the process dies.
TEST(Config, GpuAxisValuesMustNameGpus) {
  expect_rejected({{"families", {{"memory/stream", {{"gpu", {"gpu0", "banana"}}}}}}},
                  "/families/memory/stream/gpu/1", "banana");
  expect_rejected({{"families", {{"memory/stream", {{"gpu", {"gpu"}}}}}}}, "/families/memory/stream/gpu/0", "gpu");
  expect_rejected({{"families", {{"memory/stream", {{"gpu", {"gpu-1"}}}}}}}, "/families/memory/stream/gpu/0",
                  "gpu-1");
}

TEST(ConfigFile, LoadsAValidFile) {
  const std::string path = temp_dir() + "/sweep.json";
  write_file(path, R"({ "suites": ["memory"], "settings": { "repetitions": 2 } })");
  const RunConfig c = load_config(path);
  EXPECT_EQ(c.suites, std::vector<std::string>{"memory"});
  EXPECT_EQ(c.repetitions, 2);
}

TEST(ConfigFile, ErrorsNameTheFile) {
  const std::string path = temp_dir() + "/sweep.json";
  write_file(path, R"({ "suites": ["memory"], "settings": { "repetitions": -2 } })");
  try {
    load_config(path);
    FAIL() << "accepted";
  } catch (const UsageError& error) {
    EXPECT_EQ(error.code, 2);
    EXPECT_EQ(error.message.rfind(path + ": /settings/repetitions: ", 0), 0u) << error.message;
  }
}

std::string load_error(const std::string& path) {
  try {
    load_config(path);
  } catch (const UsageError& error) {
    EXPECT_EQ(error.code, 2) << error.message;
    EXPECT_EQ(error.message.find('\n'), std::string::npos) << error.message;
    return error.message;
  }
  ADD_FAILURE() << path << " accepted";
  return "";
}

TEST(ConfigFile, MalformedJsonGivesTheBytePosition) {
  const std::string path = temp_dir() + "/broken.json";
  write_file(path, R"({"suites": ["memory",]})");  // ']' is byte 22
  const std::string message = load_error(path);
  EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
  EXPECT_NE(message.find("byte 22"), std::string::npos) << message;
  EXPECT_NE(message.find("malformed JSON"), std::string::npos) << message;
}

TEST(ConfigFile, EmptyAndTruncatedFilesAreMalformed) {
  const std::string dir = temp_dir();
  write_file(dir + "/empty.json", "");
  EXPECT_NE(load_error(dir + "/empty.json").find("malformed JSON"), std::string::npos);
  write_file(dir + "/truncated.json", R"({"suites": ["mem)");
  EXPECT_NE(load_error(dir + "/truncated.json").find("malformed JSON"), std::string::npos);
  write_file(dir + "/trailing.json", "{} {}");
  EXPECT_NE(load_error(dir + "/trailing.json").find("byte 4"), std::string::npos);
}

TEST(ConfigFile, MissingFile) {
  const std::string path = temp_dir() + "/does-not-exist.json";
  const std::string message = load_error(path);
  EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
  EXPECT_NE(message.find("cannot open"), std::string::npos) << message;
}

TEST(ConfigFile, DirectoryIsNotAConfig) {
  const std::string dir = temp_dir();
  const std::string message = load_error(dir);
  EXPECT_EQ(message.rfind(dir + ": ", 0), 0u) << message;
}

}  // namespace
}  // namespace gpubench
