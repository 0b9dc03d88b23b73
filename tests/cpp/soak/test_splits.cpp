#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "assay/core/csv.hpp"
#include "assay/core/error.hpp"
#include "assay/core/rng.hpp"
#include "assay/core/warning.hpp"
#include "assay/soak/splits.hpp"
#include "test_util.hpp"

namespace assay::soak {
namespace {

using Rows = std::vector<std::uint32_t>;

// n rows, subsets assigned round-robin-ish from a seeded stream, optional groups.
SoakDesign make_design(std::size_t n, int n_subsets, std::uint64_t seed = 7) {
  SoakDesign d;
  Rng rng(seed);
  for (std::size_t r = 0; r < n; ++r)
    d.subset.push_back(static_cast<std::int32_t>(rng.below(n_subsets)));
  for (int s = 0; s < n_subsets; ++s)
    d.subset_names.push_back(std::string(1, static_cast<char>('A' + s)));
  return d;
}

// Brute force from the definitions of the SOAK paper, §3.1, on the folds the object reports.
void expect_sets_match_definitions(const SoakSplits& splits) {
  const auto& fold = splits.folds();
  const auto& subset = splits.design().subset;
  for (std::size_t i = 0; i < splits.size(); ++i) {
    const SplitInfo& s = splits.info(i);
    if (s.n_train_groups != s.groups) continue;  // down-sampled: checked separately
    Rows test, train;
    for (std::uint32_t r = 0; r < fold.size(); ++r) {
      const bool k_eq = fold[r] == s.test_fold;
      const bool s_eq = subset[r] == s.test_subset;
      if (k_eq && s_eq) test.push_back(r);
      if (k_eq) continue;
      if (s.train_subsets == TrainSubsets::all || (s.train_subsets == TrainSubsets::same && s_eq) ||
          (s.train_subsets == TrainSubsets::other && !s_eq)) {
        train.push_back(r);
      }
    }
    EXPECT_EQ(splits.test_rows(i), test) << "split " << i;
    EXPECT_EQ(splits.train_rows(i), train) << "split " << i;
  }
}

std::vector<std::string> capture_warnings(const std::function<void()>& f) {
  std::vector<std::string> seen;
  ScopedWarningHandler handler([&](const std::string& m) { seen.push_back(m); });
  f();
  return seen;
}

TEST(SoakSplits, SetsEqualDefinitionsAndCountIs3SK) {
  auto d = make_design(300, 3);
  SoakSplits splits(d, SoakSplitParams{.folds = 5});
  EXPECT_EQ(splits.size(), 3u * 3u * 5u);
  EXPECT_EQ(splits.n_folds(), 5);
  expect_sets_match_definitions(splits);
}

TEST(SoakSplits, IterationOrderIsTrainSubsetsFoldSubset) {
  auto d = make_design(200, 2);
  SoakSplits splits(d, SoakSplitParams{.folds = 3});
  ASSERT_EQ(splits.size(), 18u);
  std::vector<std::tuple<TrainSubsets, int, int>> got;
  for (std::size_t i = 0; i < splits.size(); ++i) {
    const auto& s = splits.info(i);
    EXPECT_EQ(s.iteration, i + 1);
    EXPECT_EQ(s.seed, 1);
    EXPECT_EQ(s.n_train_groups, s.groups);
    got.emplace_back(s.train_subsets, s.test_fold, s.test_subset);
  }
  std::vector<std::tuple<TrainSubsets, int, int>> want;
  for (auto ts : {TrainSubsets::all, TrainSubsets::other, TrainSubsets::same})
    for (int f = 1; f <= 3; ++f)
      for (int s = 0; s < 2; ++s) want.emplace_back(ts, f, s);
  EXPECT_EQ(got, want);
  EXPECT_STREQ(to_string(TrainSubsets::all), "all");
  EXPECT_STREQ(to_string(TrainSubsets::other), "other");
  EXPECT_STREQ(to_string(TrainSubsets::same), "same");
}

TEST(SoakSplits, SubsetsParameterSelectsTrainSets) {
  auto d = make_design(100, 2);
  SoakSplits so(d, SoakSplitParams{.folds = 4, .subsets = "OS"});
  EXPECT_EQ(so.size(), 2u * 2u * 4u);
  EXPECT_EQ(so.info(0).train_subsets, TrainSubsets::other);
  EXPECT_EQ(so.info(8).train_subsets, TrainSubsets::same);
  SoakSplits a(d, SoakSplitParams{.folds = 4, .subsets = "A"});
  EXPECT_EQ(a.size(), 8u);
  expect_sets_match_definitions(a);
}

TEST(SoakSplits, OneSubsetIsPlainKFold) {
  auto d = make_design(53, 1);
  SoakSplits splits(d, SoakSplitParams{.folds = 5});
  ASSERT_EQ(splits.size(), 5u);
  Rows all_test;
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(splits.info(i).train_subsets, TrainSubsets::same);
    EXPECT_EQ(splits.info(i).test_fold, static_cast<int>(i) + 1);
    // same nominal groups: as.integer(53·4/5) = 42
    EXPECT_EQ(splits.info(i).groups, 42);
    auto t = splits.test_rows(i);
    EXPECT_EQ(t.size() + splits.train_rows(i).size(), 53u);
    all_test.insert(all_test.end(), t.begin(), t.end());
  }
  std::sort(all_test.begin(), all_test.end());
  Rows every(53);
  std::iota(every.begin(), every.end(), 0u);
  EXPECT_EQ(all_test, every);
  expect_sets_match_definitions(splits);
}

TEST(SoakSplits, RandomFoldsBalancedWithinStrata) {
  // 2 subsets x 3 strata of sizes 7..: within each (subset, stratum), fold counts are
  // 1..(m mod K) one larger than the rest, as mlr3's ResamplingCV.
  SoakDesign d = make_design(500, 2, 3);
  Rng rng(5);
  for (std::size_t r = 0; r < 500; ++r)
    d.stratum.push_back(static_cast<std::int32_t>(rng.below(3)));
  const int K = 4;
  SoakSplits splits(d, SoakSplitParams{.folds = K, .seed = 9});
  std::map<std::pair<int, int>, std::vector<int>> counts;
  for (std::size_t r = 0; r < 500; ++r) {
    auto& c = counts[{d.subset[r], d.stratum[r]}];
    c.resize(K, 0);
    ++c[splits.folds()[r] - 1];
  }
  ASSERT_EQ(counts.size(), 6u);
  for (const auto& [key, c] : counts) {
    const int m = std::accumulate(c.begin(), c.end(), 0);
    for (int f = 0; f < K; ++f) EXPECT_EQ(c[f], m / K + (f < m % K ? 1 : 0)) << f;
  }
  expect_sets_match_definitions(splits);
}

TEST(SoakSplits, DeterministicForASeed) {
  auto d = make_design(400, 3);
  SoakSplits a(d, SoakSplitParams{.folds = 5, .seed = 42});
  SoakSplits b(d, SoakSplitParams{.folds = 5, .seed = 42});
  SoakSplits c(d, SoakSplitParams{.folds = 5, .seed = 43});
  EXPECT_EQ(a.folds(), b.folds());
  EXPECT_NE(a.folds(), c.folds());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a.train_rows(i), b.train_rows(i));
}

