#include "harness/analysis/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace gpubench {
namespace {

void refuse_non_finite(const std::vector<double>& sample, const char* which) {
  for (std::size_t i = 0; i < sample.size(); ++i)
    if (!std::isfinite(sample[i]))
      throw std::invalid_argument(std::string("mann_whitney_u: value ") + std::to_string(i) + " of sample " +
                                  which + " is not finite (" + std::to_string(sample[i]) + ")");
}

}  // namespace

double mann_whitney_exact_sf(double u, std::size_t n1, std::size_t n2) {
  if (std::isnan(u)) throw std::invalid_argument("mann_whitney_exact_sf: u is NaN");
  // counts(a, b)[k]: arrangements of a x-values and b y-values with U = k. The largest value
  // is either an x (above all b y-values: adds b) or a y (adds nothing), which gives
  // counts(a, b) = shift(counts(a-1, b), b) + counts(a, b-1). Two rows of a suffice; doubles
  // hold C(40, 20) exactly, and for larger samples the ratio below is still accurate.
  std::vector<std::vector<double>> previous(n2 + 1, std::vector<double>(1, 1.0)), current(n2 + 1);
  for (std::size_t a = 1; a <= n1; ++a) {
    current[0].assign(1, 1.0);
    for (std::size_t b = 1; b <= n2; ++b) {
      auto& c = current[b];
      c.assign(a * b + 1, 0.0);
      const auto& with_x = previous[b];
      const auto& with_y = current[b - 1];
      for (std::size_t k = 0; k < with_x.size(); ++k) c[k + b] += with_x[k];
      for (std::size_t k = 0; k < with_y.size(); ++k) c[k] += with_y[k];
    }
    std::swap(previous, current);
  }
  const auto& dist = previous[n2];
  const double total = std::accumulate(dist.begin(), dist.end(), 0.0);
  double tail = 0;
  for (std::size_t k = 0; k < dist.size(); ++k)
    if (static_cast<double>(k) >= u - 1e-9) tail += dist[k];
  return tail / total;
}

MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y,
                                 MannWhitneyMethod method) {
  refuse_non_finite(x, "x");
  refuse_non_finite(y, "y");
  MannWhitneyResult result;
  const std::size_t n1 = x.size(), n2 = y.size(), n = n1 + n2;
  if (n1 == 0 || n2 == 0) return result;

  // Midranks of the pooled sample; the tie term sum(t^3 - t) corrects the variance.
  std::vector<std::pair<double, bool>> pooled;  // value, from x
  pooled.reserve(n);
  for (double v : x) pooled.emplace_back(v, true);
  for (double v : y) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  double rank_sum_x = 0, tie_term = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double midrank = 0.5 * static_cast<double>(i + 1 + j);  // mean of ranks i+1..j
    for (std::size_t k = i; k < j; ++k)
      if (pooled[k].second) rank_sum_x += midrank;
    tie_term += t * t * t - t;
    i = j;
  }
  const double dn1 = static_cast<double>(n1), dn2 = static_cast<double>(n2);
  result.u1 = rank_sum_x - dn1 * (dn1 + 1) / 2;
  const double u_max = std::max(result.u1, dn1 * dn2 - result.u1);

  const bool small = n1 <= kMannWhitneyExactMax && n2 <= kMannWhitneyExactMax;
  const bool affordable = dn1 * dn2 <= static_cast<double>(kMannWhitneyExactCellsMax);
  if (tie_term == 0 && ((method == MannWhitneyMethod::kExact && affordable) ||
                        (method == MannWhitneyMethod::kAuto && small))) {
    result.exact = true;
    result.p_value = std::min(1.0, 2 * mann_whitney_exact_sf(u_max, n1, n2));
    return result;
  }
  const double dn = static_cast<double>(n);
  const double mean = dn1 * dn2 / 2;
  const double variance = dn1 * dn2 / 12 * ((dn + 1) - tie_term / (dn * (dn - 1)));
  if (variance <= 0) return result;  // every value equal: no evidence of a difference
  const double z = (u_max - mean - 0.5) / std::sqrt(variance);
  result.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));  // 2 * upper normal tail
  return result;
}

}  // namespace gpubench
