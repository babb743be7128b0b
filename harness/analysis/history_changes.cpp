#include "harness/analysis/history_changes.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "harness/analysis/compare.h"
#include "harness/model/stats.h"

namespace gpubench {
namespace {

// The best single change of a segment: which model, where, and the share of the segment's
// variance it explains.
struct Fit {
  ChangeKind kind = ChangeKind::kStep;
  std::size_t k = 0;
  double explained = 0;
};

Fit best_fit(const std::vector<double>& t, const std::vector<double>& y, std::size_t m) {
  const std::size_t n = y.size();
  const double total = std::accumulate(y.begin(), y.end(), 0.0), mean = total / static_cast<double>(n);
  double ss = 0;
  for (double v : y) ss += (v - mean) * (v - mean);
  Fit best;
  if (!(ss > 0)) return best;
  // Suffix sums over i >= k of y, t, t^2 and t*y, for both models in O(1) per k.
  std::vector<double> sy(n + 1, 0), st(n + 1, 0), stt(n + 1, 0), sty(n + 1, 0);
  for (std::size_t i = n; i-- > 0;) {
    sy[i] = sy[i + 1] + y[i], st[i] = st[i + 1] + t[i];
    stt[i] = stt[i + 1] + t[i] * t[i], sty[i] = sty[i + 1] + t[i] * y[i];
  }
  const double dn = static_cast<double>(n);
  for (std::size_t k = m; k + m <= n; ++k) {  // a step: two levels
    const double right = static_cast<double>(n - k), left = dn - right;
    const double d = (total - sy[k]) / left - sy[k] / right;
    const double reduction = left * right / dn * d * d;
    if (reduction > best.explained) best = {ChangeKind::kStep, k, reduction};
  }
  for (std::size_t k = 0; k + m <= n; ++k) {  // a drift: flat, then h = t - t_k from k on
    const double c = static_cast<double>(n - k), tk = t[k];
    const double sh = st[k] - c * tk, shh = stt[k] - 2 * tk * st[k] + c * tk * tk, shy = sty[k] - tk * sy[k];
    const double sxx = shh - sh * sh / dn, sxy = shy - sh * total / dn;
    if (!(sxx > 0)) continue;
    const double reduction = sxy * sxy / sxx;
    if (reduction > best.explained) best = {ChangeKind::kDrift, k, reduction};
  }
  best.explained /= ss;
  return best;
}

double permutation_p(const std::vector<double>& t, std::vector<double> y, std::size_t m, double observed,
                     const ChangeOptions& options, std::mt19937& random) {
  int as_large = 0;
  for (int i = 0; i < options.permutations; ++i) {
    std::shuffle(y.begin(), y.end(), random);
    if (best_fit(t, y, m).explained >= observed) ++as_large;
  }
  return (1.0 + as_large) / (1.0 + options.permutations);
}

std::vector<double> slice(const std::vector<double>& v, std::size_t lo, std::size_t hi) {
  return {v.begin() + static_cast<std::ptrdiff_t>(lo), v.begin() + static_cast<std::ptrdiff_t>(hi)};
}

// A change must also stand clear of the nights' own spread: this many times the interquartile
// range of their residuals about it (about 2 standard deviations of normal noise). The tolerance
// file covers the figures it was derived from; this keeps a figure it does not cover, noisier
// than its default threshold, from reading as steps somewhere among thousands of series.
constexpr double kNoiseFactor = 1.5;

struct Search {
  const std::vector<double>& days;
  const std::vector<double>& values;
  bool in_points;
  const std::function<double(double)>& threshold;
  const ChangeOptions& options;
  std::mt19937 random;
  std::vector<ChangePoint> found;
  double slope_ = 0;  // the drift measure() last fitted, per day

  // The change the fit found, measured; false when it is smaller than its threshold.
  bool measure(const Fit& fit, std::size_t lo, std::size_t hi, ChangePoint& out) {
    const std::size_t at = lo + fit.k;
    out.kind = fit.kind, out.index = at, out.to_latest = hi == values.size();
    if (fit.kind == ChangeKind::kStep) {
      out.before = median_of(slice(values, lo, at));
      out.after = median_of(slice(values, at, hi));
      out.change = change_between(out.before, out.after, in_points);
      out.after_fit = out.after;
    } else {
      const std::vector<double> t = slice(days, at, hi), y = slice(values, at, hi);
      const double slope = theil_sen_slope(t, y);
      std::vector<double> intercepts;
      for (std::size_t i = 0; i < t.size(); ++i) intercepts.push_back(y[i] - slope * (t[i] - t.front()));
      const double start = median_of(intercepts);
      out.before = at > lo ? median_of(slice(values, lo, at)) : start;
      out.after = start + slope * (t.back() - t.front());
      slope_ = slope;
      out.span_days = t.back() - t.front();
      out.per_30_days = change_between(out.before, out.before + 30 * slope, in_points);
      out.after_fit = out.before + std::min(out.span_days, 30.0) * slope;
      out.change = change_between(out.before, out.after_fit, in_points);
    }
    return std::isfinite(out.change) && std::fabs(out.change) >= threshold(out.before) &&
           std::fabs(out.after_fit - out.before) >= kNoiseFactor * residual_iqr(fit, lo, hi, out);
  }

  // The spread of the nights about the fitted change: the interquartile range of the residuals.
  double residual_iqr(const Fit& fit, std::size_t lo, std::size_t hi, const ChangePoint& c) const {
    const std::size_t at = lo + fit.k;
    std::vector<double> residuals;
    for (std::size_t i = lo; i < at; ++i) residuals.push_back(values[i] - c.before);
    for (std::size_t i = at; i < hi; ++i)
      residuals.push_back(values[i] - (fit.kind == ChangeKind::kStep ? c.after : c.before + slope_ * (days[i] - days[at])));
    std::sort(residuals.begin(), residuals.end());
    const auto quantile = [&](double q) { return residuals[static_cast<std::size_t>(q * (residuals.size() - 1))]; };
    return quantile(0.75) - quantile(0.25);
  }

  void run(std::size_t lo, std::size_t hi) {
    const std::size_t m = options.min_segment;
    if (hi - lo < 2 * m) return;
    const std::vector<double> t = slice(days, lo, hi), y = slice(values, lo, hi);
    const Fit fit = best_fit(t, y, m);
    ChangePoint change;
    if (fit.explained <= 0 || !measure(fit, lo, hi, change)) return;
    change.p_value = permutation_p(t, y, m, fit.explained, options, random);
    if (change.p_value >= options.alpha) return;
    found.push_back(change);
    run(lo, change.index);
    if (change.kind == ChangeKind::kStep) run(change.index, hi);
  }
};

}  // namespace

double theil_sen_slope(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> slopes;
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = i + 1; j < x.size(); ++j)
      if (x[j] != x[i]) slopes.push_back((y[j] - y[i]) / (x[j] - x[i]));
  return slopes.empty() ? 0 : median_of(std::move(slopes));
}

std::vector<ChangePoint> find_changes(const std::vector<double>& days, const std::vector<double>& values,
                                      bool in_points, const std::function<double(double)>& threshold,
                                      const ChangeOptions& options) {
  Search search{days, values, in_points, threshold, options, std::mt19937(options.seed), {}};
  search.run(0, values.size());
  std::sort(search.found.begin(), search.found.end(),
            [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  return search.found;
}

}  // namespace gpubench
