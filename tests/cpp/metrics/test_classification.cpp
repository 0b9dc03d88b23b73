#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/core/warning.hpp"
#include "assay/metrics/classification.hpp"
#include "test_util.hpp"

namespace am = assay::metrics;
using Codes = std::vector<std::int32_t>;

namespace {
// Collects warnings for the lifetime of the object.
struct WarningLog {
  std::vector<std::string> messages;
  WarningLog() {
    assay::set_warning_handler([this](const std::string& m) { messages.push_back(m); });
  }
  ~WarningLog() { assay::set_warning_handler({}); }
};
}  // namespace

// y_true = [0,0,1,1,2], y_pred = [0,0,0,0,2]: class 0 tp 2 pred 4 true 2; class 1 tp 0 pred 0
// true 2; class 2 tp 1 pred 1 true 1.
const Codes kTrue{0, 0, 1, 1, 2};
const Codes kPred{0, 0, 0, 0, 2};

TEST(Prf, PerLabelAndAverages) {
  WarningLog log;
  auto counts = am::label_counts(kTrue, kPred, 3);
  EXPECT_EQ(counts.tp, (std::vector<double>{2, 0, 1}));
  am::PrfParams p;
  auto r = am::precision_recall_fscore(counts, p);
  EXPECT_EQ(r.precision, (std::vector<double>{0.5, 0, 1}));
  EXPECT_EQ(r.recall, (std::vector<double>{1, 0, 1}));
  EXPECT_DOUBLE_EQ(r.fscore[0], 2.0 / 3);
  EXPECT_EQ(r.support, (std::vector<double>{2, 2, 1}));
  ASSERT_EQ(log.messages.size(), 1u);
  EXPECT_EQ(log.messages[0],
            "Precision and F-score are ill-defined and being set to 0.0 in labels with no "
            "predicted samples. Use `zero_division` parameter to control this behavior.");
  p.average = am::Average::macro;
  EXPECT_DOUBLE_EQ(am::precision_recall_fscore(counts, p).precision[0], 0.5);
  p.average = am::Average::micro;
  EXPECT_DOUBLE_EQ(am::precision_recall_fscore(counts, p).fscore[0], 0.6);
  p.average = am::Average::weighted;
  EXPECT_DOUBLE_EQ(am::precision_recall_fscore(counts, p).recall[0], 0.6);
}

TEST(Prf, ZeroDivisionOneAndNan) {
  auto counts = am::label_counts(kTrue, kPred, 3);
  am::PrfParams p;
  p.zero_division = am::ZeroDivision::one;
  EXPECT_EQ(am::precision_recall_fscore(counts, p).precision[1], 1.0);
  EXPECT_EQ(am::precision_recall_fscore(counts, p).fscore[1], 0.0);  // tp+fp+fn > 0
  p.zero_division = am::ZeroDivision::nan;
  p.average = am::Average::macro;
  EXPECT_DOUBLE_EQ(am::precision_recall_fscore(counts, p).precision[0], 0.75);  // NaN excluded
}

TEST(Prf, WeightedWithZeroSupportFollowsSklearn121) {
  am::LabelCounts c{{0, 0}, {1, 0}, {0, 0}};
  am::PrfParams p;
  p.average = am::Average::weighted;
  p.zero_division = am::ZeroDivision::one;
  auto r = am::precision_recall_fscore(c, p);
  EXPECT_EQ(r.precision[0], 0.0);
  EXPECT_EQ(r.recall[0], 1.0);
  EXPECT_EQ(r.fscore[0], 0.0);
}

TEST(Prf, MultilabelSamplewise) {
  // 2 samples x 3 labels.
  std::vector<std::uint8_t> t{1, 0, 1, 0, 1, 0};
  std::vector<std::uint8_t> y{1, 1, 0, 0, 1, 0};
  auto c = am::multilabel_counts(t, y, 3, {}, true);
  EXPECT_EQ(c.tp, (std::vector<double>{1, 1}));
  am::PrfParams p;
  p.average = am::Average::samples;
  auto r = am::precision_recall_fscore(c, p);
  EXPECT_DOUBLE_EQ(r.precision[0], 0.75);
  EXPECT_DOUBLE_EQ(r.recall[0], 0.75);
}

TEST(Prf, BadInputMessages) {
  Codes t{0, 1, 1, 0, 1};
  Codes y{0, 1, 1, 0};
  EXPECT_THROW_MSG(am::label_counts(t, y, 2), assay::Error,
                   "y_true and y_pred differ in length (5 vs 4)");
  // No samples: zero counts (scikit-learn reports on empty input), not an error.
  EXPECT_EQ(am::label_counts({}, {}, 2).truth, (std::vector<double>{0, 0}));
  am::PrfParams p;
  p.beta = -1;
  EXPECT_THROW_MSG(am::precision_recall_fscore(am::label_counts(kTrue, kPred, 3), p), assay::Error,
                   "beta should be >=0 in the F-beta score, found -1");
  EXPECT_THROW_MSG(am::parse_zero_division("2"), assay::Error,
                   "zero_division must be one of 'warn', 0, 1, nan, found \"2\"");
}

