// learners/knn_search: kNN's numeric pieces — StandardScaler-equivalent standardising (checked
// against scikit-learn's numbers, weighted and unweighted, constant features), the exact
// screened nearest-neighbour search against brute force, and NumPy's pairwise sum. These are
// private to the learners layer, so this test includes their header directly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "../../../src/learners/knn_search.hpp"
#include "assay/core/rng.hpp"
#include "assay/learners/dataset.hpp"

namespace assay::learners {
namespace {

// Four rows of two features; the second is constant.
Dataset four_rows() {
  Dataset d;
  d.name = "four";
  d.n_rows = 4;
  d.n_features = 2;
  d.x = {1, 5, 2, 5, 4, 5, 7, 5};
  d.feature_names = {"a", "b"};
  d.y_class = {0, 1, 0, 1};
  d.classes = {"n", "y"};
  return d;
}

TEST(KnnSearch, StandardizerEqualsScikitLearn) {
  const Dataset d = four_rows();
  const std::vector<std::uint32_t> rows{0, 1, 2, 3};
  const detail::Standardizer s = detail::fit_standardizer(d, rows, {});
  // sklearn.preprocessing.StandardScaler().fit(X): mean_ and scale_.
  EXPECT_EQ(s.mean, (std::vector<double>{3.5, 5.0}));
  EXPECT_EQ(s.scale, (std::vector<double>{2.29128784747792, 1.0}));  // constant: scale 1
  std::vector<double> z(8);
  detail::standardize(d, rows, s, z);
  const std::vector<double> want{-1.091089451179962, 0.0, -0.6546536707079772, 0.0,
                                 0.2182178902359924, 0.0, 1.5275252316519468,  0.0};
  for (std::size_t i = 0; i < z.size(); ++i) EXPECT_DOUBLE_EQ(z[i], want[i]) << i;
}

TEST(KnnSearch, StandardizerUsesOnlyTheGivenRowsAndWeights) {
  const Dataset d = four_rows();
  const std::vector<std::uint32_t> some{3, 0, 2};
  const detail::Standardizer s = detail::fit_standardizer(d, some, {});
  EXPECT_EQ(s.mean, (std::vector<double>{4.0, 5.0}));
  EXPECT_DOUBLE_EQ(s.scale[0], 2.449489742783178);
  std::vector<double> z(6);
  detail::standardize(d, some, s, z);
  EXPECT_DOUBLE_EQ(z[0], 3.0 / 2.449489742783178);  // row 3 comes first
  // StandardScaler().fit(X, sample_weight=[1, 1, 2, 0]).
  const std::vector<std::uint32_t> all{0, 1, 2, 3};
  const std::vector<double> w{1, 1, 2, 0};
  const detail::Standardizer ws = detail::fit_standardizer(d, all, w);
  EXPECT_DOUBLE_EQ(ws.mean[0], 2.75);
  EXPECT_DOUBLE_EQ(ws.scale[0], 1.299038105676658);
  EXPECT_EQ(ws.scale[1], 1.0);
}

TEST(KnnSearch, NumpySumIsPairwise) {
  // np.sum(np.full(10, 0.1)) is 1.0; adding one by one gives 0.9999999999999999.
  EXPECT_EQ(detail::numpy_sum(std::vector<double>(10, 0.1)), 1.0);
  EXPECT_EQ(detail::numpy_sum(std::vector<double>{1e16, 1, -1e16}), 0.0);
  EXPECT_EQ(detail::numpy_sum(std::vector<double>{}), 0.0);
  std::vector<double> tenths;
  for (int i = 1; i <= 20; ++i) tenths.push_back(0.1 * i);
  EXPECT_EQ(detail::numpy_sum(tenths), 21.0);
}

TEST(KnnSearch, NearestFirstTiesToTheLowerPosition) {
  // One feature: reference points 0, 2, 1, 2, 5; query 2 -> positions 1 and 3 (distance 0),
  // then 2 (distance 1).
  const std::vector<double> ref{0, 2, 1, 2, 5}, query{2, 4.5};
  std::vector<std::uint32_t> out(6);
  detail::nearest_neighbours(ref, 5, query, 2, 1, 3, 1, out);
  EXPECT_EQ(out, (std::vector<std::uint32_t>{1, 3, 2, 4, 1, 3}));
  std::vector<std::uint32_t> all(5);
  detail::nearest_neighbours(ref, 5, std::vector<double>{0}, 1, 1, 5, 1, all);
  EXPECT_EQ(all, (std::vector<std::uint32_t>{0, 2, 1, 3, 4}));
}

TEST(KnnSearch, SearchEqualsBruteForceWithDuplicatesAndTies) {
  // Integer features with many equal distances and duplicated rows; the screened search must
  // return exactly the brute-force order (direct distance, then position).
  Rng rng(3);
  const std::size_t n_ref = 1500, n_query = 300, p = 6, k = 25;
  std::vector<double> ref(n_ref * p), query(n_query * p);
  for (double& v : ref) v = static_cast<double>(rng.below(3));
  for (double& v : query)
    v = static_cast<double>(rng.below(3)) + 0.5 * static_cast<double>(rng.below(2));
  for (std::size_t j = 0; j < p; ++j) ref[1000 * p + j] = ref[7 * p + j];  // a duplicate row
  std::vector<std::uint32_t> got(n_query * k), got4(n_query * k);
  detail::nearest_neighbours(ref, n_ref, query, n_query, p, k, 1, got);
  detail::nearest_neighbours(ref, n_ref, query, n_query, p, k, 4, got4);
  EXPECT_EQ(got, got4);
  for (std::size_t q = 0; q < n_query; ++q) {
    std::vector<std::pair<double, std::uint32_t>> all;
    for (std::size_t t = 0; t < n_ref; ++t) {
      double s = 0;
      for (std::size_t j = 0; j < p; ++j) {
        const double diff = query[q * p + j] - ref[t * p + j];
        s += diff * diff;
      }
      all.emplace_back(s, static_cast<std::uint32_t>(t));
    }
    std::sort(all.begin(), all.end());
    for (std::size_t i = 0; i < k; ++i) ASSERT_EQ(got[q * k + i], all[i].second) << q << " " << i;
  }
}

}  // namespace
}  // namespace assay::learners
