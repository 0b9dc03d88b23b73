#include "assay/metrics/label_ranking.hpp"

#include <cstdint>
#include <limits>
#include <vector>

#include "assay/core/error.hpp"
#include "test_util.hpp"

namespace am = assay::metrics;
using Bytes = std::vector<std::uint8_t>;
using V = std::vector<double>;

// scikit-learn 1.2.1's docstring examples (values printed by scikit-learn).
TEST(LabelRanking, MultilabelRanking) {
  const Bytes y{1, 0, 0, 0, 0, 1};
  const V s{0.75, 0.5, 1, 1, 0.2, 0.1};
  EXPECT_NEAR(am::label_ranking_average_precision(y, s, 3), 0.41666666666666663, 1e-15);
  EXPECT_DOUBLE_EQ(am::coverage_error(y, s, 3), 2.5);
  EXPECT_DOUBLE_EQ(am::label_ranking_loss(y, s, 3), 0.75);
  const V w{1, 3};
  // Sample 2 has LRAP 1/3 and loss 1; weighted means.
  EXPECT_DOUBLE_EQ(am::label_ranking_loss(y, s, 3, w), (0.5 + 3 * 1.0) / 4);
}

TEST(LabelRanking, DcgWithTies) {
  const V rel{10, 0, 0, 1, 5};
  const V s{.1, .2, .3, 4, 70};
  EXPECT_NEAR(am::dcg_per_sample(rel, s, 5)[0], 9.499457825916874, 1e-13);
  EXPECT_NEAR(am::ndcg_per_sample(rel, s, 5)[0], 0.6956940443813076, 1e-15);
  const V tied{1, 0, 0, 0, 1};
  am::DcgParams top1;
  top1.k = 1;
  EXPECT_DOUBLE_EQ(am::dcg_per_sample(rel, tied, 5, top1)[0], 7.5);  // (10 + 5) / 2
  top1.ignore_ties = true;
  EXPECT_DOUBLE_EQ(am::dcg_per_sample(rel, tied, 5, top1)[0], 5.0);  // later label first
}

TEST(LabelRanking, BadInputMessages) {
  const Bytes y{1, 0};
  const V nan{std::numeric_limits<double>::quiet_NaN(), 1};
  EXPECT_THROW_MSG(am::coverage_error(y, nan, 2), assay::Error,
                   "Input y_score contains NaN: y_score[0, 0] is nan");
  EXPECT_THROW_MSG(am::label_ranking_loss(y, V{1, 2, 3}, 2), assay::Error,
                   "y_true and y_score differ in length (2 vs 3)");
  am::DcgParams bad;
  bad.log_base = 1;
  EXPECT_THROW_MSG(am::dcg_per_sample(V{1, 0}, V{1, 0}, 2, bad), assay::Error,
                   "log_base must be positive and not 1, found 1");
}