TEST(Accuracy, MicroMacroWeighted) {
  Codes t{0, 0, 0, 1, 2, 2};
  Codes y{0, 1, 0, 1, 0, 2};
  EXPECT_DOUBLE_EQ(am::accuracy_score(t, y, 3), 4.0 / 6);
  am::AccuracyParams p;
  p.normalize = false;
  EXPECT_DOUBLE_EQ(am::accuracy_score(t, y, 3, p), 4.0);
  p = {};
  p.average = am::AccuracyAverage::macro;
  EXPECT_DOUBLE_EQ(am::accuracy_score(t, y, 3, p), (2.0 / 3 + 1 + 0.5) / 3);
  p.average = am::AccuracyAverage::weighted;
  std::vector<double> cw{1, 3, 0.5};
  EXPECT_DOUBLE_EQ(am::accuracy_score(t, y, 3, p, {}, cw), 5.5 / 7);
}

TEST(Accuracy, BalancedAndMcc) {
  WarningLog log;
  Codes t{0, 0, 1, 1};
  Codes y{0, 1, 1, 1};
  EXPECT_DOUBLE_EQ(am::balanced_accuracy_score(t, y, 2), 0.75);
  EXPECT_DOUBLE_EQ(am::balanced_accuracy_score(t, y, 2, {}, true), 0.5);
  EXPECT_DOUBLE_EQ(am::matthews_corrcoef(t, y, 2), 1.0 / std::sqrt(3.0));
  Codes one{1, 1, 1, 1};
  EXPECT_TRUE(std::isnan(am::matthews_corrcoef(one, y, 2)));
  ASSERT_FALSE(log.messages.empty());
  EXPECT_EQ(log.messages.back(),
            "Matthews correlation coefficient is undefined: y_true or y_pred has one class only");
}

TEST(BinaryRates, HandComputed) {
  Codes t{1, 1, 1, 0, 0, 0, 0, 1};
  Codes y{1, 1, 0, 0, 0, 1, 0, 1};
  auto r = am::binary_rates(t, y, 1);
  EXPECT_EQ(r.tp, 3);
  EXPECT_EQ(r.fp, 1);
  EXPECT_EQ(r.tn, 3);
  EXPECT_EQ(r.fn, 1);
  EXPECT_DOUBLE_EQ(r.specificity, 0.75);
  EXPECT_DOUBLE_EQ(r.mcc, 0.5);
}

TEST(Thresholds, BinaryArgmaxOneVsAll) {
  std::vector<double> s{0.2, 0.5, 0.7};
  EXPECT_EQ(am::threshold_scores(s, 0.5), (std::vector<std::uint8_t>{0, 1, 1}));
  std::vector<double> p{0.2, 0.5, 0.3, 0.4, 0.4, 0.2};
  EXPECT_EQ(am::argmax_rows(p, 3), (Codes{1, 0}));
  EXPECT_EQ(am::one_vs_all(p, 3, 0.4), (std::vector<std::uint8_t>{0, 1, 0, 1, 1, 0}));
  std::vector<double> bad{0.1, std::nan("")};
  EXPECT_THROW_MSG(am::threshold_scores(bad, 0.5), assay::Error, "y_score contains NaN at index 1");
}

TEST(ExtremeWeights, RatiosAreThoseOfTheRescaledWeightsCountsStayInTheirUnits) {
  // Issue 38: weights of 1e308 gave "precision contains NaN at index 0" and F1 NaN; 5e-324 gave
  // MCC NaN. Equal weights of any size give the unweighted ratios; counts are the true sums.
  const Codes t{0, 0, 1, 1, 2}, p{0, 1, 1, 1, 2};
  const auto plain = am::precision_recall_fscore(am::label_counts(t, p, 3), {});
  const double mcc = am::matthews_corrcoef(t, p, 3);
  for (double w : {5e-324, 1e-310, 1e308, 1.7e308}) {
    const std::vector<double> weights(5, w);
    const auto r = am::precision_recall_fscore(am::label_counts(t, p, 3, weights), {});
    for (std::size_t c = 0; c < 3; ++c) {
      EXPECT_NEAR(r.precision[c], plain.precision[c], 1e-15) << w;
      EXPECT_NEAR(r.fscore[c], plain.fscore[c], 1e-15) << w;
    }
    EXPECT_EQ(r.support[0], 2 * w) << w;  // inf for 1.7e308, as the true sum
    EXPECT_DOUBLE_EQ(am::matthews_corrcoef(t, p, 3, weights), mcc) << w;
    EXPECT_DOUBLE_EQ(am::accuracy_score(t, p, 3, {}, weights), 0.8) << w;
    EXPECT_EQ(am::accuracy_score(t, p, 3, {.normalize = false}, weights), 4 * w) << w;
    EXPECT_DOUBLE_EQ(am::balanced_accuracy_score(t, p, 3, weights), 5.0 / 6) << w;
    const auto rates = am::binary_rates(t, p, 1, weights);
    EXPECT_DOUBLE_EQ(rates.precision, 2.0 / 3) << w;
    EXPECT_EQ(rates.tp, 2 * w) << w;
  }
}
