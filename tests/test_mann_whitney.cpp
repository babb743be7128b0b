// The U test against published reference values (scipy.stats.mannwhitneyu's documentation
// example, a worked example with ties) and its exact distribution against brute-force
// enumeration of every arrangement.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <vector>

#include "harness/analysis/mann_whitney.h"

namespace gpubench {
namespace {

// scipy's documentation example (ages at diagnosis, males vs females):
// mannwhitneyu(males, females, method="exact") -> U = 17.0, p = 0.1111111111111111;
// method="asymptotic" -> p = 0.11134688653314041.
const std::vector<double> kMales = {19, 22, 16, 29, 24};
const std::vector<double> kFemales = {20, 11, 17, 12};

TEST(MannWhitney, ScipyDocumentationExampleExact) {
  const auto r = mann_whitney_u(kMales, kFemales);
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u1, 17.0);
  EXPECT_NEAR(r.p_value, 0.1111111111111111, 1e-12);
}

TEST(MannWhitney, ScipyDocumentationExampleAsymptotic) {
  const auto r = mann_whitney_u(kMales, kFemales, MannWhitneyMethod::kAsymptotic);
  EXPECT_FALSE(r.exact);
  EXPECT_NEAR(r.p_value, 0.11134688653314041, 1e-12);
}

TEST(MannWhitney, TiesUseCorrectedVariance) {
  // X = 5 1 4 3 5, Y = 2 4 7 -1 0 4: midranks for the tied 4s and 5s; with the tie and
  // continuity corrections the two-sided p is 0.518023 (DolphinDB's and R's wilcox.test
  // correct=TRUE worked example).
  const auto r = mann_whitney_u({5, 1, 4, 3, 5}, {2, 4, 7, -1, 0, 4});
  EXPECT_FALSE(r.exact);  // ties: the exact no-ties distribution does not apply
  EXPECT_DOUBLE_EQ(r.u1, 19.0);
  EXPECT_NEAR(r.p_value, 0.518023, 1e-6);
  // Asking for the exact method with ties falls back to the approximation.
  EXPECT_NEAR(mann_whitney_u({5, 1, 4, 3, 5}, {2, 4, 7, -1, 0, 4}, MannWhitneyMethod::kExact).p_value,
              0.518023, 1e-6);
}

TEST(MannWhitney, CompletelySeparatedSamples) {
  // Only 2 of C(6,3) = 20 arrangements are as extreme: p = 0.1.
  EXPECT_NEAR(mann_whitney_u({1, 2, 3}, {4, 5, 6}).p_value, 0.1, 1e-12);
  // 5 vs 5: 2 / C(10,5) = 2 / 252.
  const auto r = mann_whitney_u({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_DOUBLE_EQ(r.u1, 0.0);
  EXPECT_NEAR(r.p_value, 2.0 / 252, 1e-12);
}

TEST(MannWhitney, SymmetricInItsArguments) {
  const std::vector<double> x = {1.1, 2.5, 3.9, 0.4, 7.7, 5.2};
  const std::vector<double> y = {2.2, 8.1, 9.3, 6.6, 4.4};
  const auto xy = mann_whitney_u(x, y), yx = mann_whitney_u(y, x);
  EXPECT_DOUBLE_EQ(xy.p_value, yx.p_value);
  EXPECT_DOUBLE_EQ(xy.u1 + yx.u1, 30.0);
}

TEST(MannWhitney, DegenerateInputsGiveNoEvidence) {
  EXPECT_DOUBLE_EQ(mann_whitney_u({}, {1, 2, 3}).p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u({1, 2}, {}).p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u(std::vector<double>(30, 4.0), std::vector<double>(30, 4.0)).p_value, 1.0);
}

// P(U >= u) by enumerating every choice of which of the n1 + n2 ranks belong to x.
std::map<int, double> brute_force_sf(int n1, int n2) {
  std::map<int, long> count;
  long total = 0;
  const int n = n1 + n2;
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    if (__builtin_popcount(mask) != n1) continue;
    int u = 0, ys_below = 0;
    for (int rank = 0; rank < n; ++rank) {
      if (mask & (1u << rank)) u += ys_below;
      else ++ys_below;
    }
    ++count[u];
    ++total;
  }
  std::map<int, double> sf;
  for (int u = 0; u <= n1 * n2; ++u) {
    long tail = 0;
    for (const auto& [k, c] : count) tail += k >= u ? c : 0;
    sf[u] = static_cast<double>(tail) / total;
  }
  return sf;
}

TEST(MannWhitney, ExactDistributionMatchesEnumeration) {
  for (int n1 = 1; n1 <= 7; ++n1)
    for (int n2 = 1; n2 <= 7; ++n2)
      for (const auto& [u, expected] : brute_force_sf(n1, n2))
        ASSERT_NEAR(mann_whitney_exact_sf(u, n1, n2), expected, 1e-12) << n1 << "x" << n2 << " u=" << u;
}

TEST(MannWhitney, ExactPValueMatchesEnumerationOnData) {
  // Interleaved samples: the two-sided p is twice the enumerated upper tail at max(U1, U2).
  const std::vector<double> x = {3.1, 5.7, 1.2, 9.9, 4.4, 8.0};
  const std::vector<double> y = {2.0, 0.5, 6.1, 1.9, 3.3};
  const auto r = mann_whitney_u(x, y);
  const double u_max = std::max(r.u1, 30 - r.u1);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.p_value, std::min(1.0, 2 * brute_force_sf(6, 5)[static_cast<int>(u_max)]), 1e-12);
}

TEST(MannWhitney, ApproximationAgreesWithExactAtTwentyEach) {
  std::vector<double> x, y;
  for (int i = 0; i < 20; ++i) {
    x.push_back(100 + i * 1.0);
    y.push_back(106.5 + i * 1.0);  // shifted by 6.5 ranks' worth
  }
  const double exact = mann_whitney_u(x, y, MannWhitneyMethod::kExact).p_value;
  const double approx = mann_whitney_u(x, y, MannWhitneyMethod::kAsymptotic).p_value;
  EXPECT_NEAR(exact, approx, 0.01);
  EXPECT_LT(exact, 0.05);
}

TEST(MannWhitney, LargeSamplesDetectSmallShifts) {
  std::vector<double> base, shifted, same;
  for (int i = 0; i < 200; ++i) {
    const double noise = std::sin(i * 12.9898) * 0.5;  // deterministic jitter of +-0.5 %
    base.push_back(100 + noise);
    same.push_back(100 + std::sin(i * 78.233) * 0.5);
    shifted.push_back(99 + noise);  // 1 % lower
  }
  EXPECT_LT(mann_whitney_u(base, shifted).p_value, 1e-10);
  EXPECT_GT(mann_whitney_u(base, same).p_value, 0.05);
}

// Non-finite values are refused before anything is ranked: a NaN made the tie loop spin forever
// (NaN == NaN is false, so the run of ties never advanced).
TEST(MannWhitney, NonFiniteSamplesAreRefused) {
  const std::vector<double> ok = {1, 2, 3, 4, 5};
  for (double bad : {NAN, INFINITY, -INFINITY}) {
    std::vector<double> x = ok;
    x[2] = bad;
    EXPECT_THROW(mann_whitney_u(x, ok), std::invalid_argument);
    EXPECT_THROW(mann_whitney_u(ok, x), std::invalid_argument);
    EXPECT_THROW(mann_whitney_u(x, ok, MannWhitneyMethod::kAsymptotic), std::invalid_argument);
    EXPECT_THROW(mann_whitney_u(std::vector<double>(30, bad), std::vector<double>(30, bad)), std::invalid_argument);
  }
  EXPECT_THROW(mann_whitney_u({NAN}, {}), std::invalid_argument);  // refused even where p = 1 needs no ranks
  EXPECT_THROW(mann_whitney_exact_sf(NAN, 3, 3), std::invalid_argument);
}

TEST(MannWhitney, EmptyAndAllEqualSamplesGiveNoEvidence) {
  EXPECT_DOUBLE_EQ(mann_whitney_u({}, {}).p_value, 1.0);
  for (auto method : {MannWhitneyMethod::kAuto, MannWhitneyMethod::kExact, MannWhitneyMethod::kAsymptotic}) {
    EXPECT_DOUBLE_EQ(mann_whitney_u({7}, {7}, method).p_value, 1.0);
    EXPECT_DOUBLE_EQ(mann_whitney_u(std::vector<double>(5, 2.5), std::vector<double>(7, 2.5), method).p_value, 1.0);
  }
}

TEST(MannWhitney, HugeSamplesEndQuickly) {
  std::vector<double> x, y;
  for (int i = 0; i < 200000; ++i) {
    x.push_back(1e300 * (1 + std::sin(i * 12.9898) * 0.01));
    y.push_back(1e300 * (1 + std::sin(i * 78.233) * 0.01));
  }
  EXPECT_GT(mann_whitney_u(x, y).p_value, 0.001);
  // The exact distribution costs (n1 n2)^2: kExact beyond its limit is the approximation.
  const std::vector<double> a(x.begin(), x.begin() + 500), b(y.begin(), y.begin() + 500);
  const auto r = mann_whitney_u(a, b, MannWhitneyMethod::kExact);
  EXPECT_FALSE(r.exact);
  EXPECT_NEAR(r.p_value, mann_whitney_u(a, b, MannWhitneyMethod::kAsymptotic).p_value, 1e-15);
  const std::vector<double> ties(100000, 3.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u(ties, ties).p_value, 1.0);
}

}  // namespace
}  // namespace gpubench
