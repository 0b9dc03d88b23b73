// glmnet: behaviour and bad input. The numbers are checked against R's glmnet / cv.glmnet and
// scikit-learn in tests/python/test_glmnet.py.
#include "assay/learners/glmnet.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "test_util.hpp"

namespace assay::learners {
namespace {

// n rows, p features from a fixed quasi-random formula; classes from a noisy linear score.
Dataset generated(std::size_t n, std::size_t p, std::size_t n_classes, double noise = 1.0) {
  Dataset d;
  d.name = "gen";
  d.n_rows = n;
  d.n_features = p;
  d.x.resize(n * p);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < p; ++j)
      d.x[i * p + j] = std::sin(0.7 * static_cast<double>(i * (j + 3)) + static_cast<double>(j)) *
                       static_cast<double>(j + 1);
  for (std::size_t j = 0; j < p; ++j) d.feature_names.push_back("x" + std::to_string(j));
  for (std::size_t c = 0; c < n_classes; ++c) d.classes.push_back(std::string(1, char('a' + c)));
  for (std::size_t i = 0; i < n; ++i) {
    double best = -1e300;
    int label = 0;
    for (std::size_t c = 0; c < n_classes; ++c) {
      const double score = d.x[i * p + c % p] / static_cast<double>(c % p + 1) +
                           noise * std::sin(13.1 * static_cast<double>(i * (c + 1)));
      if (score > best) {
        best = score;
        label = static_cast<int>(c);
      }
    }
    d.y_class.push_back(label);
  }
  return d;
}

std::vector<std::uint32_t> all_rows(const Dataset& d) {
  std::vector<std::uint32_t> rows(d.n_rows);
  std::iota(rows.begin(), rows.end(), 0u);
  return rows;
}

std::vector<double> predict_all(const Model& model, const Dataset& data) {
  const auto rows = all_rows(data);
  std::vector<double> out(rows.size() * model.n_outputs());
  model.predict(data, rows, out);
  return out;
}

TEST(Glmnet, ParamsDefaultsAndErrors) {
  const GlmnetParams p = glmnet_params_from_json(Json::object());
  EXPECT_EQ(p.alpha, 1.0);
  EXPECT_EQ(p.n_lambda, 100u);
  EXPECT_EQ(p.rule, "lambda.1se");
  EXPECT_EQ(p.internal_folds, 10);
  EXPECT_THROW_MSG(make_learner("glmnet", Json{{"alpha", -0.5}}), Error,
                   "learner \"glmnet\" parameter \"alpha\": expected a number in [0, 1], found "
                   "-0.5");
  EXPECT_THROW_MSG(make_learner("glmnet", Json{{"internal_folds", 1}}), Error,
                   "learner \"glmnet\" parameter \"internal_folds\": expected an integer in [2, "
                   "1000000], found 1");
  EXPECT_THROW_MSG(make_learner("glmnet", Json{{"nfolds", 5}}), Error,
                   "learner \"glmnet\" has no parameter \"nfolds\"; its parameters: alpha, "
                   "n_lambda, lambda_min_ratio, internal_folds, rule, tolerance, max_passes");
  auto learner = make_learner("glmnet");
  EXPECT_TRUE(learner->supports(TaskKind::classification));
  EXPECT_FALSE(learner->supports(TaskKind::regression));
}

TEST(Glmnet, KktAtEveryLambdaAndConstantFeature) {
  Dataset d = generated(200, 6, 2);
  for (std::size_t i = 0; i < d.n_rows; ++i) d.x[i * 6 + 4] = 2.5;  // constant: coefficient 0
  GlmnetParams params;
  params.tolerance = 1e-14;
  const GlmnetPath path = glmnet_path(d, all_rows(d), params);
  ASSERT_GT(path.lambdas.size(), 5u);
  const std::size_t n = d.n_rows, p = d.n_features;
  // Standardised features (weighted mean, population SD) as glmnet sees them.
  std::vector<double> mean(p, 0), sd(p, 0);
  for (std::size_t j = 0; j < p; ++j) {
    for (std::size_t i = 0; i < n; ++i) mean[j] += d.x[i * p + j] / static_cast<double>(n);
    for (std::size_t i = 0; i < n; ++i)
      sd[j] += std::pow(d.x[i * p + j] - mean[j], 2) / static_cast<double>(n);
    sd[j] = std::sqrt(sd[j]);
  }
  for (std::size_t l = 0; l < path.lambdas.size(); l += 7) {
    const double lambda = path.lambdas[l];
    const double* beta = path.coefficients.data() + l * p;
    EXPECT_EQ(beta[4], 0.0);
    std::vector<double> grad(p, 0.0);
    double grad0 = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double eta = path.intercepts[l];
      for (std::size_t j = 0; j < p; ++j) eta += beta[j] * d.x[i * p + j];
      const double resid = 1 / (1 + std::exp(-eta)) - (d.y_class[i] == 1 ? 1.0 : 0.0);
      grad0 += resid / static_cast<double>(n);
      for (std::size_t j = 0; j < p; ++j)
        if (sd[j] > 0)
          grad[j] += resid * (d.x[i * p + j] - mean[j]) / sd[j] / static_cast<double>(n);
    }
    EXPECT_NEAR(grad0, 0.0, 1e-6);
    for (std::size_t j = 0; j < p; ++j) {
      const double b_std = beta[j] * sd[j];
      if (b_std != 0) {
        EXPECT_NEAR(grad[j], -lambda * (b_std > 0 ? 1 : -1), 1e-6) << "l=" << l << " j=" << j;
      } else {
        EXPECT_LE(std::abs(grad[j]), lambda + 1e-6) << "l=" << l << " j=" << j;
      }
    }
  }
}

