// libFuzzer target: arbitrary bytes as a --config file. Parsing must succeed or throw
// UsageError; families are registered here as the suites would, so that the axis checks run.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_input.h"
#include "harness/core/family.h"
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
  return fuzz::load_or_refuse(data, size, [](const std::string& text) {
    const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (!doc.is_discarded()) parse_config(doc, "fuzz.json");  // not JSON: the file reader's refusal
  });
}