TEST(SoakSplits, GroupsNeverSplitAndSetsMatch) {
  SoakDesign d;
  d.subset_names = {"NE", "NW", "S"};
  Rng rng(11);
  for (int g = 0; g < 90; ++g) {
    const auto size = 1 + rng.below(6);
    const auto s = static_cast<std::int32_t>(g % 3);
    for (std::uint64_t j = 0; j < size; ++j) {
      d.subset.push_back(s);
      d.group.push_back(1000 + g * 7);  // sparse group codes
      d.stratum.push_back(static_cast<std::int32_t>(rng.below(2)));
    }
  }
  SoakSplits splits(d, SoakSplitParams{.folds = 5});
  std::map<int, int> group_fold;
  for (std::size_t r = 0; r < d.subset.size(); ++r) {
    auto [it, fresh] = group_fold.emplace(d.group[r], splits.folds()[r]);
    EXPECT_EQ(it->second, splits.folds()[r]) << "group " << d.group[r];
  }
  EXPECT_EQ(splits.size(), 45u);
  // nominal groups: each subset has 30 groups; same = 24, all = 72, other = 48.
  EXPECT_EQ(splits.info(0).groups, 72);
  EXPECT_EQ(splits.info(15).groups, 48);
  EXPECT_EQ(splits.info(30).groups, 24);
  expect_sets_match_definitions(splits);
}

