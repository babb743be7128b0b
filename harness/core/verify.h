#pragma once
// Output checks with a tolerance stated per precision (DESIGN.md, "Measurement rules"): an
// element passes when |got - want| <= atol + rtol * |want|; NaN, in either, never passes. The
// tolerances are a small multiple of each format's unit roundoff (2^-(mantissa bits + 1)), for one
// rounding of the output; a check of a long accumulation (a GEMM over k) scales them with
// tolerance_for(precision).scaled(...). kernels/allclose.cuh runs the same test on the GPU.
#include <cstddef>
#include <string>

namespace gpubench {

enum class Precision { kFp64, kFp32, kTf32, kFp16, kBf16, kFp8 };

struct Tolerance {
  double rtol = 0, atol = 0;
  Tolerance scaled(double factor) const { return {rtol * factor, atol * factor}; }
};

// "fp64", "fp32", "tf32", "fp16", "bf16", "fp8" (either fp8 format: e4m3's wider tolerance).
Precision precision_from_name(const std::string& name);
const char* to_string(Precision precision);
Tolerance tolerance_for(Precision precision);

struct CloseReport {
  std::size_t checked = 0;
  std::size_t bad = 0;           // elements outside the tolerance, NaN included
  double max_rel_error = 0;      // over the finite elements: |got - want| / |want| (|want| > 0)
  std::size_t first_bad = 0;     // index of the first bad element, when bad > 0
  bool ok() const { return bad == 0 && checked > 0; }
  // "3 of 4096 elements outside rtol 1e-05 atol 1e-06 (first at 17), max relative error 0.02"
  std::string describe(const Tolerance& tolerance) const;
};

CloseReport allclose(const double* got, const double* want, std::size_t n, const Tolerance& tolerance);
CloseReport allclose(const float* got, const float* want, std::size_t n, const Tolerance& tolerance);

// Whether one element passes; shared by the host and device checks.
#ifdef __CUDACC__
__host__ __device__
#endif
inline bool element_close(double got, double want, double rtol, double atol) {
  const double diff = got > want ? got - want : want - got;
  const double scale = want < 0 ? -want : want;
  return diff <= atol + rtol * scale;  // false for NaN in either
}

}  // namespace gpubench
