#include "assay/soak/splits.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <numeric>
#include <unordered_map>

#include <fmt/format.h>

#include "assay/core/error.hpp"
#include "assay/core/options.hpp"
#include "assay/core/rng.hpp"
#include "assay/core/warning.hpp"

namespace assay::soak {
namespace {

constexpr TrainSubsets kTrainOrder[] = {TrainSubsets::all, TrainSubsets::other, TrainSubsets::same};

// Independent random streams of one seed: fold shuffles per stratum, group tie order, and the
// per-split down-sampling orders.
constexpr std::uint64_t kStreamFolds = 0;
constexpr std::uint64_t kStreamGroupOrder = 1;
constexpr std::uint64_t kStreamDownsample = 2;
// The most splits a design may have: each trains a learner, and a few million would already take
// days; more (say --seeds 1000000000) would first exhaust memory listing them.
constexpr double kMaxSplits = 1e6;

std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Dense 0..k-1 codes for arbitrary non-negative codes, in increasing code order (so the result
// does not depend on row order). Direct table when the range is small, else a hash map.
std::vector<std::int32_t> compact_codes(std::span<const std::int64_t> codes, std::int32_t* n_out) {
  std::vector<std::int32_t> out(codes.size());
  if (codes.empty()) {
    *n_out = 0;
    return out;
  }
  const std::int64_t max_code = *std::max_element(codes.begin(), codes.end());
  if (max_code < static_cast<std::int64_t>(4 * codes.size() + 1024)) {
    std::vector<std::int32_t> map(static_cast<std::size_t>(max_code) + 1, -1);
    for (auto c : codes) map[static_cast<std::size_t>(c)] = 0;
    std::int32_t next = 0;
    for (auto& m : map)
      if (m == 0) m = next++;
    for (std::size_t i = 0; i < codes.size(); ++i) out[i] = map[static_cast<std::size_t>(codes[i])];
    *n_out = next;
    return out;
  }
  std::unordered_map<std::int64_t, std::int32_t> map;
  for (auto c : codes) map.emplace(c, 0);
  std::vector<std::int64_t> keys;
  keys.reserve(map.size());
  for (const auto& [k, v] : map) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  for (std::size_t j = 0; j < keys.size(); ++j) map[keys[j]] = static_cast<std::int32_t>(j);
  for (std::size_t i = 0; i < codes.size(); ++i) out[i] = map[codes[i]];
  *n_out = static_cast<std::int32_t>(keys.size());
  return out;
}

// Rows grouped by code (counting sort): rows of code c are order[start[c] .. start[c+1]).
void bucket_rows(std::span<const std::int32_t> code, std::int32_t n_codes,
                 std::vector<std::uint32_t>& order, std::vector<std::size_t>& start) {
  start.assign(static_cast<std::size_t>(n_codes) + 1, 0);
  for (auto c : code) ++start[static_cast<std::size_t>(c) + 1];
  for (std::size_t c = 0; c < static_cast<std::size_t>(n_codes); ++c) start[c + 1] += start[c];
  order.resize(code.size());
  std::vector<std::size_t> next(start.begin(), start.end() - 1);
  for (std::size_t r = 0; r < code.size(); ++r)
    order[next[code[r]]++] = static_cast<std::uint32_t>(r);
}

const char* unit_word(bool groups) {
  return groups ? "groups" : "rows";
}

}  // namespace

const char* to_string(TrainSubsets which) {
  switch (which) {
    case TrainSubsets::all:
      return "all";
    case TrainSubsets::other:
      return "other";
    case TrainSubsets::same:
      return "same";
  }
  return "?";
}

namespace {

// Step 1: the parameters, then the design's lengths and codes.
void check_design(const SoakDesign& design, const SoakSplitParams& params) {
  const std::size_t n = design.subset.size();
  const auto n_subsets = static_cast<std::int32_t>(design.subset_names.size());
  if (params.subsets.empty())
    fail("subsets must be a non-empty combination of S, O, A; found \"\"");
  for (std::size_t i = 0; i < params.subsets.size(); ++i) {
    const char c = params.subsets[i];
    if (c != 'S' && c != 'O' && c != 'A') {
      fail("subsets must be a non-empty combination of S, O, A; found {}",
           quote_found(params.subsets));
    }
    if (params.subsets.find(c) != i) {
      fail("subsets lists '{}' twice in {}", c, quote_found(params.subsets));
    }
  }
  if (design.fold.empty() && params.folds < 2)
    fail("folds must be at least 2, found {}", params.folds);
  if (params.sizes < -1) fail("sizes must be -1, 0 or a positive count, found {}", params.sizes);
  check_probability("ratio", params.ratio);
  if (params.seeds < 1) fail("seeds must be at least 1, found {}", params.seeds);
  if (n == 0) fail("the design has no rows");
  if (n > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    fail("the design has {} rows, more than the supported {}", n,
         std::numeric_limits<std::int32_t>::max());
  }
  if (n_subsets == 0) fail("subset_names is empty; need one name per subset code");
  const auto check_length = [n](std::size_t size, const char* what) {
    if (size != 0 && size != n)
      fail("{} has {} entries, subset has {} (one per row)", what, size, n);
  };
  check_length(design.group.size(), "group");
  check_length(design.stratum.size(), "stratum");
  check_length(design.fold.size(), "fold");
  for (std::size_t r = 0; r < n; ++r) {
    const auto s = design.subset[r];
    if (s < 0 || s >= n_subsets) {
      fail("subset code {} in row {} is outside 0..{} (the {} subset names)", s, r, n_subsets - 1,
           n_subsets);
    }
  }
  for (std::size_t r = 0; r < design.group.size(); ++r) {
    if (design.group[r] < 0) fail("group code {} in row {} is negative", design.group[r], r);
  }
  for (std::size_t r = 0; r < design.stratum.size(); ++r) {
    if (design.stratum[r] < 0) fail("stratum code {} in row {} is negative", design.stratum[r], r);
  }
}

// Step 2's result: dense codes of the design, and what messages and fold checks need of them.
struct DesignCodes {
  std::int32_t n_groups = 0;
  std::vector<std::int32_t> group_of_row;    // empty without groups
  std::int32_t n_strata = 0;                 // strata crossed with the subset
  std::vector<std::int32_t> stratum_of_row;  // crossed stratum code
  std::int32_t n_units = 0;                  // (group, crossed stratum) pairs, or rows
  std::vector<std::int32_t> unit_of_row;     // empty without groups
  std::vector<std::int32_t> unit_stratum;    // crossed stratum of each unit (with groups)
  std::vector<std::int32_t> stratum_subset;  // subset of each crossed stratum (for messages)
  std::vector<std::int32_t> stratum_raw;     // design stratum of each crossed one, -1 if none
  std::vector<std::int64_t> subset_full;     // fold-assignment units per subset
};

// Step 2: compact codes of groups, of strata crossed with the subset, and of units.
DesignCodes compact_design_codes(const SoakDesign& design) {
  const std::size_t n = design.subset.size();
  const auto n_subsets = static_cast<std::int32_t>(design.subset_names.size());
  const bool has_groups = !design.group.empty();
  DesignCodes codes;
  if (has_groups) {
    std::vector<std::int64_t> g(design.group.begin(), design.group.end());
    codes.group_of_row = compact_codes(g, &codes.n_groups);
  }
  {
    std::vector<std::int64_t> crossed(n);
    if (design.stratum.empty()) {
      for (std::size_t r = 0; r < n; ++r) crossed[r] = design.subset[r];
    } else {
      std::int32_t n_raw = 0;
      std::vector<std::int64_t> raw(design.stratum.begin(), design.stratum.end());
      auto dense = compact_codes(raw, &n_raw);
      for (std::size_t r = 0; r < n; ++r) {
        crossed[r] = static_cast<std::int64_t>(design.subset[r]) * n_raw + dense[r];
      }
    }
    codes.stratum_of_row = compact_codes(crossed, &codes.n_strata);
  }
  if (has_groups) {
    std::vector<std::int64_t> pair(n);
    for (std::size_t r = 0; r < n; ++r) {
      pair[r] = static_cast<std::int64_t>(codes.group_of_row[r]) * codes.n_strata +
                codes.stratum_of_row[r];
    }
    codes.unit_of_row = compact_codes(pair, &codes.n_units);
    codes.unit_stratum.assign(static_cast<std::size_t>(codes.n_units), 0);
    for (std::size_t r = 0; r < n; ++r)
      codes.unit_stratum[codes.unit_of_row[r]] = codes.stratum_of_row[r];
  } else {
    codes.n_units = static_cast<std::int32_t>(n);
  }
  codes.stratum_subset.assign(codes.n_strata, 0);
  codes.stratum_raw.assign(codes.n_strata, -1);
  for (std::size_t r = 0; r < n; ++r) {
    codes.stratum_subset[codes.stratum_of_row[r]] = design.subset[r];
    if (!design.stratum.empty()) codes.stratum_raw[codes.stratum_of_row[r]] = design.stratum[r];
  }

  // Fold-assignment units per subset (groups or rows), the nominal `groups` per subset:
  // distinct (subset, group) pairs.
  codes.subset_full.assign(n_subsets, 0);
  if (has_groups) {
    std::vector<std::int32_t> last_subset(codes.n_groups, -1);
    // A group may appear in several subsets: count each (subset, group) pair once.
    std::vector<std::uint32_t> order;
    std::vector<std::size_t> start;
    bucket_rows(design.subset, n_subsets, order, start);
    for (std::int32_t s = 0; s < n_subsets; ++s) {
      for (std::size_t j = start[s]; j < start[s + 1]; ++j) {
        const auto g = codes.group_of_row[order[j]];
        if (last_subset[g] != s) {
          last_subset[g] = s;
          ++codes.subset_full[s];
        }
      }
    }
  } else {
    for (auto s : design.subset) ++codes.subset_full[s];
  }
  return codes;
}

// Step 3, fold column given: folds 1..K in sorted order of its values, which must be constant
// within each group. Returns K.
int given_folds(const SoakDesign& design, const DesignCodes& codes,
                std::vector<std::int32_t>& fold) {
  const std::size_t n = design.subset.size();
  std::unordered_map<std::int64_t, std::int32_t> distinct;
  for (auto f : design.fold) distinct.emplace(f, 0);
  std::vector<std::int64_t> values;
  values.reserve(distinct.size());
  for (const auto& [v, code] : distinct) values.push_back(v);
  std::sort(values.begin(), values.end());
  if (values.size() < 2) {
    fail("the fold column has 1 distinct value ({}); need at least 2 folds", values.front());
  }
  for (std::size_t j = 0; j < values.size(); ++j)
    distinct[values[j]] = static_cast<std::int32_t>(j + 1);
  for (std::size_t r = 0; r < n; ++r) fold[r] = distinct[design.fold[r]];
  if (!design.group.empty()) {
    std::vector<std::int64_t> first_row(codes.n_groups, -1);
    for (std::size_t r = 0; r < n; ++r) {
      auto& first = first_row[codes.group_of_row[r]];
      if (first < 0) {
        first = static_cast<std::int64_t>(r);
      } else if (design.fold[first] != design.fold[r]) {
        fail(
            "the fold column is not constant within group {}: row {} has fold {}, row {} has "
            "fold {}",
            design.group[r], first, design.fold[first], r, design.fold[r]);
      }
    }
  }
  return static_cast<int>(values.size());
}

// Step 3 without groups: within each stratum, a random permutation of 1..K,1..K,... (as mlr3's
// ResamplingCV). Counts the rows of each stratum into stratum_units.
void random_row_folds(const DesignCodes& codes, int K, const Rng& fold_stream,
                      std::vector<std::int32_t>& fold, std::vector<std::int64_t>& stratum_units) {
  std::vector<std::uint32_t> order;
  std::vector<std::size_t> start;
  bucket_rows(codes.stratum_of_row, codes.n_strata, order, start);
  std::vector<std::int32_t> labels;
  for (std::int32_t st = 0; st < codes.n_strata; ++st) {
    const std::size_t m = start[st + 1] - start[st];
    stratum_units[st] = static_cast<std::int64_t>(m);
    labels.resize(m);
    for (std::size_t j = 0; j < m; ++j) labels[j] = static_cast<std::int32_t>(j % K) + 1;
    Rng rng = fold_stream.split(static_cast<std::uint64_t>(st));
    for (std::size_t j = m; j > 1; --j) std::swap(labels[j - 1], labels[rng.below(j)]);
    for (std::size_t j = 0; j < m; ++j) fold[order[start[st] + j]] = labels[j];
  }
}

// Step 3 with groups, RSS greedy: each group's per-stratum row counts, groups largest first
// (ties in a seeded random order), each to the fold where Σ (n[s,f] − ideal_s)² grows least.
// Counts the groups of each stratum into stratum_units.
void greedy_group_folds(const DesignCodes& codes, int K, const SoakSplitParams& params,
                        std::vector<std::int32_t>& fold, std::vector<std::int64_t>& stratum_units) {
  const std::int32_t n_groups = codes.n_groups;
  const std::int32_t n_strata = codes.n_strata;
  const auto& stratum_of_row = codes.stratum_of_row;
  std::vector<std::uint32_t> order;
  std::vector<std::size_t> start;
  bucket_rows(codes.group_of_row, n_groups, order, start);
  std::vector<std::size_t> pair_start(static_cast<std::size_t>(n_groups) + 1, 0);
  std::vector<std::pair<std::int32_t, double>> pairs;  // (stratum, rows) per group
  pairs.reserve(static_cast<std::size_t>(codes.n_units));
  std::vector<std::int32_t> slot(n_strata, -1);
  for (std::int32_t g = 0; g < n_groups; ++g) {
    pair_start[g] = pairs.size();
    for (std::size_t j = start[g]; j < start[g + 1]; ++j) {
      const auto st = stratum_of_row[order[j]];
      if (slot[st] < 0 || static_cast<std::size_t>(slot[st]) < pair_start[g]) {
        slot[st] = static_cast<std::int32_t>(pairs.size());
        pairs.emplace_back(st, 0.0);
        ++stratum_units[st];
      }
      pairs[slot[st]].second += 1.0;
    }
  }
  pair_start[n_groups] = pairs.size();
  std::vector<std::uint64_t> tie(n_groups);
  Rng tie_rng = Rng(params.seed).split(kStreamGroupOrder);
  for (auto& t : tie) t = tie_rng.next();
  std::vector<std::int32_t> group_order(n_groups);
  std::iota(group_order.begin(), group_order.end(), 0);
  std::sort(group_order.begin(), group_order.end(), [&](std::int32_t a, std::int32_t b) {
    const auto sa = start[a + 1] - start[a], sb = start[b + 1] - start[b];
    if (sa != sb) return sa > sb;
    if (tie[a] != tie[b]) return tie[a] < tie[b];
    return a < b;
  });
  std::vector<double> ideal(n_strata, 0.0);
  for (auto st : stratum_of_row) ideal[st] += 1.0;
  for (auto& v : ideal) v /= K;
  std::vector<double> count(static_cast<std::size_t>(n_strata) * K, 0.0);  // [st*K + f]
  std::vector<double> over(K, 0.0);  // Σ_s max(0, n[s,f] − ideal_s)
  std::vector<std::int32_t> group_fold(n_groups, 0);
  constexpr double kTol = 1e-6;
  for (auto g : group_order) {
    int best = 0;
    double best_rss = std::numeric_limits<double>::infinity(), best_over = 0.0;
    for (int f = 0; f < K; ++f) {
      double rss = 0.0, fold_over = over[f];
      for (std::size_t p = pair_start[g]; p < pair_start[g + 1]; ++p) {
        const auto [st, c] = pairs[p];
        const double diff = count[static_cast<std::size_t>(st) * K + f] - ideal[st];
        rss += (2.0 * diff + c) * c;
        fold_over += std::max(0.0, diff + c) - std::max(0.0, diff);
      }
      if (rss < best_rss - kTol || (rss <= best_rss + kTol && fold_over < best_over - kTol)) {
        best = f;
        best_rss = rss;
        best_over = fold_over;
      }
    }
    group_fold[g] = best + 1;
    for (std::size_t p = pair_start[g]; p < pair_start[g + 1]; ++p) {
      const auto [st, c] = pairs[p];
      double& cell = count[static_cast<std::size_t>(st) * K + best];
      const double diff = cell - ideal[st];
      over[best] += std::max(0.0, diff + c) - std::max(0.0, diff);
      cell += c;
    }
  }
  for (std::size_t r = 0; r < fold.size(); ++r) fold[r] = group_fold[codes.group_of_row[r]];
}

// Step 3 without a fold column: each subset needs K units; assigns the folds, then says once
// when some strata are smaller than K and so cannot be balanced (mlr3 silently does the same).
void assign_folds(const SoakDesign& design, const SoakSplitParams& params, const DesignCodes& codes,
                  int K, std::vector<std::int32_t>& fold) {
  const bool has_groups = !design.group.empty();
  const auto n_subsets = static_cast<std::int32_t>(design.subset_names.size());
  for (std::int32_t s = 0; s < n_subsets; ++s) {
    if (codes.subset_full[s] < K) {
      fail("subset {} has {} {}, fewer than the {} folds", quote_found(design.subset_names[s]),
           codes.subset_full[s], unit_word(has_groups), K);
    }
  }
  const Rng fold_stream = Rng(params.seed).split(kStreamFolds);
  std::vector<std::int64_t> stratum_units(codes.n_strata, 0);
  if (!has_groups) {
    random_row_folds(codes, K, fold_stream, fold, stratum_units);
  } else {
    greedy_group_folds(codes, K, params, fold, stratum_units);
  }
  if (design.stratum.empty()) return;
  std::int32_t n_small = 0, first = -1;
  for (std::int32_t st = 0; st < codes.n_strata; ++st) {
    if (stratum_units[st] < K) {
      if (first < 0) first = st;
      ++n_small;
    }
  }
  if (n_small > 0) {
    warn(fmt::format(
        "{} of {} strata have fewer {} than the {} folds, so they cannot be balanced over the "
        "folds (first: stratum {} of subset {}, {} {})",
        n_small, codes.n_strata, unit_word(has_groups), K, codes.stratum_raw[first],
        quote_found(design.subset_names[codes.stratum_subset[first]]), stratum_units[first],
        unit_word(has_groups)));
  }
}

// The train sets asked for, in mlr3's order (all, other, same); one subset trains on itself.
std::vector<TrainSubsets> train_sets_of(const SoakSplitParams& params, std::int32_t n_subsets) {
  std::vector<TrainSubsets> train_sets;
  for (auto ts : kTrainOrder) {
    const char letter = ts == TrainSubsets::all ? 'A' : ts == TrainSubsets::other ? 'O' : 'S';
    if (n_subsets == 1 ? ts == TrainSubsets::same
                       : params.subsets.find(letter) != std::string::npos) {
      train_sets.push_back(ts);
    }
  }
  return train_sets;
}

// The nominal train groups of each (train set, test subset): K−1 of K folds of the units.
class NominalGroups {
 public:
  NominalGroups(const std::vector<std::int64_t>& subset_full, int K) : same_(subset_full.size()) {
    for (std::size_t s = 0; s < subset_full.size(); ++s) {
      same_[s] = subset_full[s] * (K - 1) / K;  // as.integer(full·(K−1)/K)
      all_ += same_[s];
    }
  }
  std::int64_t operator()(TrainSubsets ts, std::int32_t s) const {
    switch (ts) {
      case TrainSubsets::same:
        return same_[s];
      case TrainSubsets::other:
        return all_ - same_[s];
      case TrainSubsets::all:
        return all_;
    }
    return 0;
  }