TEST(SoakSplits, RssGroupsHandWorkedExample) {
  // One subset, one stratum, groups of 3,3,2,2,1,1 rows, K = 2: largest first, each to the fold
  // with least RSS growth (ties to the first): 3→1, 3→2, 2→1, 2→2, 1→1, 1→2 ⇒ 6 rows per fold.
  SoakDesign d;
  d.subset_names = {"only"};
  const std::vector<int> sizes = {1, 3, 2, 3, 1, 2};
  for (int g = 0; g < 6; ++g)
    for (int j = 0; j < sizes[g]; ++j) {
      d.subset.push_back(0);
      d.group.push_back(g);
    }
  SoakSplits splits(d, SoakSplitParams{.folds = 2});
  int fold1 = 0;
  for (auto f : splits.folds()) fold1 += f == 1;
  EXPECT_EQ(fold1, 6);
  // the two groups of each size land in different folds
  for (int a = 0; a < 6; ++a)
    for (int b = a + 1; b < 6; ++b)
      if (sizes[a] == sizes[b]) {
        auto row_of = [&](int g) {
          return std::find(d.group.begin(), d.group.end(), g) - d.group.begin();
        };
        EXPECT_NE(splits.folds()[row_of(a)], splits.folds()[row_of(b)]);
      }
}

TEST(SoakSplits, RssGroupsBalancedPerStratum) {
  // 2 subsets x 2 labels, 400 groups of 1..5 rows (one label per group): every (subset, label)
  // has fold counts within one largest group (5 rows) of its ideal n/K.
  SoakDesign d;
  d.subset_names = {"a", "b"};
  Rng rng(3);
  for (int g = 0; g < 400; ++g) {
    const auto size = 1 + rng.below(5);
    const auto s = static_cast<std::int32_t>(rng.below(2));
    const auto y = static_cast<std::int32_t>(rng.below(2));
    for (std::uint64_t j = 0; j < size; ++j) {
      d.subset.push_back(s);
      d.group.push_back(g);
      d.stratum.push_back(y);
    }
  }
  const int K = 5;
  SoakSplits splits(d, SoakSplitParams{.folds = K, .seed = 2});
  std::map<std::pair<int, int>, std::vector<double>> counts;
  for (std::size_t r = 0; r < d.subset.size(); ++r) {
    auto& c = counts[{d.subset[r], d.stratum[r]}];
    c.resize(K, 0);
    c[splits.folds()[r] - 1] += 1;
  }
  for (const auto& [key, c] : counts) {
    const double ideal = std::accumulate(c.begin(), c.end(), 0.0) / K;
    for (double v : c) EXPECT_LE(std::fabs(v - ideal), 5.0);
  }
}

TEST(SoakSplits, GivenFoldIsRelabelled) {
  SoakDesign d;
  d.subset_names = {"x", "y"};
  d.subset = {0, 0, 0, 1, 1, 1, 0, 1};
  d.fold = {10, -3, 7, 10, -3, 7, 7, 10};
  SoakSplits splits(d, SoakSplitParams{.folds = 99});  // folds ignored with a given column
  EXPECT_EQ(splits.n_folds(), 3);
  EXPECT_EQ(splits.folds(), (std::vector<std::int32_t>{3, 1, 2, 3, 1, 2, 2, 3}));
  EXPECT_EQ(splits.size(), 3u * 2u * 3u);
  expect_sets_match_definitions(splits);
  // test fold 1 of subset x: row 1; same train: rows 0, 2, 6; other: rows 3, 5, 7.
  EXPECT_EQ(splits.test_rows(12), (Rows{1}));
  EXPECT_EQ(splits.train_rows(12), (Rows{0, 2, 6}));
  EXPECT_EQ(splits.train_rows(6), (Rows{3, 5, 7}));
}

TEST(SoakSplits, GivenFoldMissingInASubsetSkipsThatSplit) {
  SoakDesign d;
  d.subset_names = {"x", "y"};
  d.subset = {0, 0, 1, 1, 1};
  d.fold = {1, 2, 1, 2, 3};  // subset x has no fold 3
  SoakSplits splits(d, SoakSplitParams{.subsets = "S"});
  ASSERT_EQ(splits.size(), 5u);
  for (std::size_t i = 0; i < splits.size(); ++i) {
    EXPECT_FALSE(splits.info(i).test_fold == 3 && splits.info(i).test_subset == 0);
    EXPECT_FALSE(splits.test_rows(i).empty());
  }
}

// Brute force: split i's twin is the first split with exactly its train rows.
void expect_twins_are_first_equal_train_sets(const SoakSplits& splits) {
  std::map<Rows, std::size_t> first;
  for (std::size_t i = 0; i < splits.size(); ++i) {
    const auto [at, inserted] = first.try_emplace(splits.train_rows(i), i);
    const auto& s = splits.info(i);
    if (s.n_train_groups < s.groups) {
      EXPECT_EQ(splits.train_twin(i), i) << "a down-sampled set is its own twin, split " << i;
    } else {
      EXPECT_EQ(splits.train_twin(i), at->second) << "split " << i;
    }
  }
}

