#pragma once
// What the loader targets share: libFuzzer's bytes as the text of a file, and the one way a
// loader may refuse them (UsageError, exit 2 with a message). Any other exception escapes to
// libFuzzer, which reports it as the bug it is.
#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/model/exit_codes.h"

namespace gpubench::fuzz {

// Calls `load` with the input as text; returns libFuzzer's 0 whether it loaded or was refused.
template <class Load>
int load_or_refuse(const std::uint8_t* data, std::size_t size, Load load) {
  try {
    load(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const UsageError&) {
  }
  return 0;
}

}  // namespace gpubench::fuzz
