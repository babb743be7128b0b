#include "harness/core/verify.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace gpubench {
namespace {

template <typename T>
CloseReport compare(const T* got, const T* want, std::size_t n, const Tolerance& tolerance) {
  CloseReport report;
  report.checked = n;
  for (std::size_t i = 0; i < n; ++i) {
    const double g = got[i], w = want[i];
    if (!element_close(g, w, tolerance.rtol, tolerance.atol)) {
      if (report.bad == 0) report.first_bad = i;
      ++report.bad;
    }
    if (std::isfinite(g) && std::isfinite(w) && w != 0)
      report.max_rel_error = std::max(report.max_rel_error, std::fabs(g - w) / std::fabs(w));
  }
  return report;
}

}  // namespace

Precision precision_from_name(const std::string& name) {
  if (name == "fp64") return Precision::kFp64;
  if (name == "fp32") return Precision::kFp32;
  if (name == "tf32") return Precision::kTf32;
  if (name == "fp16") return Precision::kFp16;
  if (name == "bf16") return Precision::kBf16;
  if (name == "fp8" || name == "fp8_e4m3" || name == "fp8_e5m2") return Precision::kFp8;
  throw std::invalid_argument("unknown precision '" + name + "' (fp64, fp32, tf32, fp16, bf16, fp8)");
}

const char* to_string(Precision precision) {
  switch (precision) {
    case Precision::kFp64: return "fp64";
    case Precision::kFp32: return "fp32";
    case Precision::kTf32: return "tf32";
    case Precision::kFp16: return "fp16";
    case Precision::kBf16: return "bf16";
    case Precision::kFp8: return "fp8";
  }
  return "?";
}

Tolerance tolerance_for(Precision precision) {
  switch (precision) {
    case Precision::kFp64: return {1e-12, 1e-14};  // 52 mantissa bits
    case Precision::kFp32: return {1e-5, 1e-7};    // 23 bits: 6e-8 per rounding
    case Precision::kTf32: return {2e-3, 1e-5};    // 10 bits: 4.9e-4
    case Precision::kFp16: return {2e-3, 1e-5};    // 10 bits
    case Precision::kBf16: return {1.6e-2, 1e-4};  // 7 bits: 3.9e-3
    case Precision::kFp8: return {1.25e-1, 1e-3};  // e4m3, 3 bits: 6.25e-2
  }
  throw std::invalid_argument("unknown precision");
}

std::string CloseReport::describe(const Tolerance& tolerance) const {
  char text[256];
  if (bad == 0) {
    std::snprintf(text, sizeof text, "%zu elements within rtol %g atol %g, max relative error %.3g", checked,
                  tolerance.rtol, tolerance.atol, max_rel_error);
  } else {
    std::snprintf(text, sizeof text,
                  "%zu of %zu elements outside rtol %g atol %g (first at %zu), max relative error %.3g", bad,
                  checked, tolerance.rtol, tolerance.atol, first_bad, max_rel_error);
  }
  return text;
}

CloseReport allclose(const double* got, const double* want, std::size_t n, const Tolerance& tolerance) {
  return compare(got, want, n, tolerance);
}

CloseReport allclose(const float* got, const float* want, std::size_t n, const Tolerance& tolerance) {
  return compare(got, want, n, tolerance);
}

}  // namespace gpubench