TEST(SoakSplits, TrainTwinsOfTwoSubsets) {
  // 2 subsets, K = 3: splits 0..5 All, 6..11 Other, 12..17 Same (fold outer, subset inner).
  // All of subset B shares All of A; Same of A is Other of B and Same of B is Other of A.
  SoakSplits splits(make_design(60, 2), SoakSplitParams{.folds = 3});
  ASSERT_EQ(splits.size(), 18u);
  for (std::size_t f = 0; f < 3; ++f) {
    EXPECT_EQ(splits.train_twin(2 * f), 2 * f);
    EXPECT_EQ(splits.train_twin(2 * f + 1), 2 * f);
    EXPECT_EQ(splits.train_twin(6 + 2 * f), 6 + 2 * f);
    EXPECT_EQ(splits.train_twin(6 + 2 * f + 1), 6 + 2 * f + 1);
    EXPECT_EQ(splits.train_twin(12 + 2 * f), 6 + 2 * f + 1);
    EXPECT_EQ(splits.train_twin(12 + 2 * f + 1), 6 + 2 * f);
  }
  expect_twins_are_first_equal_train_sets(splits);
}

TEST(SoakSplits, TrainTwinsMatchEqualTrainRowsInEveryDesign) {
  // Three subsets (only All repeats), one subset, SO without All, seeds x sizes, groups.
  expect_twins_are_first_equal_train_sets(SoakSplits(make_design(90, 3), SoakSplitParams{}));
  expect_twins_are_first_equal_train_sets(
      SoakSplits(make_design(40, 1), SoakSplitParams{.folds = 4}));
  expect_twins_are_first_equal_train_sets(
      SoakSplits(make_design(60, 2), SoakSplitParams{.folds = 3, .subsets = "SO"}));
  expect_twins_are_first_equal_train_sets(SoakSplits(
      make_design(120, 2), SoakSplitParams{.folds = 3, .sizes = 1, .ratio = 0.5, .seeds = 2}));
  SoakDesign grouped = make_design(80, 3, 11);
  for (std::size_t r = 0; r < grouped.subset.size(); ++r)
    grouped.group.push_back(static_cast<std::int64_t>(r / 4));
  grouped.subset.assign(grouped.subset.size(), 0);
  for (std::size_t r = 0; r < grouped.subset.size(); ++r)
    grouped.subset[r] = static_cast<std::int32_t>((r / 4) % 3);
  expect_twins_are_first_equal_train_sets(SoakSplits(grouped, SoakSplitParams{.folds = 2}));
}

TEST(SoakSplits, TrainTwinsWhenASubsetHasRowsInOneFoldOnly) {
  // Subset z has rows in fold 1 only: for test fold 1, Other of x draws on y alone, as Same of
  // y does, and All draws on x and y, as Other of z does.
  SoakDesign d;
  d.subset_names = {"x", "y", "z"};
  d.subset = {0, 0, 0, 1, 1, 1, 2, 2};
  d.fold = {1, 2, 3, 1, 2, 3, 1, 1};
  const SoakSplits splits(d, SoakSplitParams{});
  expect_twins_are_first_equal_train_sets(splits);
  std::size_t shared = 0;
  for (std::size_t i = 0; i < splits.size(); ++i) shared += splits.train_twin(i) != i;
  EXPECT_GT(shared, 0u);
}

TEST(SoakSplits, GivenFoldConstantWithinGroups) {
  SoakDesign d;
  d.subset_names = {"x"};
  d.subset = {0, 0, 0, 0};
  d.group = {5, 7, 5, 7};
  d.fold = {1, 2, 1, 2};
  SoakSplits ok(d, SoakSplitParams{});
  EXPECT_EQ(ok.folds(), (std::vector<std::int32_t>{1, 2, 1, 2}));
  d.fold = {1, 2, 1, 1};
  EXPECT_THROW_MSG(SoakSplits(d, SoakSplitParams{}), Error,
                   "the fold column is not constant within group 7: row 1 has fold 2, row 3 has "
                   "fold 1");
}

