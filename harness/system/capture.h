#pragma once
// Context capture: CUDA runtime for what CUDA knows, NVML (when loadable) for links, clocks
// and modes, sysfs for NUMA and as PCIe fallback, dlopen for library versions. Capture never
// throws: what cannot be read (no GPU, no NVML, no cuDNN) stays empty and the reason is recorded.

#include "harness/model/context.h"

namespace gpubench {

class Nvml;
Context capture_context();  // with Nvml::get()
Context capture_context(const Nvml& nvml);

}  // namespace gpubench
