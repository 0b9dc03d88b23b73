// cv.glmnet's internal cross-validation (see glmnet_detail.hpp): each fold's own path, its
// held-out deviance at the full path's λ values, and the λ rules (lambda.min, lambda.1se).
#include <algorithm>
#include <cmath>
#include <exception>

#include <Eigen/Dense>

#include "assay/core/thread_pool.hpp"
#include "assay/core/warning.hpp"
#include "learners/glmnet_detail.hpp"

namespace assay::learners {
namespace {

using namespace glmnet_detail;

// One internal fold's fit on the original scale: its own generated path (cv.glmnet fits each
// fold without the full path's λ), or, when its train rows hold one class, that class.
struct FoldFit {
  int constant_class = -1;
  std::string warning;  // the path's (StdPath::warning)
  std::uint64_t streamed_bytes = 0;
  std::vector<int> classes;
  std::size_t k = 1;
  std::vector<double> lambdas;
  Eigen::MatrixXd coef;  // p x (k·L): column l·k + c = class c's coefficients at λ_l
  Eigen::VectorXd icpt;  // k·L
};

FoldFit fit_fold(const Dataset& data, std::span<const std::uint32_t> train,
                 const GlmnetParams& params) {
  FoldFit fit;
  Design d;
  try {
    d = make_design(data, train);
  } catch (const LearnerFailure&) {
    for (std::uint32_t i : train) {
      if (data.weights.empty() || data.weights[i] > 0) {
        fit.constant_class = data.y_class[i];
        break;
      }
    }
    if (fit.constant_class < 0) fit.constant_class = 0;  // total weight 0: any class
    return fit;
  }
  StdPath sp = fit_std_path(d, params, {});
  const std::size_t k = sp.k, L = sp.lambdas.size(), p = d.p;
  d.x = {};  // the copy is no longer needed; free it before the next fit on this worker
  fit.warning = std::move(sp.warning);
  fit.streamed_bytes = sp.streamed_bytes;
  fit.classes = d.classes;
  fit.k = k;
  fit.lambdas = sp.lambdas;
  fit.coef.resize(static_cast<Eigen::Index>(p), static_cast<Eigen::Index>(k * L));
  fit.icpt.resize(static_cast<Eigen::Index>(k * L));
  std::vector<double> a0(k), beta(k * p);
  for (std::size_t l = 0; l < L; ++l) {
    original_scale(d, sp, l, a0.data(), beta.data());
    for (std::size_t c = 0; c < k; ++c) {
      const auto col = static_cast<Eigen::Index>(l * k + c);
      fit.icpt(col) = a0[c];
      for (std::size_t j = 0; j < p; ++j)
        fit.coef(static_cast<Eigen::Index>(j), col) = beta[c * p + j];
    }
  }
  return fit;
}

// Linear predictors of the test rows at each of the fold's columns (m x k·L, column-major): the
// intercept, then the nonzero coefficients' terms in feature order, each row's sum on its own.
// A fixed order, so that the bits do not depend on the CPU: a BLAS product's do (OpenBLAS picks
// its kernel, and with it the order of each sum, by the CPU it runs on).
Eigen::MatrixXd fold_links(const Dataset& data, std::span<const std::uint32_t> test,
                           const FoldFit& fit) {
  const std::size_t m = test.size(), p = data.n_features;
  const auto columns = static_cast<std::size_t>(fit.coef.cols());
  std::vector<double> xt(m * p);  // the test rows, feature-major
  for (std::size_t t = 0; t < m; ++t)
    for (std::size_t j = 0; j < p; ++j) xt[j * m + t] = data.x[test[t] * p + j];
  Eigen::MatrixXd eta(static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(columns));
  for (std::size_t col = 0; col < columns; ++col) {
    double* out = eta.data() + col * m;
    std::fill(out, out + m, fit.icpt(static_cast<Eigen::Index>(col)));
    ScaledColumnSum sum(out, m);
    for (std::size_t j = 0; j < p; ++j)
      sum.add(xt.data() + j * m,
              fit.coef(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(col)));
    sum.finish();
  }
  return eta;
}

// Held-out deviance of one fold at each master λ (weighted mean of −2·log p(y) over `test`).
// Predictions interpolate the fold's coefficients linearly in λ at the master values, clamped
// to the fold path's ends (cv.glmnet's default alignment = "lambda", glmnet's lambda.interp).
std::vector<double> fold_deviance(const Dataset& data, const FoldFit& fit,
                                  std::span<const std::uint32_t> test,
                                  std::span<const double> lambdas) {
  const std::size_t L = lambdas.size(), nc = data.n_classes();
  const std::size_t m = test.size();
  std::vector<double> row_weight(m);
  double total_weight = 0;
  for (std::size_t t = 0; t < m; ++t) {
    row_weight[t] = data.weights.empty() ? 1.0 : data.weights[test[t]];
    total_weight += row_weight[t];
  }
  std::vector<double> out(L, 0.0);
  std::vector<double> prob(nc, 0.0);
  auto add = [&](std::size_t t, std::size_t l) {
    const double py = prob[static_cast<std::size_t>(data.y_class[test[t]])];
    out[l] += row_weight[t] * -2 * std::log(std::min(std::max(py, kCvProbMin), 1 - kCvProbMin));
  };
  if (fit.constant_class >= 0) {
    prob[static_cast<std::size_t>(fit.constant_class)] = 1;
    for (std::size_t t = 0; t < m; ++t)
      for (std::size_t l = 0; l < L; ++l) add(t, l);
  } else {
    const std::size_t k = fit.k, fitted_l = fit.lambdas.size();
    const Eigen::MatrixXd eta = fold_links(data, test, fit);
    std::vector<std::size_t> left(L), right(L);
    std::vector<double> frac(L, 1.0);
    const std::vector<double>& fl = fit.lambdas;
    for (std::size_t l = 0; l < L; ++l) {
      const double target = lambdas[l];
      if (fitted_l == 1 || target >= fl.front()) {
        left[l] = right[l] = 0;
      } else if (target <= fl.back()) {
        left[l] = right[l] = fitted_l - 1;
      } else {
        std::size_t j = 0;
        while (fl[j + 1] >= target) ++j;
        left[l] = j;
        right[l] = fl[j] == target ? j : j + 1;
        if (left[l] != right[l]) frac[l] = (target - fl[j + 1]) / (fl[j] - fl[j + 1]);
      }
    }
    std::vector<double> e(k);
    for (std::size_t t = 0; t < m; ++t) {
      const auto row = static_cast<Eigen::Index>(t);
      for (std::size_t l = 0; l < L; ++l) {
        for (std::size_t c = 0; c < k; ++c) {
          e[c] = frac[l] * eta(row, static_cast<Eigen::Index>(left[l] * k + c)) +
                 (1 - frac[l]) * eta(row, static_cast<Eigen::Index>(right[l] * k + c));
        }
        std::fill(prob.begin(), prob.end(), 0.0);
        probabilities(fit.classes, k, e.data(), prob.data());
        add(t, l);
      }
    }
  }
  for (double& x : out) x = total_weight > 0 ? x / total_weight : NAN;
  return out;
}

}  // namespace

GlmnetCv glmnet_cv(const Dataset& data, std::span<const std::uint32_t> rows,
                   const GlmnetParams& params, std::uint64_t seed, int threads,
                   std::span<const int> fold_ids) {
  GlmnetCv cv;
  if (data.task != TaskKind::classification) {
    fail("glmnet supports classification only, found a regression data set {}",
         quote_found(data.name));
  }
  if (fold_ids.empty()) {
    cv.fold_ids = internal_fold_ids(rows.size(), params.internal_folds, seed);
  } else {
    if (fold_ids.size() != rows.size()) {
      fail("glmnet: expected one fold id per train row ({}), found {}", rows.size(),
           fold_ids.size());
    }
    cv.fold_ids.assign(fold_ids.begin(), fold_ids.end());
  }
  int n_folds = 0;
  for (int f : cv.fold_ids) {
    if (f < 0) fail("glmnet: fold ids must be >= 0, found {}", f);
    n_folds = std::max(n_folds, f + 1);
  }
  if (n_folds < 2) fail("glmnet: internal CV needs at least 2 folds, found {}", n_folds);
  const auto folds = static_cast<std::size_t>(n_folds);
  std::vector<std::vector<std::uint32_t>> test_rows(folds);
  for (std::size_t r = 0; r < rows.size(); ++r)
    test_rows[static_cast<std::size_t>(cv.fold_ids[r])].push_back(rows[r]);
  // The full path and the fold paths do not depend on each other (each fold generates its own
  // λ values): all K + 1 fits run in parallel, the biggest (task 0, the full path) first.
  // Errors are kept per task and the first in task order is rethrown, so which error a caller
  // sees does not depend on timing.
  std::vector<FoldFit> fits(folds);
  std::vector<std::exception_ptr> errors(folds + 1);
  std::string full_path_warning;
  parallel_for(
      folds + 1,
      [&](std::size_t task) {
        try {
          if (task == 0) {
            cv.path = path_on_rows(data, rows, params, {}, full_path_warning);
            return;
          }
          const std::size_t f = task - 1;
          std::vector<std::uint32_t> train;
          train.reserve(rows.size() - test_rows[f].size());
          for (std::size_t r = 0; r < rows.size(); ++r)
            if (static_cast<std::size_t>(cv.fold_ids[r]) != f) train.push_back(rows[r]);
          fits[f] = fit_fold(data, train, params);
        } catch (...) {
          errors[task] = std::current_exception();
        }
      },
      resolve_threads(threads, folds + 1));
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
  // Warnings in task order (the full path, then the folds), whatever order the fits ended in.
  if (!full_path_warning.empty()) warn(full_path_warning);
  for (const FoldFit& fit : fits)
    if (!fit.warning.empty()) warn(fit.warning);
  cv.streamed_bytes = cv.path.streamed_bytes;
  for (const FoldFit& fit : fits) cv.streamed_bytes += fit.streamed_bytes;
  const std::size_t L = cv.path.lambdas.size();
  std::vector<std::vector<double>> fold_dev(folds);
  std::vector<double> fold_weight(folds, 0.0);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    fold_weight[static_cast<std::size_t>(cv.fold_ids[r])] +=
        data.weights.empty() ? 1.0 : data.weights[rows[r]];
  }
  parallel_for(
      folds,
      [&](std::size_t f) {
        fold_dev[f] = fold_deviance(data, fits[f], test_rows[f], cv.path.lambdas);
      },
      resolve_threads(threads, folds));
  // cv.glmnet's cvstats: fold means weighted by fold weight; folds of weight 0 are skipped.
  cv.cv_mean.assign(L, 0.0);
  cv.cv_sd.assign(L, 0.0);
  for (std::size_t l = 0; l < L; ++l) {
    double wsum = 0, m = 0;
    std::size_t used = 0;
    for (std::size_t f = 0; f < fold_dev.size(); ++f) {
      if (!(fold_weight[f] > 0)) continue;
      wsum += fold_weight[f];
      m += fold_weight[f] * fold_dev[f][l];
      ++used;
    }
    m /= wsum;
    double ss = 0;
    for (std::size_t f = 0; f < fold_dev.size(); ++f) {
      if (!(fold_weight[f] > 0)) continue;
      ss += fold_weight[f] * (fold_dev[f][l] - m) * (fold_dev[f][l] - m);
    }
    cv.cv_mean[l] = m;
    cv.cv_sd[l] = std::sqrt(ss / wsum / static_cast<double>(used - 1));
  }
  // getOptcv.glmnet: the largest λ at the minimum, and the largest λ within one SE of it.
  std::size_t best = 0;
  for (std::size_t l = 1; l < L; ++l)
    if (cv.cv_mean[l] < cv.cv_mean[best]) best = l;
  cv.index_min = best;
  const double bound = cv.cv_mean[best] + cv.cv_sd[best];
  cv.index_1se = best;
  for (std::size_t l = 0; l < L; ++l) {
    if (cv.cv_mean[l] <= bound) {
      cv.index_1se = l;
      break;
    }
  }
  return cv;
}

}  // namespace assay::learners