TEST(SoakSplits, CandidateSizesFollowMlr3Formula) {
  // Subset A: 40 rows, B: 20 rows, K = 4. Nominal groups as.integer(full·3/4): same A 30, B 15;
  // all 45; other A 15, B 30. Test subset A: min = 15; sizes = 2, ratio 0.5 add
  // as.integer(7.5) = 7 and as.integer(3.75) = 3 ⇒ candidates 3, 7, 15, 30, 45; same (30) gets
  // 3, 7, 15, 30; other (15) 3, 7, 15; all (45) all five. Test subset B is symmetric.
  SoakDesign d;
  d.subset_names = {"A", "B"};
  for (int r = 0; r < 60; ++r) d.subset.push_back(r < 40 ? 0 : 1);
  std::map<std::tuple<TrainSubsets, int>, std::vector<std::int64_t>> got;
  SoakSplits splits(d, SoakSplitParams{.folds = 4, .sizes = 2, .ratio = 0.5});
  for (const auto& s : splits.infos()) {
    if (s.test_fold != 2) continue;
    got[{s.train_subsets, s.test_subset}].push_back(s.n_train_groups);
  }
  using V = std::vector<std::int64_t>;
  EXPECT_EQ((got[{TrainSubsets::same, 0}]), (V{3, 7, 15, 30}));
  EXPECT_EQ((got[{TrainSubsets::other, 0}]), (V{3, 7, 15}));
  EXPECT_EQ((got[{TrainSubsets::all, 0}]), (V{3, 7, 15, 30, 45}));
  EXPECT_EQ((got[{TrainSubsets::same, 1}]), (V{3, 7, 15}));
  EXPECT_EQ((got[{TrainSubsets::other, 1}]), (V{3, 7, 15, 30}));
  EXPECT_EQ((got[{TrainSubsets::all, 1}]), (V{3, 7, 15, 30, 45}));
  EXPECT_EQ(splits.size(), 4u * 24u);

  // sizes = 0: only the full sizes, each train set gets those not above its own.
  SoakSplits zero(d, SoakSplitParams{.folds = 4, .sizes = 0});
  EXPECT_EQ(zero.size(), 4u * 12u);
  // ratio 0.3, sizes 3: 15·0.3 = 4.5 → 4, 1.35 → 1, 0.405 → 0 (empty: left out).
  SoakSplits r3(d, SoakSplitParams{.folds = 4, .subsets = "S", .sizes = 3, .ratio = 0.3});
  V same_b;
  for (const auto& s : r3.infos())
    if (s.test_fold == 1 && s.test_subset == 1) same_b.push_back(s.n_train_groups);
  EXPECT_EQ(same_b, (V{1, 4, 15}));
}

TEST(SoakSplits, DownSamplingKeepsStrataNestsAndDependsOnSeed) {
  // One subset, 2 strata of 60 and 20 rows, K = 2: same groups = 40, candidates 10, 20, 40.
  SoakDesign d;
  d.subset_names = {"only"};
  for (int r = 0; r < 80; ++r) {
    d.subset.push_back(0);
    d.stratum.push_back(r % 4 == 0 ? 1 : 0);
  }
  SoakSplits splits(d, SoakSplitParams{.folds = 2, .sizes = 2, .ratio = 0.5, .seeds = 2});
  ASSERT_EQ(splits.size(), 2u * 2u * 3u);  // fold x seed x size
  std::map<std::tuple<int, int, std::int64_t>, Rows> train;
  for (std::size_t i = 0; i < splits.size(); ++i) {
    const auto& s = splits.info(i);
    train[{s.test_fold, s.seed, s.n_train_groups}] = splits.train_rows(i);
    EXPECT_EQ(splits.train_rows(i), (train[{s.test_fold, s.seed, s.n_train_groups}]));  // stable
  }
  for (int fold = 1; fold <= 2; ++fold) {
    for (int seed = 1; seed <= 2; ++seed) {
      const Rows& full = train[{fold, seed, 40}];
      // each stratum keeps floor(n·m/40) of its m train rows: m = 30 and 10.
      for (std::int64_t size : {10, 20}) {
        const Rows& sub = train[{fold, seed, size}];
        int n0 = 0, n1 = 0;
        for (auto r : sub) (d.stratum[r] ? n1 : n0)++;
        EXPECT_EQ(n0, size * 30 / 40);
        EXPECT_EQ(n1, size * 10 / 40);
        EXPECT_TRUE(std::includes(full.begin(), full.end(), sub.begin(), sub.end()));
      }
      EXPECT_TRUE(std::includes(train[{fold, seed, 20}].begin(), train[{fold, seed, 20}].end(),
                                train[{fold, seed, 10}].begin(), train[{fold, seed, 10}].end()));
    }
    EXPECT_EQ((train[{fold, 1, 40}]), (train[{fold, 2, 40}]));
    EXPECT_NE((train[{fold, 1, 10}]), (train[{fold, 2, 10}]));
  }
}

