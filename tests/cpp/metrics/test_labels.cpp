// metrics/labels: encode_labels (sorted classes, codes of one or two arrays; the lookup-table
// path for small integer ranges and the sorting path agree), encode_with_classes, NaN refusal,
// and inspect_float_labels.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "assay/core/error.hpp"
#include "assay/metrics/labels.hpp"
#include "test_util.hpp"

namespace am = assay::metrics;
using Codes = std::vector<std::int32_t>;
using V = std::vector<double>;

namespace {

TEST(Labels, EncodesSmallIntegerRangeAndSortsClasses) {
  std::vector<std::int64_t> a{5, -2, 5, 3};
  std::vector<std::int64_t> b{3, 9};
  auto e = am::encode_labels<std::int64_t>(a, b);
  EXPECT_EQ(e.classes, (std::vector<std::int64_t>{-2, 3, 5, 9}));
  EXPECT_EQ(e.codes, (Codes{2, 0, 2, 1}));
  EXPECT_EQ(e.codes2, (Codes{1, 3}));
}

TEST(Labels, EncodesWideRangeAndFractionalValuesBySorting) {
  std::vector<std::int64_t> a{1'000'000'000'000, -7, 1'000'000'000'000};
  auto e = am::encode_labels<std::int64_t>(a);
  EXPECT_EQ(e.classes, (std::vector<std::int64_t>{-7, 1'000'000'000'000}));
  EXPECT_EQ(e.codes, (Codes{1, 0, 1}));
  std::vector<double> f{0.5, -1.25, 0.5, 2.0};
  auto g = am::encode_labels<double>(f);
  EXPECT_EQ(g.classes, (std::vector<double>{-1.25, 0.5, 2.0}));
  EXPECT_EQ(g.codes, (Codes{1, 0, 1, 2}));
}

TEST(Labels, EncodesAgainstExplicitClasses) {
  std::vector<std::int64_t> v{3, 1, 4, 1};
  std::vector<std::int64_t> classes{4, 1};
  EXPECT_EQ(am::encode_with_classes<std::int64_t>(v, classes), (Codes{-1, 1, 0, 1}));
  std::vector<std::int64_t> dup{4, 4};
  EXPECT_THROW_MSG(am::encode_with_classes<std::int64_t>(v, dup), assay::Error,
                   "labels contains the value 4 more than once");
}

TEST(Labels, RejectsNaN) {
  std::vector<double> a{0, 1};
  std::vector<double> b{1, std::nan("")};
  EXPECT_THROW_MSG(am::encode_labels<double>(a, b), assay::Error, "y_pred contains NaN at index 1");
}

TEST(Labels, InspectFloatLabelsIntegrality) {
  const auto integral = [](double x) { return am::inspect_float_labels(V{x}).integral; };
  for (double x : {0.0, -0.0, 1.0, -7.0, 0x1p52 - 1, 0x1p52, 0x1p53 + 2, -0x1p62, 0x1p63 - 1024})
    EXPECT_TRUE(integral(x)) << x;
  for (double x : {0.5, -1.5, 2.5, 0x1p52 - 0.5, -(0x1p51 + 0.5), 1e-300, 0x1p63, -0x1p63,
                   std::nan(""), HUGE_VAL})
    EXPECT_FALSE(integral(x)) << x;
  const auto r = am::inspect_float_labels(V{1, 2, std::nan(""), 3, -HUGE_VAL});
  EXPECT_EQ(r.first_nan, 2);
  EXPECT_EQ(r.first_inf, 4);
}

TEST(Labels, TableAndSortPathsGiveTheSameCodes) {
  // Small range: the O(n) table; the same labels shifted by 2^40 leave the table's range and are
  // sorted instead. Classes and codes must correspond exactly.
  std::mt19937 rng(5);
  std::vector<std::int64_t> a(500), b(300), a_far(500), b_far(300);
  const std::int64_t far = std::int64_t{1} << 40;
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::int64_t>(rng() % 37) - 10;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::int64_t>(rng() % 41) - 12;
  for (std::size_t i = 0; i < a.size(); ++i) a_far[i] = a[i] * far;
  for (std::size_t i = 0; i < b.size(); ++i) b_far[i] = b[i] * far;
  const auto near = am::encode_labels<std::int64_t>(a, b);
  const auto wide = am::encode_labels<std::int64_t>(a_far, b_far);
  EXPECT_EQ(near.codes, wide.codes);
  EXPECT_EQ(near.codes2, wide.codes2);
  ASSERT_EQ(near.classes.size(), wide.classes.size());
  for (std::size_t k = 0; k < near.classes.size(); ++k) {
    EXPECT_EQ(near.classes[k] * far, wide.classes[k]);
    if (k > 0) {
      EXPECT_LT(near.classes[k - 1], near.classes[k]);
    }
  }
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(near.classes[near.codes[i]], a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) EXPECT_EQ(near.classes[near.codes2[i]], b[i]);
}

TEST(Labels, IntegralDoublesUseTheTableAndMatchSorting) {
  const auto e = am::encode_labels<double>(V{2.0, -0.0, 7.0, 0.0, 2.0});
  EXPECT_EQ(e.classes, (V{0.0, 2.0, 7.0}));  // -0.0 and 0.0 are one class, as in np.unique
  EXPECT_EQ(e.codes, (Codes{1, 0, 2, 0, 1}));
  const auto f = am::encode_labels<double>(V{2.0, -0.0, 7.5, 0.0, 2.0});  // sorted path
  EXPECT_EQ(f.classes.size(), 3u);
  EXPECT_EQ(f.codes, (Codes{1, 0, 2, 0, 1}));
}

TEST(Labels, RangeLimitIsTwoToTheTwentyOrTwiceTheSamples) {
  // Both paths must give the same answer on each side of the limit.
  const std::int64_t limit = std::int64_t{1} << 20;
  for (const std::int64_t span : {limit - 1, limit, limit + 1}) {
    const std::vector<std::int64_t> v{span, 0, span, 3};
    const auto e = am::encode_labels<std::int64_t>(v);
    EXPECT_EQ(e.classes, (std::vector<std::int64_t>{0, 3, span}));
    EXPECT_EQ(e.codes, (Codes{2, 0, 2, 1}));
  }
  // Extreme int64 values do not overflow the range computation.
  const std::vector<std::int64_t> extreme{INT64_MAX, INT64_MIN, 0};
  const auto x = am::encode_labels<std::int64_t>(extreme);
  EXPECT_EQ(x.classes, (std::vector<std::int64_t>{INT64_MIN, 0, INT64_MAX}));
  EXPECT_EQ(x.codes, (Codes{2, 0, 1}));
}

TEST(Labels, EmptyInputsGiveNoClasses) {
  const auto e = am::encode_labels<std::int64_t>(std::vector<std::int64_t>{});
  EXPECT_TRUE(e.classes.empty());
  EXPECT_TRUE(e.codes.empty());
  EXPECT_TRUE(e.codes2.empty());
  const std::vector<std::int64_t> b{4, 4};
  const auto only_second = am::encode_labels<std::int64_t>(std::vector<std::int64_t>{}, b);
  EXPECT_EQ(only_second.classes, (std::vector<std::int64_t>{4}));
  EXPECT_EQ(only_second.codes2, (Codes{0, 0}));
}

TEST(Labels, NaNMessagesNameTheArray) {
  EXPECT_THROW_MSG(am::encode_labels<double>(V{std::nan(""), 1}), assay::Error,
                   "y_true contains NaN at index 0");
  EXPECT_THROW_MSG(am::encode_labels<double>(V{0}, V{1, 1, std::nan("")}, "a", "b"), assay::Error,
                   "b contains NaN at index 2");
  EXPECT_THROW_MSG(am::encode_with_classes<double>(V{0, std::nan("")}, V{0, 1}, "y_pred"),
                   assay::Error, "y_pred contains NaN at index 1");
  EXPECT_THROW_MSG(am::encode_with_classes<double>(V{0, 1}, V{1, std::nan("")}), assay::Error,
                   "labels contains NaN at index 1");
}

TEST(Labels, ExplicitDoubleClassesKeepTheirOrder) {
  EXPECT_EQ(am::encode_with_classes<double>(V{0.5, 2, 0.5, 9}, V{2, 0.5}), (Codes{1, 0, 1, -1}));
  EXPECT_THROW_MSG(am::encode_with_classes<double>(V{1}, V{0.5, 1, 0.5}), assay::Error,
                   "labels contains the value 0.5 more than once");
}

TEST(Labels, InspectFloatLabelsFindsFirstIndicesAcrossBlocks) {
  V v(3000, 1.0);
  v[2500] = std::nan("");
  v[1500] = -HUGE_VAL;
  v[2999] = HUGE_VAL;
  const auto r = am::inspect_float_labels(v);
  EXPECT_EQ(r.first_nan, 2500);
  EXPECT_EQ(r.first_inf, 1500);
  EXPECT_FALSE(r.integral);
  V fractional(2048, 3.0);
  fractional[2047] = 3.5;  // in the second block
  const auto f = am::inspect_float_labels(fractional);
  EXPECT_EQ(f.first_nan, -1);
  EXPECT_EQ(f.first_inf, -1);
  EXPECT_FALSE(f.integral);
  const auto empty = am::inspect_float_labels(V{});
  EXPECT_EQ(empty.first_nan, -1);
  EXPECT_TRUE(empty.integral);
}

}  // namespace
