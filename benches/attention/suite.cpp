// The attention suite as the harness knows it without its families: its place among the suites
// and its report charts (fused and unfused attention against sequence length).
#include "harness/model/suite.h"

namespace {

using gpubench::AxisFormat;

const bool declared = gpubench::declare_suite({
    "attention",
    60,
    false,
    {
      {"attention", "Attention forward, fused (cuDNN) and unfused", "attention/forward", "seq",
       "sequence length", "TFLOP/s", {{"tflops", ""}}, {}, {"impl"}, AxisFormat::kNumber, false, false, ""},
    },
    {},
    {},
    {},
});

}  // namespace
