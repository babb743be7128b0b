// --devices: "all" or a comma-separated list of CUDA ordinals, checked against the GPUs that
// are visible. Anything else is bad usage: UsageError with exit code 2 and one clear line.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/model/exit_codes.h"
#include "harness/cli/run_command.h"

namespace gpubench {
namespace {

using Devices = std::vector<int>;

std::string rejection(const std::string& spec, int visible) {
  try {
    const Devices devices = parse_devices(spec, visible);
    ADD_FAILURE() << "'" << spec << "' accepted with " << visible << " visible (" << devices.size() << " devices)";
  } catch (const UsageError& error) {
    EXPECT_EQ(error.code, 2) << error.message;
    EXPECT_EQ(error.message.rfind("--devices: ", 0), 0u) << error.message;
    EXPECT_EQ(error.message.find('\n'), std::string::npos) << error.message;
    return error.message;
  }
  return "";
}

TEST(ParseDevices, AllIsEveryVisibleGpu) {
  EXPECT_EQ(parse_devices("all", 1), (Devices{0}));
  EXPECT_EQ(parse_devices("all", 4), (Devices{0, 1, 2, 3}));
  EXPECT_EQ(parse_devices("all", 8).size(), 8u);
}

TEST(ParseDevices, ListsKeepTheirOrder) {
  EXPECT_EQ(parse_devices("0", 1), (Devices{0}));
  EXPECT_EQ(parse_devices("0,1", 2), (Devices{0, 1}));
  EXPECT_EQ(parse_devices("3,1", 4), (Devices{3, 1}));
  EXPECT_EQ(parse_devices("7", 8), (Devices{7}));
}

TEST(ParseDevices, IndexPastTheVisibleGpus) {
  const std::string message = rejection("2", 2);
  EXPECT_NE(message.find("no GPU 2"), std::string::npos) << message;
  EXPECT_NE(message.find("2 visible"), std::string::npos) << message;
  EXPECT_NE(rejection("0,8", 8).find("no GPU 8"), std::string::npos);
  EXPECT_NE(rejection("99999999999", 8).find("'99999999999'"), std::string::npos);  // past int
}

TEST(ParseDevices, NegativeIndex) { EXPECT_NE(rejection("-1", 4).find("'-1'"), std::string::npos); }

TEST(ParseDevices, Duplicates) {
  const std::string message = rejection("1,0,1", 4);
  EXPECT_NE(message.find("GPU 1 given twice"), std::string::npos) << message;
}

TEST(ParseDevices, Garbage) {
  for (const std::string spec : {"", "gpu0", "abc", "0x1", "1.0", "1 ", "0;1", "0,,1", ",0", "0-3", "All", "none"}) {
    SCOPED_TRACE("spec '" + spec + "'");
    const std::string message = rejection(spec, 4);
    if (!spec.empty()) EXPECT_NE(message.find("is not a device index"), std::string::npos) << message;
  }
  EXPECT_NE(rejection("", 4).find("no device given"), std::string::npos);
  EXPECT_NE(rejection("abc", 4).find("'abc'"), std::string::npos);
}

TEST(ParseDevices, BadItemIsNamedInAList) {
  const std::string message = rejection("0,x,1", 4);
  EXPECT_NE(message.find("'x'"), std::string::npos) << message;
}

}  // namespace
}  // namespace gpubench
