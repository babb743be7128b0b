// libFuzzer target: arbitrary bytes as a --config file. Parsing must succeed or throw
// UsageError; families are registered here as the suites would, so that the axis checks run.
#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/core/family.h"
#include "harness/report/exit_codes.h"
#include "harness/run/config.h"

namespace {

void register_families() {
  static const bool done = [] {
    gpubench::family("memory/stream").axis_str("op", {"copy", "triad"}).axis_pow2("array_bytes", 20, 32, 2).per_device();
    gpubench::family("transfer/peer").axis_gpus("src").axis_gpus("dst").axis_str("dir", {"uni", "bidir"}).needs_gpus(2);
    gpubench::family("launch/stream").axis_int("arg_bytes", {0, 4096}, {0});
    return true;
  }();
  (void)done;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpubench;
  register_families();
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    parse_config(nlohmann::json::parse(text), "fuzz.json");
  } catch (const nlohmann::json::exception&) {
  } catch (const UsageError&) {
  }
  return 0;
}