TEST(SoakSplits, DownSamplingKeepsGroupsWhole) {
  SoakDesign d;
  d.subset_names = {"a", "b"};
  for (int g = 0; g < 60; ++g)
    for (int j = 0; j < 1 + g % 4; ++j) {
      d.subset.push_back(g % 2);
      d.group.push_back(g);
    }
  SoakSplits splits(d, SoakSplitParams{.folds = 3, .sizes = 1});
  std::size_t n_down = 0;
  for (std::size_t i = 0; i < splits.size(); ++i) {
    const auto& s = splits.info(i);
    if (s.n_train_groups == s.groups) continue;
    ++n_down;
    auto rows = splits.train_rows(i);
    std::set<int> kept;
    for (auto r : rows) kept.insert(d.group[r]);
    // every row of a kept group is in the train set
    std::size_t expected_rows = 0;
    for (std::size_t r = 0; r < d.group.size(); ++r) expected_rows += kept.count(d.group[r]);
    EXPECT_EQ(rows.size(), expected_rows);
  }
  EXPECT_GT(n_down, 0u);
}

TEST(SoakSplits, WarnsForStrataSmallerThanFolds) {
  SoakDesign d = make_design(100, 2);
  d.stratum.assign(100, 0);
  d.stratum[5] = 1;  // a one-row stratum
  std::vector<std::string> seen =
      capture_warnings([&] { SoakSplits s(d, SoakSplitParams{.folds = 3}); });
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0],
            std::string("1 of 3 strata have fewer rows than the 3 folds, so they cannot be "
                        "balanced over the folds (first: stratum 1 of subset \"") +
                d.subset_names[d.subset[5]] + "\", 1 rows)");
}

TEST(SoakSplits, IterationTableColumns) {
  SoakDesign d;
  d.subset_names = {"x", "y"};
  d.subset = {0, 1, 0, 1};
  d.fold = {1, 1, 2, 2};
  SoakSplits splits(d, SoakSplitParams{});
  const Json t = splits.iteration_table(true);
  ASSERT_EQ(t.size(), 12u);
  std::vector<std::string> keys;
  for (auto it = t[0].begin(); it != t[0].end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys,
            (std::vector<std::string>{"test.subset", "train.subsets", "groups", "test.fold", "test",
                                      "train", "seed", "n.train.groups", "iteration"}));
  // first split: all, fold 1, subset x: test row 1 (1-based), train rows 3, 4.
  EXPECT_EQ(t[0]["test.subset"], "x");
  EXPECT_EQ(t[0]["train.subsets"], "all");
  EXPECT_EQ(t[0]["groups"], 2);  // as.integer(2·1/2) per subset, summed
  EXPECT_EQ(t[0]["test"], Json::array({1}));
  EXPECT_EQ(t[0]["train"], Json::array({3, 4}));
  EXPECT_EQ(t[11]["iteration"], 12);
  EXPECT_EQ(splits.iteration_table(false)[0]["train"], Json::array({2, 3}));
}

