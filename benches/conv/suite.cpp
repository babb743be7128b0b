// The conv suite as the harness knows it without its families: its place among the suites
// and its report charts (the network's TFLOP/s per precision beside the datasheet peak).
#include "harness/model/suite.h"

namespace {

using gpubench::AxisFormat;

const bool declared = gpubench::declare_suite({
    "conv",
    50,
    false,
    {},
    {
      {"conv-network", "ResNet-50 convolutions, TFLOP/s per precision and datasheet peak", "conv/network",
       "type", "pass", "tflops", "precision", "TFLOP/s", {}},
    },
    {},
    {},
});

}  // namespace
