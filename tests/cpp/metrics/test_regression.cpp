#include "assay/metrics/regression.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "assay/core/error.hpp"
#include "test_util.hpp"

namespace am = assay::metrics;
using V = std::vector<double>;

namespace {
am::RegressionData data(const V& y, const V& p, std::size_t outputs = 1, const V& w = {}) {
  am::RegressionData d;
  d.y_true = y;
  d.y_pred = p;
  d.n_outputs = outputs;
  d.sample_weight = w;
  return d;
}

am::OutputAverage average(am::OutputAverage::Kind kind, V weights = {}) {
  am::OutputAverage a;
  a.kind = kind;
  a.weights = std::move(weights);
  return a;
}
}  // namespace

// Values checked with scikit-learn 1.2.1 (same inputs, printed with repr).
TEST(Regression, ErrorsOfOneOutput) {
  const V y{3, -0.5, 2, 7};
  const V p{2.5, 0.0, 2, 8};
  const auto d = data(y, p);
  EXPECT_DOUBLE_EQ(am::mean_squared_error(d)[0], 0.375);
  EXPECT_DOUBLE_EQ(am::mean_squared_error(d, false)[0], std::sqrt(0.375));
  EXPECT_DOUBLE_EQ(am::mean_absolute_error(d)[0], 0.5);
  EXPECT_DOUBLE_EQ(am::median_absolute_error(d)[0], 0.5);
  EXPECT_DOUBLE_EQ(am::max_error(d), 1.0);
  EXPECT_DOUBLE_EQ(am::mean_pinball_loss(d, 0.5)[0], 0.25);
  EXPECT_NEAR(am::mean_absolute_percentage_error(d)[0], 0.3273809523809524, 1e-15);
  const auto r2 = am::assemble_score(am::r2_parts(d));
  EXPECT_NEAR(r2[0], 0.9486081370449679, 1e-15);
  const auto ev = am::assemble_score(am::explained_variance_parts(d));
  EXPECT_NEAR(ev[0], 0.9571734475374732, 1e-15);
}

TEST(Regression, SeveralOutputsAndAverages) {
  // y_true = [[0.5, 1], [-1, 1], [7, -6]], y_pred = [[0, 2], [-1, 2], [8, -5]]
  const V y{0.5, 1, -1, 1, 7, -6};
  const V p{0, 2, -1, 2, 8, -5};
  const auto d = data(y, p, 2);
  const auto mse = am::mean_squared_error(d);
  ASSERT_EQ(mse.size(), 2u);
  EXPECT_DOUBLE_EQ(mse[0], 0.41666666666666669);
  EXPECT_DOUBLE_EQ(mse[1], 1.0);
  EXPECT_DOUBLE_EQ(am::average_outputs(mse, {})[0], 0.7083333333333334);
  const auto weights = average(am::OutputAverage::Kind::weights, {0.3, 0.7});
  EXPECT_DOUBLE_EQ(am::average_outputs(mse, weights)[0], 0.825);
  const auto parts = am::r2_parts(d);
  const auto vw = average(am::OutputAverage::Kind::variance_weighted);
  EXPECT_NEAR(am::average_outputs(am::assemble_score(parts), vw, parts.denominator)[0],
              0.9382566585956417, 1e-15);
}

TEST(Regression, WeightsAndForceFinite) {
  const V y{1, 1, 1};
  const V p{1, 2, 3};
  const V w{1, 0, 2};
  const auto d = data(y, p, 1, w);
  EXPECT_DOUBLE_EQ(am::mean_squared_error(d)[0], 8.0 / 3);
  EXPECT_DOUBLE_EQ(am::median_absolute_error(d)[0], 2.0);  // weighted percentile, no interpolation
  // Constant y_true: force_finite gives 0 (imperfect) or 1 (perfect), else -inf.
  EXPECT_EQ(am::assemble_score(am::r2_parts(d))[0], 0.0);
  EXPECT_EQ(am::assemble_score(am::r2_parts(data(y, y)))[0], 1.0);
  EXPECT_TRUE(std::isinf(am::assemble_score(am::r2_parts(d), false)[0]));
}

