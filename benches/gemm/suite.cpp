// The gemm suite as the harness knows it without its families: its place among the suites
// and its report charts (TFLOP/s per precision beside the datasheet peak; the sustained GEMM's
// SM clock and board power over time).
#include "harness/model/suite.h"

namespace {

using gpubench::AxisFormat;
using gpubench::TraceLimit;

const bool declared = gpubench::declare_suite({
    "gemm",
    40,
    false,
    {},
    {
      {"gemm-precision", "GEMM TFLOP/s per precision (best shape) and datasheet peak", "gemm/matmul", "type",
       "", "tflops", "precision", "TFLOP/s", {}},
    },
    {
      {"gemm-sustained-clock", "Sustained GEMM: SM clock over time", "gemm/sustained", "sm_clock_mhz", "SM clock (MHz)",
       "max SM clock", "MHz", TraceLimit::kMaxSmClock},
      {"gemm-sustained-power", "Sustained GEMM: board power over time", "gemm/sustained", "power_w", "power (W)",
       "power limit", "W", TraceLimit::kPowerLimit},
    },
    {},
});

}  // namespace
