// The selftest suite: families that misbehave on purpose, run only when asked for by name.
#include "harness/model/suite.h"

namespace {

const bool declared = gpubench::declare_suite({"selftest", 90, true, {}, {}, {}, {}});

}  // namespace