TEST(Regression, TweedieAndD2) {
  const V y{0.5, 1, 2.5, 7};
  const V p{1, 1, 5, 3.5};
  const auto d = data(y, p);
  EXPECT_NEAR(am::mean_tweedie_deviance(d, 1), 1.1362943611198904, 1e-15);
  EXPECT_NEAR(am::mean_tweedie_deviance(d, 2), 0.3465735902799727, 1e-15);
  EXPECT_DOUBLE_EQ(am::mean_tweedie_deviance(d, 0), am::mean_squared_error(d)[0]);
  EXPECT_NEAR(am::d2_tweedie_score(d, 1), 0.4879151349031142, 1e-14);
  const auto d2 = am::assemble_score(am::d2_pinball_parts(d, 0.5));
  EXPECT_NEAR(d2[0], 0.1875, 1e-15);
}

TEST(Regression, BadInputMessages) {
  const V y{1, 2};
  const V nan{1, std::numeric_limits<double>::quiet_NaN()};
  const V inf{std::numeric_limits<double>::infinity(), 2};
  EXPECT_THROW_MSG(am::mean_squared_error(data(y, nan)), assay::Error,
                   "Input contains NaN: y_pred[1] is NaN");
  EXPECT_THROW_MSG(am::mean_absolute_error(data(inf, y)), assay::Error,
                   "Input contains infinity or a value too large for dtype('float64'): "
                   "y_true[0] is inf");
  EXPECT_THROW_MSG(am::mean_squared_error(data(y, V{1})), assay::Error,
                   "Found input variables with inconsistent numbers of samples: [2, 1]");
  EXPECT_THROW_MSG(am::mean_squared_error(data(V{}, V{})), assay::Error,
                   "Found array with 0 sample(s) (shape=(0,)) while a minimum of 1 is required.");
  const V negative{1, -1};
  EXPECT_THROW_MSG(am::mean_squared_error(data(y, y, 1, negative)), assay::Error,
                   "sample_weight must be >= 0, found -1 at index 1");
  EXPECT_THROW_MSG(am::mean_squared_log_error(data(negative, y)), assay::Error,
                   "Mean Squared Logarithmic Error cannot be used when targets contain negative "
                   "values.");
  EXPECT_THROW_MSG(am::mean_tweedie_deviance(data(y, V{0, 1}), 1.5), assay::Error,
                   "Mean Tweedie deviance error with power=1.5 can only be used on non-negative "
                   "y and strictly positive y_pred.");
  EXPECT_THROW_MSG(am::mean_tweedie_deviance(data(y, y), 0.5), assay::Error,
                   "Tweedie deviance is only defined for power<=0 and power>=1.");
  EXPECT_THROW_MSG(am::max_error(data(y, y, 2)), assay::Error,
                   "Multioutput not supported in max_error");
  EXPECT_THROW_MSG(am::parse_output_average("mean"), assay::Error,
                   "Allowed 'multioutput' string values are ('raw_values', 'uniform_average', "
                   "'variance_weighted'). You provided multioutput=\"mean\"");
}

TEST(Regression, LargeInputIsChunkedDeterministically) {
  // Above the parallel threshold the sums run over fixed chunks: exact for integers.
  const std::size_t n = (std::size_t{1} << 20) + 12345;
  V y(n), p(n);
  for (std::size_t i = 0; i < n; ++i) {
    y[i] = static_cast<double>(i % 7);
    p[i] = static_cast<double>(i % 5);
  }
  double expect = 0;
  for (std::size_t i = 0; i < n; ++i) expect += (y[i] - p[i]) * (y[i] - p[i]);
  const auto d = data(y, p);
  EXPECT_DOUBLE_EQ(am::mean_squared_error(d)[0], expect / static_cast<double>(n));
}