TEST(SoakSplits, BadInputErrors) {
  auto d = make_design(30, 2);
  auto make = [&](SoakDesign design, SoakSplitParams p) { SoakSplits s(std::move(design), p); };
  EXPECT_THROW_MSG(make(d, {.subsets = ""}), Error,
                   "subsets must be a non-empty combination of S, O, A; found \"\"");
  EXPECT_THROW_MSG(make(d, {.subsets = "SX"}), Error,
                   "subsets must be a non-empty combination of S, O, A; found \"SX\"");
  EXPECT_THROW_MSG(make(d, {.subsets = "SOS"}), Error, "subsets lists 'S' twice in \"SOS\"");
  EXPECT_THROW_MSG(make(d, {.folds = 1}), Error, "folds must be at least 2, found 1");
  EXPECT_THROW_MSG(make(d, {.sizes = -2}), Error,
                   "sizes must be -1, 0 or a positive count, found -2");
  EXPECT_THROW_MSG(make(d, {.ratio = 1.0}), Error, "ratio: expected a number in (0, 1), found 1");
  EXPECT_THROW_MSG(make(d, {.ratio = 0.0}), Error, "ratio: expected a number in (0, 1), found 0");
  EXPECT_THROW_MSG(make(d, {.seeds = 0}), Error, "seeds must be at least 1, found 0");
  EXPECT_THROW_MSG(make(SoakDesign{.subset_names = {"a"}}, {}), Error, "the design has no rows");
  EXPECT_THROW_MSG(make(SoakDesign{.subset = {0}}, {}), Error,
                   "subset_names is empty; need one name per subset code");
  auto bad = d;
  bad.group = {1, 2, 3};
  EXPECT_THROW_MSG(make(bad, {}), Error, "group has 3 entries, subset has 30 (one per row)");
  bad = d;
  bad.stratum = {1};
  EXPECT_THROW_MSG(make(bad, {}), Error, "stratum has 1 entries, subset has 30 (one per row)");
  bad = d;
  bad.fold = {1, 2};
  EXPECT_THROW_MSG(make(bad, {}), Error, "fold has 2 entries, subset has 30 (one per row)");
  bad = d;
  bad.subset[4] = 2;
  EXPECT_THROW_MSG(make(bad, {}), Error,
                   "subset code 2 in row 4 is outside 0..1 (the 2 subset names)");
  bad = d;
  bad.group.assign(30, 0);
  bad.group[3] = -1;
  EXPECT_THROW_MSG(make(bad, {}), Error, "group code -1 in row 3 is negative");
  bad = d;
  bad.stratum.assign(30, 0);
  bad.stratum[0] = -2;
  EXPECT_THROW_MSG(make(bad, {}), Error, "stratum code -2 in row 0 is negative");
  bad = d;
  bad.fold.assign(30, 5);
  EXPECT_THROW_MSG(make(bad, {}), Error,
                   "the fold column has 1 distinct value (5); need at least 2 folds");
  // a subset with fewer rows / groups than folds
  SoakDesign small;
  small.subset_names = {"NE", "NW"};
  for (int r = 0; r < 27; ++r) small.subset.push_back(r < 20 ? 0 : 1);
  EXPECT_THROW_MSG(make(small, {.folds = 10}), Error,
                   "subset \"NW\" has 7 rows, fewer than the 10 folds");
  for (int r = 0; r < 27; ++r) small.group.push_back(r / 3);  // NW: groups 6, 7, 8 (row 20 = 6)
  EXPECT_THROW_MSG(make(small, {.folds = 4}), Error,
                   "subset \"NW\" has 3 groups, fewer than the 4 folds");
  // the subset name in messages is quoted and cut like every found value
  small.subset_names[1] = "N\"W";
  EXPECT_THROW_MSG(make(small, {.folds = 4}), Error,
                   "subset \"N\\\"W\" has 3 groups, fewer than the 4 folds");
}

TEST(SoakDesign, FromTable) {
  Table t("data.csv");
  t.add_column(Column::categorical("region", {"S", "NE", "S", "NW", "NE", "S"}));
  t.add_column(Column::numeric("year", {2020, 9, 10, 2020, 9, 10}));
  t.add_column(Column::numeric("poly", {4, 4, 7, 9, 9, 7}));
  t.add_column(Column::numeric("f", {3, 3, 1, 1, 1, 1}));  // constant within each poly
  t.add_column(Column::categorical("y", {"b", "a", "b", "b", "a", "a"}));
  SoakDesign d = soak_design(t, SoakColumns{.subset = "region", .group = "poly", .fold = "f"}, {});
  EXPECT_EQ(d.subset_names, (std::vector<std::string>{"NE", "NW", "S"}));
  EXPECT_EQ(d.subset, (std::vector<std::int32_t>{2, 0, 2, 1, 0, 2}));
  EXPECT_EQ(d.group, (std::vector<std::int32_t>{0, 0, 1, 2, 2, 1}));
  EXPECT_EQ(d.fold, (std::vector<std::int64_t>{3, 3, 1, 1, 1, 1}));
  EXPECT_TRUE(d.stratum.empty());
  // numeric subsets sort numerically; names print without ".0"
  SoakDesign n = soak_design(t, SoakColumns{.subset = "year", .strata = {"y", "region"}}, {});
  EXPECT_EQ(n.subset_names, (std::vector<std::string>{"9", "10", "2020"}));
  EXPECT_EQ(n.subset, (std::vector<std::int32_t>{2, 0, 1, 2, 0, 1}));
  // strata y x region in sorted order: (a,NE)=0, (a,S)=1, (b,NW)=2, (b,S)=3
  EXPECT_EQ(n.stratum, (std::vector<std::int32_t>{3, 0, 3, 2, 0, 1}));
  // no subset column: one subset; default stratum used when no strata columns
  const std::vector<std::int32_t> classes = {1, 0, 1, 1, 0, 0};
  SoakDesign one = soak_design(t, SoakColumns{}, classes);
  EXPECT_EQ(one.subset_names, (std::vector<std::string>{"full"}));
  EXPECT_EQ(one.subset, (std::vector<std::int32_t>(6, 0)));
  EXPECT_EQ(one.stratum, classes);
}

