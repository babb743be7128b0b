#pragma once
// What the command-line tests share: a healthy CPU-only benchmark to run, and the checks for bad
// usage (DESIGN.md: one clear line on stderr, nothing on stdout, a documented exit code).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace gpubench::testing::cli {

// The healthy CPU-only selftest benchmark: runs anywhere in a fraction of a second.
inline const std::string kHealthy = "--suite selftest --filter 'cpu_faults/fault:none$'";

// Bad usage: exit 2, nothing on stdout, exactly one line on stderr saying gpubench and `what`.
inline void expect_usage_error(const CommandResult& r, const std::string& what, int code = 2) {
  EXPECT_EQ(r.exit_code, code) << describe(r);
  EXPECT_TRUE(r.out.empty()) << describe(r);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "not one line on stderr: " << describe(r);
  EXPECT_EQ(r.err.rfind("gpubench: ", 0), 0u) << describe(r);
  EXPECT_NE(r.err.find(what), std::string::npos) << "'" << what << "' not said: " << describe(r);
}

inline nlohmann::json parse_json(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON:\n" << text;
  return j;
}

inline std::vector<std::string> entries_of(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names;
}

}  // namespace gpubench::testing::cli