 private:
  std::vector<std::int64_t> same_;
  std::int64_t all_ = 0;
};

// Step 4: per test subset, the sorted distinct train sizes: each train set's nominal groups,
// and the smallest of them times ratio^j for j = 1..sizes.
std::vector<std::vector<std::int64_t>> candidate_sizes(const SoakSplitParams& params,
                                                       const std::vector<TrainSubsets>& train_sets,
                                                       const NominalGroups& nominal,
                                                       std::int32_t n_subsets) {
  std::vector<std::vector<std::int64_t>> candidates(n_subsets);
  for (std::int32_t s = 0; s < n_subsets; ++s) {
    auto& c = candidates[s];
    std::int64_t min_groups = std::numeric_limits<std::int64_t>::max();
    for (auto ts : train_sets) {
      c.push_back(nominal(ts, s));
      min_groups = std::min(min_groups, nominal(ts, s));
    }
    for (int j = 1; j <= params.sizes; ++j) {
      // R: as.integer(min(groups) * ratio^j); an empty train set (0 groups) is left out.
      const auto size = static_cast<std::int64_t>(static_cast<double>(min_groups) *
                                                  std::pow(params.ratio, static_cast<double>(j)));
      if (size < 1) break;  // ratio < 1: every later size is 0 too (--sizes 1000000000)
      c.push_back(size);
    }
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
  }
  return candidates;
}

// Refuses a design no run could finish (its list alone could exhaust memory).
void check_split_count(const SoakSplitParams& params, std::size_t n_train_sets, int K,
                       const std::vector<std::vector<std::int64_t>>& candidates) {
  double most_splits = 0;
  for (const auto& sizes : candidates) {
    const double sizes_per_seed = params.sizes == -1 ? 1.0 : static_cast<double>(sizes.size());
    most_splits += static_cast<double>(n_train_sets) * K * params.seeds * sizes_per_seed;
  }
  if (most_splits > kMaxSplits) {
    fail(
        "the design has up to {:.0f} splits (train sets x folds x subsets x seeds x sizes), more "
        "than {:.0f}, each training a learner; lower seeds, sizes or folds",
        most_splits, kMaxSplits);
  }
}

// Step 5: the splits in mlr3's order: train set, test fold, test subset, seed, size. With a given
// fold column a subset may lack a fold: like mlr3, no split then.
std::vector<SplitInfo> list_splits(const SoakSplitParams& params,
                                   const std::vector<TrainSubsets>& train_sets,
                                   const NominalGroups& nominal,
                                   const std::vector<std::vector<std::int64_t>>& candidates,
                                   const std::vector<std::size_t>& cell_rows, int K) {
  const auto n_subsets = static_cast<std::int32_t>(candidates.size());
  std::vector<SplitInfo> splits;
  for (auto ts : train_sets) {
    for (std::int32_t f = 1; f <= K; ++f) {
      for (std::int32_t s = 0; s < n_subsets; ++s) {
        if (cell_rows[static_cast<std::size_t>(f - 1) * n_subsets + s] == 0) continue;
        const auto groups = nominal(ts, s);
        for (std::int32_t seed = 1; seed <= params.seeds; ++seed) {
          for (auto size : candidates[s]) {
            if (params.sizes == -1 ? size != groups : size > groups) continue;
            SplitInfo info;
            info.iteration = splits.size() + 1;
            info.test_subset = s;
            info.train_subsets = ts;
            info.groups = groups;
            info.test_fold = f;
            info.seed = seed;
            info.n_train_groups = size;
            splits.push_back(info);
          }
        }
      }
    }
  }
  return splits;
}

// Whether a train set of kind `ts` for test subset `sigma` draws on the rows of subset t.
bool draws_on(TrainSubsets ts, std::int32_t sigma, std::int32_t t) {
  return ts == TrainSubsets::all || (ts == TrainSubsets::same) == (t == sigma);
}

// Step 6: each split's train twin (see train_twin). A full-size train set of test fold κ is
// every row outside fold κ of the subsets it draws on, so it is fixed by κ and those subsets
// among U_κ, the subsets with rows outside fold κ. The key names that set X by whichever of X
// and U_κ \ X is smaller, so All, Same and Other keys hold at most one subset each. A
// down-sampled set also depends on its own random order: its own twin.
std::vector<std::size_t> list_train_twins(const std::vector<SplitInfo>& splits,
                                          const std::vector<std::size_t>& cell_rows, int K,
                                          std::int32_t n_subsets) {
  std::vector<std::size_t> subset_rows(static_cast<std::size_t>(n_subsets), 0);
  for (std::int32_t f = 0; f < K; ++f) {
    for (std::int32_t t = 0; t < n_subsets; ++t) subset_rows[t] += cell_rows[f * n_subsets + t];
  }
  std::map<std::vector<std::int64_t>, std::size_t> first_with;
  std::vector<std::size_t> twins(splits.size());
  std::vector<std::int64_t> drawn, left_out;
  for (std::size_t i = 0; i < splits.size(); ++i) {
    const SplitInfo& s = splits[i];
    twins[i] = i;
    if (s.n_train_groups < s.groups) continue;
    drawn.clear();
    left_out.clear();
    for (std::int32_t t = 0; t < n_subsets; ++t) {
      const std::size_t cell = static_cast<std::size_t>(s.test_fold - 1) * n_subsets + t;
      if (subset_rows[t] == cell_rows[cell]) continue;  // no rows outside fold κ
      (draws_on(s.train_subsets, s.test_subset, t) ? drawn : left_out).push_back(t);
    }
    const bool by_complement = left_out.size() < drawn.size();
    std::vector<std::int64_t> key{s.test_fold, by_complement ? 1 : 0};
    const auto& named = by_complement ? left_out : drawn;
    key.insert(key.end(), named.begin(), named.end());
    twins[i] = first_with.try_emplace(std::move(key), i).first->second;
  }
  return twins;
}

}  // namespace

SoakSplits::SoakSplits(SoakDesign design, const SoakSplitParams& params)
    : design_(std::move(design)), params_(params) {
  const std::size_t n = design_.subset.size();
  const auto n_subsets = static_cast<std::int32_t>(design_.subset_names.size());
  check_design(design_, params_);

  DesignCodes codes = compact_design_codes(design_);
  fold_.assign(n, 0);
  if (!design_.fold.empty()) {
    n_folds_ = given_folds(design_, codes, fold_);
  } else {
    n_folds_ = params_.folds;
    assign_folds(design_, params_, codes, n_folds_, fold_);
  }
  const auto K = n_folds_;
  cell_rows_.assign(static_cast<std::size_t>(K) * n_subsets, 0);
  for (std::size_t r = 0; r < n; ++r) {
    ++cell_rows_[static_cast<std::size_t>(fold_[r] - 1) * n_subsets + design_.subset[r]];
  }

  const auto train_sets = train_sets_of(params_, n_subsets);
  const NominalGroups nominal(codes.subset_full, K);
  const auto candidates = candidate_sizes(params_, train_sets, nominal, n_subsets);
  check_split_count(params_, train_sets.size(), K, candidates);
  splits_ = list_splits(params_, train_sets, nominal, candidates, cell_rows_, K);
  twins_ = list_train_twins(splits_, cell_rows_, K, n_subsets);

  group_of_row_ = std::move(codes.group_of_row);
  stratum_of_row_ = std::move(codes.stratum_of_row);
  n_strata_ = codes.n_strata;
  unit_of_row_ = std::move(codes.unit_of_row);
  unit_stratum_ = std::move(codes.unit_stratum);
  n_units_ = codes.n_units;
}

std::vector<std::uint32_t> SoakSplits::test_rows(std::size_t i) const {
  const SplitInfo& s = info(i);
  const std::size_t n_subsets = design_.subset_names.size();
  const std::size_t count =
      cell_rows_[static_cast<std::size_t>(s.test_fold - 1) * n_subsets + s.test_subset];
  std::vector<std::uint32_t> rows(count + 1);  // branch-free scan, as train_rows
  const std::size_t n = fold_.size();
  const auto* fold = fold_.data();
  const auto* subset = design_.subset.data();
  std::size_t k = 0;
  for (std::size_t r = 0; r < n; ++r) {
    rows[k] = static_cast<std::uint32_t>(r);
    k += static_cast<std::size_t>((fold[r] == s.test_fold) & (subset[r] == s.test_subset));
  }
  ASSAY_ASSERT(k == count);
  rows.resize(k);
  return rows;
}

std::vector<std::uint32_t> SoakSplits::train_rows(std::size_t i) const {
  const SplitInfo& s = info(i);
  const std::size_t n = fold_.size();
  const std::size_t n_subsets = design_.subset_names.size();
  const auto* fold = fold_.data();
  const auto* subset = design_.subset.data();
  const auto kappa = s.test_fold;
  const auto sigma = s.test_subset;
  // Full train set size, from the (fold, subset) counts.
  std::size_t full_rows = 0;
  for (std::int32_t f = 1; f <= n_folds_; ++f) {
    if (f == kappa) continue;
    for (std::size_t t = 0; t < n_subsets; ++t) {
      if (draws_on(s.train_subsets, sigma, static_cast<std::int32_t>(t)))
        full_rows += cell_rows_[static_cast<std::size_t>(f - 1) * n_subsets + t];
    }
  }
  // Branch-free scan (fold and subset are random, so branches would mispredict): write every
  // row, advance only past train rows. One slack slot for the last unconditional write.
  std::vector<std::uint32_t> rows(full_rows + 1);
  const auto scan = [&](auto in_subset) {
    std::size_t k = 0;
    auto* out = rows.data();
    for (std::size_t r = 0; r < n; ++r) {
      out[k] = static_cast<std::uint32_t>(r);
      k += static_cast<std::size_t>((fold[r] != kappa) & in_subset(subset[r]));
    }
    ASSAY_ASSERT(k == full_rows);
    rows.resize(k);
  };
  switch (s.train_subsets) {
    case TrainSubsets::same:
      scan([sigma](std::int32_t t) { return t == sigma; });
      break;
    case TrainSubsets::other:
      scan([sigma](std::int32_t t) { return t != sigma; });
      break;
    case TrainSubsets::all:
      scan([](std::int32_t) { return true; });
      break;
  }
  if (s.n_train_groups >= s.groups) return rows;

  // Down-sampling: rank the train units of each stratum by a hash of (seed, split key, unit);
  // keep rank r (1-based) of m when groups·r ≤ n_train_groups·m. The key does not include the
  // size, so a smaller set is nested in a larger one.
  const bool has_groups = !unit_of_row_.empty();
  const auto unit_of = [&](std::size_t r) {
    return has_groups ? static_cast<std::uint32_t>(unit_of_row_[r]) : static_cast<std::uint32_t>(r);
  };
  const auto unit_stratum = [&](std::uint32_t u) {
    return has_groups ? unit_stratum_[u] : stratum_of_row_[u];
  };
  const std::uint64_t key =
      ((static_cast<std::uint64_t>(s.train_subsets) * n_folds_ + (kappa - 1)) * n_subsets + sigma) *
          static_cast<std::uint64_t>(params_.seeds) +
      static_cast<std::uint64_t>(s.seed - 1);
  const std::uint64_t base = Rng(params_.seed).split(kStreamDownsample).split(key).next();
  std::vector<std::uint8_t> mark(static_cast<std::size_t>(n_units_), 0);
  std::vector<std::uint32_t> units;
  for (const auto r : rows) {
    const auto u = unit_of(r);
    if (!mark[u]) {
      mark[u] = 1;
      units.push_back(u);
    }
  }
  // Bucket the units by stratum, each bucket sorted by priority.
  std::vector<std::size_t> start(static_cast<std::size_t>(n_strata_) + 1, 0);
  for (auto u : units) ++start[unit_stratum(u) + 1];
  for (std::int32_t st = 0; st < n_strata_; ++st) start[st + 1] += start[st];
  std::vector<std::pair<std::uint64_t, std::uint32_t>> ranked(units.size());
  {
    std::vector<std::size_t> next(start.begin(), start.end() - 1);
    for (auto u : units) {
      ranked[next[unit_stratum(u)]++] = {
          mix64(base ^ (static_cast<std::uint64_t>(u) * 0x9e3779b97f4a7c15ULL)), u};
    }
  }
  for (std::int32_t st = 0; st < n_strata_; ++st) {
    const auto m = static_cast<std::int64_t>(start[st + 1] - start[st]);
    if (m == 0) continue;
    const std::int64_t keep = std::min<std::int64_t>(m, s.n_train_groups * m / s.groups);
    auto first = ranked.begin() + static_cast<std::ptrdiff_t>(start[st]);
    auto last = first + m;
    if (keep < m) {
      std::nth_element(first, first + keep, last);
      for (auto it = first + keep; it != last; ++it) mark[it->second] = 0;
    }
  }
  const auto keep_if = [&rows](auto keep) {
    rows.erase(std::remove_if(rows.begin(), rows.end(), [&](std::uint32_t r) { return !keep(r); }),
               rows.end());
  };
  if (!has_groups) {
    keep_if([&](std::uint32_t r) { return mark[r] != 0; });
    return rows;
  }
  // A group that spans strata is kept whole when any of its units is kept (as mlr3).
  // Compact group codes are < n_units_ (every group has at least one unit).
  std::vector<std::uint8_t> keep_group(static_cast<std::size_t>(n_units_), 0);
  for (const auto r : rows)
    if (mark[unit_of_row_[r]]) keep_group[group_of_row_[r]] = 1;
  keep_if([&](std::uint32_t r) { return keep_group[group_of_row_[r]] != 0; });
  return rows;
}

Json SoakSplits::iteration_table(bool one_based_rows) const {
  Json table = Json::array();
  const std::uint32_t offset = one_based_rows ? 1 : 0;
  const auto shifted = [offset](std::vector<std::uint32_t> rows) {
    for (auto& r : rows) r += offset;
    return rows;
  };
  for (std::size_t i = 0; i < splits_.size(); ++i) {
    const SplitInfo& s = splits_[i];
    Json row = Json::object();
    row["test.subset"] = design_.subset_names[s.test_subset];
    row["train.subsets"] = to_string(s.train_subsets);
    row["groups"] = s.groups;
    row["test.fold"] = s.test_fold;
    row["test"] = shifted(test_rows(i));
    row["train"] = shifted(train_rows(i));
    row["seed"] = s.seed;
    row["n.train.groups"] = s.n_train_groups;
    row["iteration"] = s.iteration;
    table.push_back(std::move(row));
  }
  return table;
}

namespace {

// Integer codes of a numeric column (values must be finite integers), as int64.
std::vector<std::int64_t> integer_values(const Table& table, const Column& column,
                                         const char* role) {
  std::vector<std::int64_t> out(column.values.size());
  for (std::size_t r = 0; r < out.size(); ++r) {
    const double v = column.values[r];
    if (!std::isfinite(v) || v != std::floor(v) || std::fabs(v) > 9.0e15) {
      fail_in(table, fmt::format("{} column \"{}\" has {} in data row {}; need integer ids", role,
                                 column.name, v, r + 1));
    }
    out[r] = static_cast<std::int64_t>(v);
  }
  return out;
}

// Dense codes of any column, in sorted value order (numbers numerically, strings as strings).
std::vector<std::int32_t> column_codes(const Table& table, const Column& column, const char* role,
                                       std::int32_t* n_codes) {
  if (column.is_numeric()) {
    auto values = integer_values(table, column, role);
    const std::int64_t lo = values.empty() ? 0 : *std::min_element(values.begin(), values.end());
    for (auto& v : values) v -= lo;
    return compact_codes(values, n_codes);
  }
  std::vector<std::int32_t> rank(column.categories.size());
  std::vector<std::int32_t> idx(column.categories.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](std::int32_t a, std::int32_t b) {
    return column.categories[a] < column.categories[b];
  });
  for (std::size_t j = 0; j < idx.size(); ++j) rank[idx[j]] = static_cast<std::int32_t>(j);
  std::vector<std::int32_t> out(column.codes.size());
  for (std::size_t r = 0; r < out.size(); ++r) out[r] = rank[column.codes[r]];
  *n_codes = static_cast<std::int32_t>(column.categories.size());
  return out;
}

}  // namespace

SoakDesign soak_design(const Table& table, const SoakColumns& columns,
                       std::span<const std::int32_t> default_stratum) {
  const std::size_t n = table.n_rows();
  SoakDesign design;
  // Subset: names sorted numerically when all are numbers, else as strings.
  if (columns.subset.empty()) {
    design.subset.assign(n, 0);
    design.subset_names = {"full"};
  } else {
    const Column& col = table.column(columns.subset);
    if (col.is_numeric()) {
      for (std::size_t r = 0; r < n; ++r) {
        if (!std::isfinite(col.values[r])) {
          fail_in(table, fmt::format("subset column \"{}\" has {} in data row {}", col.name,
                                     col.values[r], r + 1));
        }
      }
    }
    SortedCodes sorted = sorted_codes(col);
    design.subset = std::move(sorted.codes);
    design.subset_names = std::move(sorted.names);
  }
  std::int32_t n_groups = 0;
  if (!columns.group.empty()) {
    const Column& col = table.column(columns.group);
    design.group = column_codes(table, col, "group", &n_groups);
  }
  if (!columns.fold.empty()) {
    const Column& col = table.column(columns.fold);
    if (col.is_numeric()) {
      design.fold = integer_values(table, col, "fold");
    } else {
      std::int32_t n_folds = 0;
      auto codes = column_codes(table, col, "fold", &n_folds);
      design.fold.assign(codes.begin(), codes.end());
    }
  }
  if (!design.group.empty() && !design.fold.empty()) {
    // Checked here as well as in SoakSplits so that the message names the file's own group and
    // fold values and 1-based data rows (SoakSplits only sees codes).
    const Column& group = table.column(columns.group);
    const Column& fold = table.column(columns.fold);
    const auto cell = [](const Column& c, std::size_t r) {
      return c.is_numeric() ? fmt::format("{}", c.values[r]) : quote_found(c.label(r));
    };
    std::vector<std::int64_t> first_row(static_cast<std::size_t>(n_groups), -1);
    for (std::size_t r = 0; r < n; ++r) {
      auto& first = first_row[static_cast<std::size_t>(design.group[r])];
      if (first < 0) {
        first = static_cast<std::int64_t>(r);
      } else if (design.fold[static_cast<std::size_t>(first)] != design.fold[r]) {
        const auto f = static_cast<std::size_t>(first);
        fail_in(table, fmt::format("fold column \"{}\" is not constant within group {} of "
                                   "column \"{}\": data row {} has fold {}, data row {} has "
                                   "fold {}",
                                   fold.name, cell(group, r), group.name, f + 1, cell(fold, f),
                                   r + 1, cell(fold, r)));
      }
    }
  }
  if (!columns.strata.empty()) {
    std::vector<std::int64_t> combined(n, 0);
    for (const auto& name : columns.strata) {
      std::int32_t n_codes = 0;
      auto codes = column_codes(table, table.column(name), "strata", &n_codes);
      for (std::size_t r = 0; r < n; ++r) combined[r] = combined[r] * n_codes + codes[r];
      std::int32_t n_combined = 0;
      auto dense = compact_codes(combined, &n_combined);
      combined.assign(dense.begin(), dense.end());
    }
    design.stratum.assign(combined.begin(), combined.end());
  } else if (!default_stratum.empty()) {
    if (default_stratum.size() != n) {
      fail("default_stratum has {} entries, the table {} rows", default_stratum.size(), n);
    }
    design.stratum.assign(default_stratum.begin(), default_stratum.end());
  }
  return design;
}

}  // namespace assay::soak
