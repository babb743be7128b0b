// The private MPS control daemon of scenarios/many_processes against a stand-in control program
// (tests/fakes/nvidia-cuda-mps-control): started, asked, stopped and cleaned up; a daemon that
// dies at once, or that writes to the stdout it was started with, is caught.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "benches/scenarios/mps_daemon.h"
#include "test_support.h"

namespace {

using namespace gpubench;

class MpsDaemonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_path_ = std::getenv("PATH");
    const std::string fakes = std::string(GPUBENCH_SOURCE_DIR) + "/tests/fakes";
    setenv("PATH", (fakes + ":" + saved_path_).c_str(), 1);
  }
  void TearDown() override {
    setenv("PATH", saved_path_.c_str(), 1);
    unsetenv("FAKE_MPS_MODE");
  }
  std::string saved_path_;
};

TEST_F(MpsDaemonTest, StartsAnswersStopsAndLeavesNothing) {
  std::string pipe;
  {
    scenarios::PrivateMpsDaemon daemon;
    pipe = daemon.pipe_directory();
    EXPECT_TRUE(scenarios::mps_daemon_listens(pipe));
    EXPECT_EQ(daemon.client_environment().at("CUDA_MPS_PIPE_DIRECTORY"), pipe);
    EXPECT_EQ(scenarios::mps_server_list(pipe), std::vector<std::string>{"4242"});
    EXPECT_NE(daemon.log_tail().find("control daemon started"), std::string::npos);
    EXPECT_TRUE(daemon.stop());
    EXPECT_FALSE(scenarios::mps_daemon_listens(pipe));
  }
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(pipe).parent_path()));
}

TEST_F(MpsDaemonTest, ADaemonOnASocketThatIsNotAStreamIsFoundAndStopped) {
  setenv("FAKE_MPS_MODE", "seqpacket", 1);
  scenarios::PrivateMpsDaemon daemon;
  EXPECT_TRUE(scenarios::mps_daemon_listens(daemon.pipe_directory()));
  EXPECT_EQ(scenarios::mps_server_list(daemon.pipe_directory()), std::vector<std::string>{"4242"});
  EXPECT_TRUE(daemon.stop());
}

TEST_F(MpsDaemonTest, ADaemonThatDiesAtOnceDidNotStartAndSaysWhatItsLogHolds) {
  setenv("FAKE_MPS_MODE", "dies", 1);
  try {
    scenarios::PrivateMpsDaemon daemon;
    FAIL() << "a daemon that died was taken as started";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("did not start"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("control daemon started"), std::string::npos) << error.what();
  }
}

TEST_F(MpsDaemonTest, ADaemonWritingToItsStdoutOutlivesTheProgramThatStartedIt) {
  setenv("FAKE_MPS_MODE", "talks", 1);
  scenarios::PrivateMpsDaemon daemon;
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // past the fake's first word
  EXPECT_TRUE(scenarios::mps_daemon_listens(daemon.pipe_directory()));
  EXPECT_TRUE(daemon.stop());
}

TEST_F(MpsDaemonTest, ASocketFileWithNobodyListeningIsNoDaemon) {
  const std::string dir = gpubench::testing::temp_dir();
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string path = dir + "/control";
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_EQ(bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  close(fd);  // never listened: the file stays, as a dead daemon's does
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_FALSE(scenarios::mps_daemon_listens(dir));
  EXPECT_TRUE(scenarios::mps_server_list(dir).empty());
}

}  // namespace
