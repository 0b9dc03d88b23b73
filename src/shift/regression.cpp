#include "assay/shift/regression.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/core/options.hpp"
#include "assay/core/validate.hpp"
#include "assay/core/warning.hpp"
#include "assay/metrics/ranking.hpp"
#include "assay/metrics/regression.hpp"
#include "shift/sorted.hpp"

namespace assay::shift {
namespace {

void check_inputs(std::span<const double> y_true, std::span<const double> y_pred,
                  std::span<const double> w) {
  check_same_length(y_true.size(), y_pred.size(), "y_true", "y_pred");
  check_not_empty(y_true.size(), "y_true");
  check_finite(y_true, "y_true");
  check_finite(y_pred, "y_pred");
  check_weights(w, y_true.size());
  double total = 0;
  for (const double wi : w) total += wi;
  if (!w.empty() && !(total > 0)) fail("sample_weight sums to 0: need a positive total weight");
}

// The metrics themselves are assay::metrics' (scikit-learn's definitions); inputs were checked.
metrics::RegressionData data(std::span<const double> y, std::span<const double> p,
                             std::span<const double> w) {
  metrics::RegressionData d;
  d.y_true = y;
  d.y_pred = p;
  d.sample_weight = w;
  return d;
}

double mse_raw(std::span<const double> y, std::span<const double> p, std::span<const double> w) {
  return metrics::mean_squared_error(data(y, p, w))[0];
}
// y_true and y_pred divided by a power of two when their squares could overflow (or underflow):
// RMSE = scale * RMSE(scaled), as BLAS nrm2 scales, and the same rounding as unscaled otherwise
// (dividing by a power of two is exact). One 1e200 prediction gives RMSE ~1e200, not inf/NaN.
struct ScaledPair {
  double scale = 1;
  std::vector<double> y, p;  // empty when scale == 1
  std::span<const double> y_view, p_view;

