#pragma once
// What a benchmark file includes: families, the state API, CUDA error checks.
#include "harness/cuda_check.h"
#include "harness/family.h"
#include "harness/state.h"
