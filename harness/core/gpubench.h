#pragma once
// What a benchmark file includes: families, the state API, CUDA error checks.
#include "harness/core/cuda_check.h"
#include "harness/core/family.h"
#include "harness/core/state.h"