  ScaledPair(std::span<const double> y_true, std::span<const double> y_pred)
      : y_view(y_true), p_view(y_pred) {
    double largest = 0;
    for (std::size_t i = 0; i < y_true.size(); ++i) {
      largest = std::max({largest, std::fabs(y_true[i]), std::fabs(y_pred[i])});
    }
    if (largest == 0 || (largest > 1e-100 && largest < 1e100)) return;
    scale = std::exp2(std::ilogb(largest) + 1);
    for (std::size_t i = 0; i < y_true.size(); ++i) {
      y.push_back(y_true[i] / scale);
      p.push_back(y_pred[i] / scale);
    }
    y_view = y;
    p_view = p;
  }
};

double rmse_raw(const ScaledPair& s, std::span<const double> w) {
  return std::sqrt(mse_raw(s.y_view, s.p_view, w)) * s.scale;
}

double mae_raw(std::span<const double> y, std::span<const double> p, std::span<const double> w) {
  return metrics::mean_absolute_error(data(y, p, w))[0];
}
double mape_raw(std::span<const double> y, std::span<const double> p, std::span<const double> w) {
  return metrics::mean_absolute_percentage_error(data(y, p, w))[0];
}
double r2_raw(std::span<const double> y, std::span<const double> p, std::span<const double> w) {
  return metrics::assemble_score(metrics::r2_parts(data(y, p, w)))[0];  // force_finite
}

}  // namespace

double mean_squared_error(std::span<const double> y_true, std::span<const double> y_pred,
                          std::span<const double> sample_weight) {
  check_inputs(y_true, y_pred, sample_weight);
  return mse_raw(y_true, y_pred, sample_weight);
}

double root_mean_squared_error(std::span<const double> y_true, std::span<const double> y_pred,
                               std::span<const double> sample_weight) {
  check_inputs(y_true, y_pred, sample_weight);
  return rmse_raw(ScaledPair(y_true, y_pred), sample_weight);
}

double mean_absolute_error(std::span<const double> y_true, std::span<const double> y_pred,
                           std::span<const double> sample_weight) {
  check_inputs(y_true, y_pred, sample_weight);
  return mae_raw(y_true, y_pred, sample_weight);
}

double mean_absolute_percentage_error(std::span<const double> y_true,
                                      std::span<const double> y_pred,
                                      std::span<const double> sample_weight) {
  check_inputs(y_true, y_pred, sample_weight);
  return mape_raw(y_true, y_pred, sample_weight);
}

double r2_score(std::span<const double> y_true, std::span<const double> y_pred,
                std::span<const double> sample_weight) {
  check_inputs(y_true, y_pred, sample_weight);
  return r2_raw(y_true, y_pred, sample_weight);
}

RegressionMetrics regression_metrics(std::span<const double> y_true, std::span<const double> y_pred,
                                     std::span<const double> sample_weight,
                                     const RegressionParams& params) {
  check_inputs(y_true, y_pred, sample_weight);
  check_probability("confidence", params.bootstrap.confidence);
  const ScaledPair scaled(y_true, y_pred);
  const std::vector<metrics::WeightedMetric> fns = {
      [&](std::span<const double> w) { return rmse_raw(scaled, w); },
      [&](std::span<const double> w) { return mae_raw(y_true, y_pred, w); },
      [&](std::span<const double> w) { return mape_raw(y_true, y_pred, w); },
      [&](std::span<const double> w) { return r2_raw(y_true, y_pred, w); },
  };
  RegressionMetrics r;
  r.n_samples = y_true.size();
  std::vector<metrics::BootstrapResult> out;
  if (params.bootstrap.n_resamples == 0) {
    for (const auto& f : fns) {
      metrics::BootstrapResult b;
      b.params = params.bootstrap;
      b.estimate = f(sample_weight);
      b.low = b.high = b.standard_error = kNaN;
      out.push_back(std::move(b));
    }
  } else {
    const std::vector<std::string> names = {"RMSE", "MAE", "MAPE", "R2"};
    out = metrics::bootstrap_many(y_true.size(), fns, sample_weight, params.bootstrap, names);
  }
  r.rmse = std::move(out[0]);
  r.mae = std::move(out[1]);
  r.mape = std::move(out[2]);
  r.r2 = std::move(out[3]);
  return r;
}

OodResult ood_detection(std::span<const std::uint8_t> shifted,
                        std::span<const double> uncertainty) {
  check_same_length(shifted.size(), uncertainty.size(), "shifted", "uncertainty");
  check_not_empty(shifted.size(), "shifted");
  OodResult r;
  for (std::size_t i = 0; i < shifted.size(); ++i) {
    if (shifted[i] > 1) fail("shifted must be 0 or 1, found {} at index {}", shifted[i], i);
    if (std::isnan(uncertainty[i])) fail_non_finite("uncertainty", uncertainty[i], i);
    r.n_shifted += shifted[i];
  }
  r.n_in = shifted.size() - r.n_shifted;
  if (r.n_in == 0 || r.n_shifted == 0) {
    warn(fmt::format("OOD detection needs in-domain and shifted samples, found {} and {}: NaN",
                     r.n_in, r.n_shifted));
    r.auroc = r.aupr = r.average_precision = r.fpr_at_95 = kNaN;
    return r;
  }
  const metrics::RankedScores ranked(shifted, uncertainty);
  r.auroc = ranked.roc_auc();
  r.average_precision = ranked.average_precision();
  metrics::ApParams trapezoid;
  trapezoid.method = metrics::ApMethod::trapezoid;
  r.aupr = ranked.average_precision({}, trapezoid);
  const auto points = ranked.operating_points();
  r.fpr_at_95 = kNaN;
  for (std::size_t k = 0; k < points.tp.size(); ++k) {
    if (points.tp[k] / points.total_pos >= 0.95) {
      r.fpr_at_95 = points.fp[k] / points.total_neg;
      break;
    }
  }
  return r;
}

}  // namespace assay::shift
