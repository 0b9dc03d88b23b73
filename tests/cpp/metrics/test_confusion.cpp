// metrics/confusion: confusion matrices from class codes (weights, normalisation, unlisted
// codes) and the direct path that encodes small integer labels on the fly.
#include <cstdint>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/metrics/confusion.hpp"
#include "assay/metrics/labels.hpp"
#include "test_util.hpp"

namespace am = assay::metrics;
using Codes = std::vector<std::int32_t>;

TEST(Confusion, CountsAndDropsUnlistedCodes) {
  Codes t{0, 1, 1, 2, -1, 0};
  Codes p{0, 1, 0, 2, 1, 5};
  auto m = am::confusion_matrix(t, p, 3);
  EXPECT_EQ(m, (std::vector<double>{1, 0, 0, 1, 1, 0, 0, 0, 1}));
  std::vector<double> w{1, 2, 3, 4, 5, 6};
  EXPECT_EQ(am::confusion_matrix(t, p, 3, w), (std::vector<double>{1, 0, 0, 3, 2, 0, 0, 0, 4}));
}

TEST(Confusion, NormalizesWithZeroOverZeroAsZero) {
  Codes t{0, 0, 1};
  Codes p{0, 1, 1};
  auto rows = am::confusion_matrix(t, p, 3, {}, am::Normalize::true_rows);
  EXPECT_EQ(rows, (std::vector<double>{0.5, 0.5, 0, 0, 1, 0, 0, 0, 0}));
  auto cols = am::confusion_matrix(t, p, 3, {}, am::Normalize::pred_cols);
  EXPECT_EQ(cols, (std::vector<double>{1, 0.5, 0, 0, 0.5, 0, 0, 0, 0}));
  auto all = am::confusion_matrix(t, p, 3, {}, am::Normalize::all);
  EXPECT_DOUBLE_EQ(all[0], 1.0 / 3);
}

TEST(Confusion, ParallelChunksGiveExactCounts) {
  const std::size_t n = 3'000'001;
  Codes t(n), p(n);
  std::vector<double> expect(100 * 100, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    t[i] = static_cast<std::int32_t>((i * 7) % 100);
    p[i] = static_cast<std::int32_t>((i * 13 + i / 100) % 100);
    expect[static_cast<std::size_t>(t[i]) * 100 + static_cast<std::size_t>(p[i])] += 1;
  }
  EXPECT_EQ(am::confusion_matrix(t, p, 100), expect);
}

TEST(Confusion, GroupedRectangularMatrix) {
  // classes: 0 cat, 1 dog, 2 emu, 3 pig; rows {cat,dog}->0, pig->1, emu ignored;
  // cols {cat,dog,pig}->0 (mammal), emu->1 (bird).
  Codes t{0, 1, 3, 0, 2, 3};
  Codes p{1, 1, 0, 0, 3, 2};
  Codes rows{0, 0, -1, 1};
  Codes cols{0, 0, 1, 0};
  auto m = am::grouped_confusion_matrix(t, p, rows, cols, 2, 2);
  EXPECT_EQ(m, (std::vector<double>{3, 0, 1, 1}));
  Codes bad{0, 0, 2, 1};
  EXPECT_THROW_MSG(am::grouped_confusion_matrix(t, p, bad, cols, 2, 2), assay::Error,
                   "class 2 maps to row group 2, expected -1 (ignore) or 0..1");
}

TEST(Confusion, BadInputMessages) {
  Codes t{0, 1, 1, 0, 1};
  Codes p{0, 1, 1, 0};
  EXPECT_THROW_MSG(am::confusion_matrix(t, p, 2), assay::Error,
                   "y_true and y_pred differ in length (5 vs 4)");
  Codes q{0, 1, 1, 0, 0};
  std::vector<double> w{1, 1, -0.5, 1, 1};
  EXPECT_THROW_MSG(am::confusion_matrix(t, q, 2, w), assay::Error,
                   "sample_weight must be >= 0, found -0.5 at index 2");
  EXPECT_THROW_MSG(am::parse_normalize("rows"), assay::Error,
                   "normalize must be one of 'true', 'pred', 'all' or None, found \"rows\"");
}

TEST(Confusion, DirectPathMatchesEncodedPath) {
  std::vector<std::int64_t> t{7, 3, 3, 9, 7, 7};
  std::vector<std::int64_t> p{3, 3, 7, 9, 11, 7};
  std::vector<double> w{1, 2, 3, 4, 0, 6};  // 11 occurs only with weight 0: still a class
  std::vector<std::int64_t> classes;
  std::vector<double> m;
  ASSERT_TRUE(am::confusion_matrix_direct(t, p, w, am::Normalize::none, classes, m));
  EXPECT_EQ(classes, (std::vector<std::int64_t>{3, 7, 9, 11}));
  auto e = am::encode_labels<std::int64_t>(t, p);
  EXPECT_EQ(m, am::confusion_matrix(e.codes, e.codes2, 4, w));
  std::vector<std::int64_t> wide{0, 1000};
  EXPECT_FALSE(am::confusion_matrix_direct(wide, wide, {}, am::Normalize::none, classes, m));
}
