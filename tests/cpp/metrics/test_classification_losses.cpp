// Per-label matrices, Jaccard, Hamming, kappa, likelihood ratios, hinge loss and top-k accuracy
// (declared in classification.hpp, defined in classification_losses.cpp).
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
using V = std::vector<double>;

namespace {
struct WarningLog {
  std::vector<std::string> messages;
  std::vector<assay::WarningKind> kinds;
  WarningLog() {
    assay::set_warning_handler([this](const std::string& m) {
      messages.push_back(m);
      kinds.push_back(assay::current_warning_kind());
    });
  }
  ~WarningLog() { assay::set_warning_handler({}); }
};
}  // namespace

// Expected values printed by scikit-learn 1.2.1 on the same inputs.
TEST(ClassificationLosses, PerLabelMatricesAndJaccard) {
  // y_true = [0,1,2,2,1], y_pred = [0,2,2,2,1]
  const Codes t{0, 1, 2, 2, 1};
  const Codes p{0, 2, 2, 2, 1};
  const auto counts = am::label_counts(t, p, 3);
  const double total[] = {5};
  EXPECT_EQ(am::multilabel_confusion_matrix(counts, total),
            (V{4, 0, 0, 1, 3, 0, 1, 1, 2, 1, 0, 2}));
  EXPECT_EQ(am::jaccard_score(counts, am::Average::none, am::ZeroDivision::warn),
            (V{1, 0.5, 2.0 / 3}));
  EXPECT_DOUBLE_EQ(am::jaccard_score(counts, am::Average::micro, am::ZeroDivision::warn)[0],
                   4.0 / 6);
  EXPECT_DOUBLE_EQ(am::mismatch_rate(t, p), 0.2);
  const std::uint8_t yt[] = {1, 0, 1, 0, 0, 0};
  const std::uint8_t yp[] = {1, 1, 1, 0, 0, 0};
  EXPECT_DOUBLE_EQ(am::hamming_loss(yt, yp, 3), 1.0 / 6);
  EXPECT_EQ(am::samplewise_confusion_matrix(yt, yp, 3), (V{0, 1, 0, 2, 3, 0, 0, 0}));
}

TEST(ClassificationLosses, JaccardZeroDivisionWarns) {
  WarningLog log;
  const Codes t{0, 0};
  const Codes p{0, 0};
  const auto counts = am::select_counts(am::label_counts(t, p, 2), Codes{1});
  EXPECT_EQ(am::jaccard_score(counts, am::Average::macro, am::ZeroDivision::warn)[0], 0.0);
  ASSERT_EQ(log.messages.size(), 1u);
  EXPECT_EQ(log.messages[0],
            "Jaccard is ill-defined and being set to 0.0 due to no true or predicted samples. "
            "Use `zero_division` parameter to control this behavior.");
  EXPECT_EQ(log.kinds[0], assay::WarningKind::undefined_metric);
}

TEST(ClassificationLosses, KappaRatiosHingeTopK) {
  // confusion_matrix([0,1,2,2,1], [0,2,2,2,1])
  const V confusion{1, 0, 0, 0, 1, 1, 0, 0, 2};
  EXPECT_DOUBLE_EQ(am::cohen_kappa(confusion, 3), 0.6875);
  EXPECT_NEAR(am::cohen_kappa(confusion, 3, am::KappaWeights::quadratic), 0.8387096774193548,
              1e-15);
  // confusion_matrix([0,1,0,1,0], [1,1,0,0,0]) = [[2, 1], [1, 1]]
  const auto lr = am::class_likelihood_ratios(V{2, 1, 1, 1});
  EXPECT_DOUBLE_EQ(lr.positive, 1.5);
  EXPECT_DOUBLE_EQ(lr.negative, 0.75);
  EXPECT_NEAR(am::hinge_loss_binary(Codes{0, 1, 1}, 1, V{-0.5, 0.3, 2.0}), 0.39999999999999997,
              1e-15);
  EXPECT_NEAR(am::hinge_loss_multiclass(Codes{0, 1, 2}, V{1, 0.5, 0.2, 0.1, 0.2, 0.9, 0, 0, 1}, 3),
              0.7333333333333334, 1e-15);
  const V scores{0.5, 0.2, 0.2, 0.3, 0.4, 0.2, 0.2, 0.4, 0.3, 0.7, 0.2, 0.1};
  EXPECT_DOUBLE_EQ(am::top_k_accuracy(Codes{0, 1, 2, 2}, scores, 3, 2), 0.75);
  // Ties: class 0 ties class 1 and 2 in row 0; the higher index ranks first, so k=1 misses it.
  EXPECT_DOUBLE_EQ(am::top_k_accuracy(Codes{0}, V{1, 1, 1}, 3, 1), 0.0);
  EXPECT_DOUBLE_EQ(am::top_k_accuracy(Codes{2}, V{1, 1, 1}, 3, 1), 1.0);
}

TEST(ClassificationLosses, LabelAgreement) {
  const std::vector<std::int64_t> t{3, 1, 7, 7};
  const std::vector<std::int64_t> p{3, 2, 7, 1};
  const auto r = am::label_agreement<std::int64_t>(t, p);
  EXPECT_EQ(r.matched, 2.0);
  EXPECT_EQ(r.total, 4.0);
  const V w{0.5, 1, 2, 1};
  const auto rw = am::label_agreement<std::int64_t>(t, p, w);
  EXPECT_EQ(rw.matched, 2.5);
  EXPECT_EQ(rw.total, 4.5);
  const V nan{std::nan(""), 1.0};
  EXPECT_EQ(am::label_agreement<double>(nan, nan).matched, 1.0);  // NaN never matches
}

TEST(ClassificationLosses, BadInputMessages) {
  EXPECT_THROW_MSG(am::parse_kappa_weights("cubic"), assay::Error,
                   "Unknown kappa weighting type. Expected None, 'linear' or 'quadratic', found "
                   "\"cubic\"");
  EXPECT_THROW_MSG(am::mismatch_rate(Codes{0, 1}, Codes{0}), assay::Error,
                   "y_true and y_pred differ in length (2 vs 1)");
  EXPECT_THROW_MSG(am::hinge_loss_multiclass(Codes{5}, V{1, 2}, 2), assay::Error,
                   "y_true code 5 out of range 0..1");
}