TEST(SoakDesign, BadColumns) {
  Table t("data.csv");
  t.add_column(Column::categorical("region", {"S", "NE", "S"}));
  t.add_column(Column::numeric("poly", {1, NAN, 2}));
  t.add_column(Column::numeric("f", {1, 2.5, 1}));
  t.add_column(Column::numeric("x", {1, 2, NAN}));
  EXPECT_THROW_MSG(soak_design(t, SoakColumns{.subset = "regio"}, {}), Error,
                   "data.csv: no column \"regio\"; columns are: region, poly, f, x");
  EXPECT_THROW_MSG(soak_design(t, SoakColumns{.subset = "region", .group = "poly"}, {}), Error,
                   "data.csv: group column \"poly\" has nan in data row 2; need integer ids");
  EXPECT_THROW_MSG(soak_design(t, SoakColumns{.subset = "region", .fold = "f"}, {}), Error,
                   "data.csv: fold column \"f\" has 2.5 in data row 2; need integer ids");
  EXPECT_THROW_MSG(soak_design(t, SoakColumns{.subset = "x"}, {}), Error,
                   "data.csv: subset column \"x\" has nan in data row 3");
  // The file's own group and fold values and 1-based data rows, not the internal codes.
  Table g("data.csv");
  g.add_column(Column::categorical("region", {"S", "S", "S", "S"}));
  g.add_column(Column::numeric("poly", {17, 42, 17, 42}));
  g.add_column(Column::categorical("block", {"b", "a", "b", "b"}));
  g.add_column(Column::categorical("name", {"p", "q", "p", "q"}));
  EXPECT_THROW_MSG(
      soak_design(g, SoakColumns{.subset = "region", .group = "poly", .fold = "block"}, {}), Error,
      "data.csv: fold column \"block\" is not constant within group 42 of column "
      "\"poly\": data row 2 has fold \"a\", data row 4 has fold \"b\"");
  EXPECT_THROW_MSG(
      soak_design(g, SoakColumns{.subset = "region", .group = "name", .fold = "block"}, {}), Error,
      "data.csv: fold column \"block\" is not constant within group \"q\" of column "
      "\"name\": data row 2 has fold \"a\", data row 4 has fold \"b\"");
  const std::vector<std::int32_t> short_stratum = {0, 1};
  EXPECT_THROW_MSG(soak_design(t, SoakColumns{.subset = "region"}, short_stratum), Error,
                   "default_stratum has 2 entries, the table 3 rows");
}

}  // namespace
}  // namespace assay::soak

namespace assay::soak {
namespace {

// Real data (../shared/data/soak, not shipped): polygons are groups, region3/region4 subsets,
// strata subset x label. Every polygon in one fold; sets equal the definitions.
TEST(SoakSplitsRealData, AztreesPolygonsNeverSplit) {
  const char* env = std::getenv("ASSAY_SOAK_DATA");  // as tests/python/conftest.py
  const std::string dir =
      env && *env ? env : std::string(ASSAY_SOURCE_DIR) + "/../shared/data/soak";
  const std::string path = dir + "/aztrees.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no real SOAK data at " << path;
  const Table table = read_csv(path);
  const Column& y = table.column("y");
  ASSERT_TRUE(y.is_categorical());
  for (const char* region : {"region3", "region4"}) {
    ScopedWarningHandler quiet([](const std::string&) {});  // small (region, label) strata
    SoakDesign d = soak_design(table, SoakColumns{.subset = region, .group = "polygon"}, y.codes);
    const std::size_t n_subsets = d.subset_names.size();
    EXPECT_EQ(n_subsets, std::string(region) == "region3" ? 3u : 4u);
    SoakSplits splits(d, SoakSplitParams{.folds = 10});
    EXPECT_EQ(splits.size(), 3 * n_subsets * 10);
    std::map<std::int32_t, std::int32_t> polygon_fold;
    for (std::size_t r = 0; r < d.group.size(); ++r) {
      auto [it, fresh] = polygon_fold.emplace(d.group[r], splits.folds()[r]);
      EXPECT_EQ(it->second, splits.folds()[r]);
    }
    EXPECT_EQ(polygon_fold.size(), 189u);
    expect_sets_match_definitions(splits);
  }
}

}  // namespace
}  // namespace assay::soak