TEST(Glmnet, FitIsIndependentOfThreadsAndDescribesChoice) {
  const Dataset d = generated(300, 5, 3);
  auto learner = make_learner("glmnet");
  const auto one = learner->fit(d, all_rows(d), {.seed = 4, .threads = 1});
  const auto two = learner->fit(d, all_rows(d), {.seed = 4, .threads = 2});
  EXPECT_EQ(predict_all(*one, d), predict_all(*two, d));
  const Json desc = one->description();
  EXPECT_EQ(desc["rule"], "lambda.1se");
  EXPECT_EQ(desc["alpha"], 1.0);
  EXPECT_GE(desc["lambda"].get<double>(), desc["lambda_min"].get<double>());
  EXPECT_GE(desc["lambda_index"].get<int>(), 1);
  EXPECT_LE(desc["nonzero"].get<int>(), 5);
  const auto probs = predict_all(*one, d);
  for (std::size_t i = 0; i < d.n_rows; ++i)
    EXPECT_NEAR(probs[3 * i] + probs[3 * i + 1] + probs[3 * i + 2], 1.0, 1e-12);
}

// streamed_bytes counts each fit's own kernel traffic: cv's total is the full path's plus each
// fold path's (refitted here on the fold's train rows), at any thread count.
TEST(Glmnet, StreamedBytesAddUpOverTheFitsAtAnyThreadCount) {
  const Dataset d = generated(300, 5, 2);
  const std::vector<std::uint32_t> rows = all_rows(d);
  const GlmnetParams params;
  const GlmnetCv one = glmnet_cv(d, rows, params, 4, 1);
  const GlmnetCv two = glmnet_cv(d, rows, params, 4, 2);
  EXPECT_EQ(one.streamed_bytes, two.streamed_bytes);
  std::uint64_t total = glmnet_path(d, rows, params).streamed_bytes;
  EXPECT_EQ(total, one.path.streamed_bytes);
  EXPECT_GE(total, 4u * 300u * 5u);  // the first λ reads every column at least once
  for (int f = 0; f < params.internal_folds; ++f) {
    std::vector<std::uint32_t> train;
    for (std::size_t r = 0; r < rows.size(); ++r)
      if (one.fold_ids[r] != f) train.push_back(rows[r]);
    total += glmnet_path(d, train, params).streamed_bytes;
  }
  EXPECT_EQ(one.streamed_bytes, total);
}

TEST(Glmnet, OneClassFailsAndAbsentClassGetsProbabilityZero) {
  Dataset d = generated(120, 4, 3);
  auto learner = make_learner("glmnet");
  std::vector<std::uint32_t> only_b;
  std::vector<std::uint32_t> a_and_c;
  for (std::uint32_t i = 0; i < d.n_rows; ++i) {
    (d.y_class[i] == 1 ? only_b : a_and_c).push_back(i);
  }
  EXPECT_THROW_MSG(learner->fit(d, only_b, {}), LearnerFailure,
                   "glmnet needs at least two classes in the train rows, found only class \"b\"");
  const auto model = learner->fit(d, a_and_c, {});
  const auto probs = predict_all(*model, d);
  for (std::size_t i = 0; i < d.n_rows; ++i) {
    EXPECT_EQ(probs[3 * i + 1], 0.0);
    EXPECT_NEAR(probs[3 * i] + probs[3 * i + 2], 1.0, 1e-12);
  }
  EXPECT_EQ(model->description()["classes_fitted"], (Json{"a", "c"}));
  d.weights.assign(d.n_rows, 0.0);
  EXPECT_THROW_MSG(learner->fit(d, a_and_c, {}), LearnerFailure,
                   fmt::format("the {} train rows have total weight 0", a_and_c.size()));
}

TEST(Glmnet, SeparableDataStopsWithFiniteCoefficients) {
  Dataset d = generated(80, 3, 2);
  for (std::size_t i = 0; i < d.n_rows; ++i) {  // x0 separates the classes with a margin
    d.x[i * 3] = (d.y_class[i] == 1 ? 1.0 : -1.0) * (1 + std::abs(d.x[i * 3 + 1]));
  }
  const GlmnetPath path = glmnet_path(d, all_rows(d), GlmnetParams{});
  EXPECT_LT(path.lambdas.size(), 100u);
  EXPECT_GT(path.dev_ratio.back(), 0.99);
  for (double b : path.coefficients) EXPECT_TRUE(std::isfinite(b));
}

TEST(Glmnet, MoreFeaturesThanRowsUsesRatio001) {
  const Dataset d = generated(30, 60, 2);
  const GlmnetPath path = glmnet_path(d, all_rows(d), GlmnetParams{});
  ASSERT_GE(path.lambdas.size(), 3u);
  // Log-spaced with step 0.01^(1/99) whatever the stopping point.
  EXPECT_NEAR(path.lambdas[2] / path.lambdas[1], std::pow(0.01, 1.0 / 99), 1e-12);
  EXPECT_LE(path.nonzero.back(), 30u);
}

TEST(Glmnet, RejectsBadLambdas) {
  const Dataset d = generated(30, 2, 2);
  const std::vector<double> bad{0.1, -1.0};
  EXPECT_THROW_MSG(glmnet_path(d, all_rows(d), GlmnetParams{}, bad), Error,
                   "glmnet: every λ must be a positive finite number, found -1 at position 1");
}

}  // namespace
}  // namespace assay::learners
