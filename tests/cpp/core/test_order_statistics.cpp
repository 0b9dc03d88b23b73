#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "assay/core/order_statistics.hpp"
#include "assay/core/radix_sort.hpp"

namespace assay::detail {
namespace {

// Every rank of `keys` asked at once, checked against a full sort: the key there and how many
// keys are smaller.
void expect_like_a_sort(const std::vector<std::uint64_t>& keys,
                        const std::vector<std::size_t>& ranks) {
  std::vector<std::uint64_t> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  const KeyRanks selected(keys, ranks);
  for (const std::size_t r : ranks) {
    ASSERT_EQ(selected.key_at(r), sorted[r]) << "rank " << r;
    const auto less = static_cast<std::size_t>(
        std::lower_bound(sorted.begin(), sorted.end(), sorted[r]) - sorted.begin());
    ASSERT_EQ(selected.count_less(sorted[r]), less) << "rank " << r;
  }
}

// The nDSC retention curve's ranks: floor(n log(i) / log(200)) - 1 and the next one.
std::vector<std::size_t> retention_ranks(std::size_t n) {
  std::vector<std::size_t> ranks;
  for (int i = 1; i <= 200; ++i) {
    const auto pos = static_cast<std::size_t>(static_cast<double>(n) * std::log(i) / std::log(200));
    if (pos > 0 && pos < n) {
      ranks.push_back(pos - 1);
      ranks.push_back(pos);
    }
  }
  return ranks;
}

TEST(KeyRanks, WorkedExample) {
  const std::vector<std::uint64_t> keys = {7, 3, 9, 3, 1};
  const KeyRanks ranks(keys, {0, 2, 4, 2});
  EXPECT_EQ(ranks.key_at(0), 1u);
  EXPECT_EQ(ranks.key_at(2), 3u);
  EXPECT_EQ(ranks.key_at(4), 9u);
  EXPECT_EQ(ranks.count_less(3), 1u);
  EXPECT_EQ(ranks.count_less(9), 4u);
}

TEST(KeyRanks, RandomDoublesAsTheRetentionCurveAsksForThem) {
  std::mt19937_64 rng(5);
  std::exponential_distribution<double> spread(30.0);
  for (const std::size_t n : {1u, 2u, 10u, 1000u, 200000u}) {
    std::vector<std::uint64_t> keys(n);
    for (auto& k : keys) k = ascending_key(std::min(0.69, spread(rng)));
    expect_like_a_sort(keys, retention_ranks(n));
  }
}

TEST(KeyRanks, TiesAndFewDistinctValues) {
  std::mt19937_64 rng(6);
  for (const std::uint64_t distinct : {1u, 2u, 3u, 17u}) {
    std::vector<std::uint64_t> keys(50000);
    for (auto& k : keys) k = ascending_key(static_cast<double>(rng() % distinct) * 0.1);
    expect_like_a_sort(keys, retention_ranks(keys.size()));
  }
}

TEST(KeyRanks, KeysThatShareOrSplitTheTopBits) {
  std::mt19937_64 rng(7);
  std::vector<std::uint64_t> keys(30000);
  // Half share their top 24 bits (one sub-bucket), the rest spread over every bit, negative
  // doubles included.
  for (std::size_t i = 0; i < keys.size(); ++i) {
    keys[i] = i % 2 == 0 ? (0xABCDEFull << 40) | (rng() >> 24) : rng();
  }
  std::vector<std::size_t> every(keys.size());
  for (std::size_t r = 0; r < every.size(); ++r) every[r] = r;
  expect_like_a_sort(keys, every);
  expect_like_a_sort(keys, {0, keys.size() - 1, 12345});
}

TEST(KeyRanks, AHistogramFromTheCallerGivesTheSameAnswers) {
  std::mt19937_64 rng(8);
  std::vector<std::uint64_t> keys(20000);
  std::vector<std::size_t> counts(KeyRanks::kTopBuckets, 0);
  for (auto& k : keys) {
    k = ascending_key(static_cast<double>(rng() % 5000) / 7.0);
    ++counts[KeyRanks::top_bucket(k)];
  }
  const auto ranks = retention_ranks(keys.size());
  const KeyRanks own(keys, ranks), given(keys, ranks, counts);
  for (const std::size_t r : ranks) {
    EXPECT_EQ(given.key_at(r), own.key_at(r));
    EXPECT_EQ(given.count_less(own.key_at(r)), own.count_less(own.key_at(r)));
  }
}

TEST(KeyRanks, NoRanksAskedReadsNothingMore) {
  const std::vector<std::uint64_t> keys = {4, 2}, none = {};
  EXPECT_NO_THROW(KeyRanks(keys, {}));
  EXPECT_NO_THROW(KeyRanks(none, {}));
  const KeyRanks one(keys, {1, 1});  // duplicates collapse
  EXPECT_EQ(one.key_at(1), 4u);
  EXPECT_EQ(one.count_less(4), 1u);
}

}  // namespace
}  // namespace assay::detail
